// TensorView, the value type every task argument uses: a strided view of a buffer (docs/design/tensormap.md),
// plus the direction a task accesses it with. Views are metadata only; slicing, reshaping and transposing
// never copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

#include "pto/runtime/ids.h"

namespace pto {

inline constexpr int kMaxTensorDims = 5;

enum class DataType : std::uint8_t { F32, F16, BF16, I8, U8, I32, I64 };

[[nodiscard]] constexpr std::size_t size_of(DataType t) {
    switch (t) {
        case DataType::F32:
            return 4;
        case DataType::F16:
            return 2;
        case DataType::BF16:
            return 2;
        case DataType::I8:
            return 1;
        case DataType::U8:
            return 1;
        case DataType::I32:
            return 4;
        case DataType::I64:
            return 8;
    }
    return 0;
}

/// Direction: how a task accesses a tensor argument; decides RAW / WAW / WAR edges in AUTO scopes.
enum class Direction : std::uint8_t { In, Out, InOut };

/// TensorCreateInfo: an output the runtime allocates from its heap ring when the task is submitted; the task
/// handle then holds the new view. The buffer lives until the creating task retires.
struct TensorCreateInfo {
    DataType dtype = DataType::F32;
    std::uint32_t ndim = 0;
    std::uint32_t shape[kMaxTensorDims] = {};

    TensorCreateInfo() = default;
    /// A contiguous row-major tensor of `shape` (1 to 5 dimensions; InvalidTensor otherwise). Inline:
    /// graph builders make these per scope.
    TensorCreateInfo(DataType type, std::initializer_list<std::uint32_t> dims);

    [[nodiscard]] std::uint64_t element_count() const;
    [[nodiscard]] std::uint64_t byte_size() const { return element_count() * size_of(dtype); }
};

/// Slice: the indices [start, start + length) of dimension `dim` of a view. Bindings::tensor takes a list of
/// them to bind a sub-view without building it first (see there).
struct Slice {
    int dim;
    std::uint32_t start;
    std::uint32_t length;
};

/// TensorView: `shape` elements starting at element `offset` of the buffer at `base`, stepping `strides`
/// elements per index of each dimension (strides may be any non-negative values: transposed and interleaved
/// views are exact). The buffer is identified by `base`: two views alias only if their bases are equal.
///
/// A view is tracked by default: in AUTO scopes the tensormap finds the tasks it depends on. An untracked
/// view (weights, constants, data synchronised outside the runtime) never touches the tensormap. A view the
/// runtime allocated carries its creator's TaskId, so readers depend on the creator without a map lookup.
///
/// The type is trivially copyable and has no default member initialisers on the arrays, so argument lists
/// can hold uninitialised views for free; construct views with the factories below.
struct TensorView {
    void* base;
    std::int64_t offset;
    std::uint32_t shape[kMaxTensorDims];
    std::int64_t strides[kMaxTensorDims];
    TaskId creator;
    std::uint8_t ndim;
    DataType dtype;
    bool is_tracked;

    /// contiguous: a row-major view over a whole buffer of `dims` elements of `type`.
    static TensorView contiguous(void* base, DataType type, std::initializer_list<std::uint32_t> dims);
    /// contiguous: the same with the shape given as a span (ndim = dims.size(), 1 to 5).
    static TensorView contiguous(void* base, DataType type, std::span<const std::uint32_t> dims);

    /// slice: the sub-view of `length` indices from `start` along dimension `dim`; same rank. Inline: graph
    /// builders slice per launch. Throws InvalidTensor if the range leaves the view.
    [[nodiscard]] TensorView slice(int dim, std::uint32_t start, std::uint32_t length) const;
    [[nodiscard]] TensorView slice(Slice s) const { return slice(s.dim, s.start, s.length); }
    /// reshape: the same elements under a new row-major shape; the view must be contiguous.
    [[nodiscard]] TensorView reshape(std::initializer_list<std::uint32_t> dims) const;
    /// transpose: swaps dimensions a and b (strides follow, no data moves).
    [[nodiscard]] TensorView transpose(int a, int b) const;
    /// untracked: this view, excluded from dependency discovery.
    [[nodiscard]] TensorView untracked() const;

