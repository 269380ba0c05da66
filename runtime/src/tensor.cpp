// TensorView factories and zero-copy view operations; every check throws InvalidTensor naming the problem.
#include "pto/runtime/tensor.h"

#include <string>

#include "pto/runtime/detail/throw.h"

namespace pto {
namespace {

[[noreturn]] void bad_tensor(const std::string& what) {
    detail::throw_error(ErrorCode::InvalidTensor, what);
}

void check_rank(std::size_t ndim) {
    if (ndim < 1 || ndim > static_cast<std::size_t>(kMaxTensorDims)) detail::throw_bad_rank(ndim);
}

void fill_row_major(TensorView& v) {
    // Unsigned: shapes whose product exceeds 2^63 wrap (well defined) rather than overflow.
    std::uint64_t stride = 1;
    for (int d = v.ndim - 1; d >= 0; --d) {
        v.strides[d] = static_cast<std::int64_t>(stride);
        stride *= v.shape[d];
    }
    for (int d = v.ndim; d < kMaxTensorDims; ++d) {
        v.shape[d] = 1;
        v.strides[d] = 0;
    }
}

}  // namespace

std::uint64_t TensorCreateInfo::element_count() const {
    std::uint64_t n = 1;
    for (std::uint32_t d = 0; d < ndim; ++d)
        n *= shape[d];
    return n;
}

TensorView TensorView::contiguous(void* base, DataType type, std::initializer_list<std::uint32_t> dims) {
    return contiguous(base, type, std::span<const std::uint32_t>(dims.begin(), dims.size()));
}

TensorView TensorView::contiguous(void* base, DataType type, std::span<const std::uint32_t> dims) {
    check_rank(dims.size());
    TensorView v;
    v.base = base;
    v.offset = 0;
    v.creator = TaskId{};
    v.ndim = static_cast<std::uint8_t>(dims.size());
    v.dtype = type;
    v.is_tracked = true;
    for (std::size_t d = 0; d < dims.size(); ++d)
        v.shape[d] = dims[d];
    fill_row_major(v);
    return v;
}

void detail::throw_bad_rank(std::size_t ndim) {
    bad_tensor("a tensor has 1 to " + std::to_string(kMaxTensorDims) + " dimensions, not " +
               std::to_string(ndim));
}

std::string detail::describe_bad_slice(const TensorView& view, std::initializer_list<Slice> slices) {
    TensorView narrowed = view;
    std::size_t k = 0;
    for (const Slice& s : slices) {
        if (!slice_in_place(narrowed, s)) {  // leaves `narrowed` as it was
            const bool has_dim = s.dim >= 0 && s.dim < narrowed.ndim && narrowed.ndim <= kMaxTensorDims;
            return "slice " + std::to_string(k) + " (dimension " + std::to_string(s.dim) + ", [" +
                   std::to_string(s.start) + ", " + std::to_string(std::uint64_t{s.start} + s.length) +
                   ")) leaves the view, " +
                   (has_dim ? "whose dimension " + std::to_string(s.dim) + " has " +
                                  std::to_string(narrowed.shape[s.dim]) + " indices"
                            : "which has rank " + std::to_string(narrowed.ndim));
        }
        ++k;
    }
    PTO_ASSERT(false, "describe_bad_slice: every slice fits");
    return "a slice leaves the view";
}

void detail::throw_bad_slice(const TensorView& view, int dim, std::uint32_t start, std::uint32_t length) {
    check_rank(view.ndim);
    if (dim < 0 || dim >= view.ndim)
        bad_tensor("slice dimension " + std::to_string(dim) + " of a rank-" + std::to_string(view.ndim) +
                   " view");
    bad_tensor("slice [" + std::to_string(start) + ", " + std::to_string(std::uint64_t{start} + length) +
               ") leaves dimension " + std::to_string(dim) + " of size " + std::to_string(view.shape[dim]));
}

TensorView TensorView::reshape(std::initializer_list<std::uint32_t> dims) const {
    check_rank(dims.size());
    check_rank(ndim);  // a malformed view (fields set by hand) is rejected, never read past its arrays
    if (!is_contiguous()) bad_tensor("reshape needs a contiguous view; copy or slice differently");
    std::uint64_t n = 1;
    for (std::uint32_t d : dims)
        n *= d;
    if (n != element_count())
        bad_tensor("reshape to " + std::to_string(n) + " elements of a view of " +
                   std::to_string(element_count()));
    TensorView v = *this;
    v.ndim = static_cast<std::uint8_t>(dims.size());
    int d = 0;
    for (std::uint32_t s : dims)
        v.shape[d++] = s;
    fill_row_major(v);
    return v;
}

TensorView TensorView::transpose(int a, int b) const {
    check_rank(ndim);
    if (a < 0 || b < 0 || a >= ndim || b >= ndim)
        bad_tensor("transpose of dimensions " + std::to_string(a) + " and " + std::to_string(b) +
                   " of a rank-" + std::to_string(ndim) + " view");
    TensorView v = *this;
    std::swap(v.shape[a], v.shape[b]);
    std::swap(v.strides[a], v.strides[b]);
    return v;
}

TensorView TensorView::untracked() const {
    TensorView v = *this;
    v.is_tracked = false;
    return v;
}

std::uint64_t TensorView::element_count() const {
    std::uint64_t n = 1;
    for (int d = 0; d < ndim && d < kMaxTensorDims; ++d)
        n *= shape[d];
    return n;
}

bool TensorView::is_contiguous() const {
    if (ndim > kMaxTensorDims) return false;
    std::uint64_t expected = 1;  // unsigned: wraps on absurd shapes instead of overflowing
    for (int d = ndim - 1; d >= 0; --d) {
        if (shape[d] != 1 && strides[d] != static_cast<std::int64_t>(expected)) return false;
        expected *= shape[d];
    }
    return true;
}

std::int64_t TensorView::element_offset(std::span<const std::uint32_t> index) const {
    // Unsigned arithmetic: wraps (well defined) for views whose offsets leave the int64 range.
    std::uint64_t at = static_cast<std::uint64_t>(offset);
    for (std::size_t d = 0; d < index.size() && d < ndim && d < kMaxTensorDims; ++d)
        at += std::uint64_t{index[d]} * static_cast<std::uint64_t>(strides[d]);
    return static_cast<std::int64_t>(at);
}

}  // namespace pto