    [[nodiscard]] std::uint64_t element_count() const;
    [[nodiscard]] bool is_contiguous() const;
    /// data: pointer to the view's first element (index 0 in every dimension).
    template <class T>
    [[nodiscard]] T* data() const {
        return static_cast<T*>(base) + offset;
    }
    /// element_offset: the buffer element index of the element at `index` (ndim entries).
    [[nodiscard]] std::int64_t element_offset(std::span<const std::uint32_t> index) const;
};

namespace detail {
[[noreturn]] void throw_bad_slice(const TensorView& view, int dim, std::uint32_t start, std::uint32_t length);
[[noreturn]] void throw_bad_rank(std::size_t ndim);
/// describe_bad_slice: "slice k (dimension d, [start, end)) leaves the view, whose dimension d has n
/// indices" (or "which has rank r") for the first of `slices`, applied to `view` in turn, that leaves it.
/// For the errors of the in-place slicing of Args and Bindings; some slice must leave the view.
[[nodiscard]] std::string describe_bad_slice(const TensorView& view, std::initializer_list<Slice> slices);

/// narrow: narrows `v` to `s` in place without checking that the slice lies in the view (the caller knows
/// it does). The arithmetic of TensorView::slice.
inline void narrow(TensorView& v, Slice s) {
    // Unsigned: wraps (well defined) for views whose offsets leave the int64 range; same code as signed.
    v.offset =
        static_cast<std::int64_t>(static_cast<std::uint64_t>(v.offset) +
                                  std::uint64_t{s.start} * static_cast<std::uint64_t>(v.strides[s.dim]));
    v.shape[s.dim] = s.length;
}

/// slice_in_place: narrows `v` to `s` as TensorView::slice does, in place; false (v unchanged) if the slice
/// leaves the view. Shared by slice and by Bindings::tensor's in-place slices.
inline bool slice_in_place(TensorView& v, Slice s) {
    if (s.dim < 0 || s.dim >= v.ndim || v.ndim > kMaxTensorDims ||
        static_cast<std::uint64_t>(s.start) + s.length > v.shape[s.dim]) [[unlikely]]
        return false;
    narrow(v, s);
    return true;
}
}  // namespace detail

inline TensorCreateInfo::TensorCreateInfo(DataType type, std::initializer_list<std::uint32_t> dims)
    : dtype(type), ndim(static_cast<std::uint32_t>(dims.size())) {
    if (dims.size() < 1 || dims.size() > kMaxTensorDims) [[unlikely]]
        detail::throw_bad_rank(dims.size());
    std::uint32_t d = 0;
    for (std::uint32_t n : dims)
        shape[d++] = n;
}

inline TensorView TensorView::slice(int dim, std::uint32_t start, std::uint32_t length) const {
    TensorView v = *this;
    if (!detail::slice_in_place(v, Slice{dim, start, length})) [[unlikely]]
        detail::throw_bad_slice(*this, dim, start, length);
    return v;
}

namespace detail {
/// or_used_strides: ORs into `bits` the strides of the view's `ndim` dimensions, so `bits` turns negative
/// when one of them is, and sets it to -1 when `ndim` is outside 1..kMaxTensorDims: one sign test at the end
/// checks a whole list of views for both.
inline void or_used_strides(const TensorView& v, std::int64_t& bits) {
    static_assert(kMaxTensorDims == 5, "the switch lists every rank");
    const std::int64_t* st = v.strides;
    switch (v.ndim) {
        case 5:
            bits |= st[4];
            [[fallthrough]];
        case 4:
            bits |= st[3];
            [[fallthrough]];
        case 3:
            bits |= st[2];
            [[fallthrough]];
        case 2:
            bits |= st[1];
            [[fallthrough]];
        case 1:
            bits |= st[0];
            break;
        default:
            bits = -1;
    }
}

/// used_stride_bits: or_used_strides of one view (negative: a bad rank or a negative stride).
inline std::int64_t used_stride_bits(const TensorView& v) {
    std::int64_t bits = 0;
    or_used_strides(v, bits);
    return bits;
}

/// write_created_view: the row-major view of `info` over `base` (null until the runtime allocates it),
/// written in place: argument lists and the runtime's argument ring build create-info views without a copy.
/// `info.ndim` is checked by the submit; the loop runs over every dimension so it stays branch-free.
inline void write_created_view(TensorView& v, const TensorCreateInfo& info, void* base, TaskId creator) {
    v.base = base;
    v.offset = 0;
    v.creator = creator;
    v.ndim = static_cast<std::uint8_t>(info.ndim);
    v.dtype = info.dtype;
    v.is_tracked = true;
    // Unsigned: an absurd shape wraps here instead of overflowing; the submit rejects it (CapacityExhausted).
    std::uint64_t stride = 1;
    for (int d = kMaxTensorDims - 1; d >= 0; --d) {
        const bool used = d < static_cast<int>(info.ndim);
        v.shape[d] = used ? info.shape[d] : 1;
        v.strides[d] = used ? static_cast<std::int64_t>(stride) : 0;
        stride *= used ? info.shape[d] : 1;
    }
}
}  // namespace detail

/// TensorArg: one tensor argument of a task.
struct TensorArg {
    TensorView view;
    Direction direction;
};

}  // namespace pto
