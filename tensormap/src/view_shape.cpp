// Normalisation of a TensorView into a ViewShape (see view_shape.h). Arithmetic is overflow-checked once
// here, so shape_overlap.cpp can rely on the ±kElementLimit bound.
#include "view_shape.h"

#include "fast_divide.h"
#include "pto/runtime/detail/throw.h"

#include <string>

namespace pto::detail {
namespace {

[[noreturn]] void bad_rank(int ndim) {
    throw_error(ErrorCode::InvalidTensor, "a tensormap view has 0 to " + std::to_string(kMaxTensorDims) +
                                              " dimensions, not " + std::to_string(ndim));
}

void make_opaque(ViewShape& s) {
    s = ViewShape{};
    s.first = -kElementLimit;
    s.last = kElementLimit;
    s.is_opaque = true;
}

void erase_dim(ViewShape& s, int d) {
    for (int i = d; i + 1 < s.rank; ++i) {
        s.stride[i] = s.stride[i + 1];
        s.count[i] = s.count[i + 1];
    }
    --s.rank;
}

}  // namespace

// Every path returns `s` itself, so it is built in place (a copy of the freshly byte-written struct
// stalled on store forwarding: measured 37% of a 1-D lookup + insert before).
ViewShape make_view_shape(const TensorView& view) {
    if (view.ndim > kMaxTensorDims) [[unlikely]]
        bad_rank(view.ndim);
    ViewShape s{};
    for (int d = 0; d < view.ndim; ++d) {
        if (view.shape[d] == 0) {
            s.is_empty = true;
            return s;
        }
    }
    std::int64_t first = view.offset;
    for (int d = 0; d < view.ndim; ++d) {
        const std::int64_t n = view.shape[d];
        std::int64_t stride = view.strides[d];
        if (n == 1 || stride == 0) continue;
        if (stride < 0) {
            // A negative stride walks down from the offset: the same elements start stride * (n - 1) lower.
            std::int64_t shift = 0;
            if (stride < -kElementLimit || __builtin_mul_overflow(stride, n - 1, &shift) ||
                __builtin_add_overflow(first, shift, &first)) {
                make_opaque(s);
                return s;
            }
            stride = -stride;
        }
        int at = s.rank++;
        for (; at > 0 && s.stride[at - 1] > stride; --at) {
            s.stride[at] = s.stride[at - 1];
            s.count[at] = s.count[at - 1];
        }
        s.stride[at] = stride;
        s.count[at] = n;
    }
    for (int i = 0; i + 1 < s.rank;) {
        if (!divides(s.stride[i], s.stride[i + 1])) {
            ++i;
            continue;
        }
        const std::int64_t ratio = exact_div(s.stride[i + 1], s.stride[i]);
        if (ratio > s.count[i]) {
            ++i;
            continue;
        }
        // Blocks of count[i] elements repeat every ratio <= count[i] steps, so they touch or overlap and
        // their union is one progression; re-test the grown dimension against the next one.
        std::int64_t grown = 0;
        if (__builtin_mul_overflow(s.count[i + 1] - 1, ratio, &grown) ||
            __builtin_add_overflow(grown, s.count[i], &grown)) {
            make_opaque(s);
            return s;
        }
        s.count[i] = grown;
        erase_dim(s, i + 1);
    }
    std::int64_t last = first;
    for (int i = 0; i < s.rank; ++i) {
        std::int64_t span = 0;
        if (__builtin_mul_overflow(s.stride[i], s.count[i] - 1, &span) ||
            __builtin_add_overflow(last, span, &last)) {
            make_opaque(s);
            return s;
        }
    }
    if (first < -kElementLimit || last > kElementLimit) {
        make_opaque(s);
        return s;
    }
    s.first = first;
    s.last = last;
    s.is_chain = true;
    for (int i = 0; i + 1 < s.rank; ++i)
        s.is_chain = s.is_chain && divides(s.stride[i], s.stride[i + 1]);
    return s;
}

RowWindow row_window(const ViewShape& s) {
    if (s.rank < 2 || !s.is_chain || s.is_opaque || s.is_empty) return RowWindow{0, 0, 0};
    const std::int64_t pitch = s.stride[1];
    const std::int64_t phase = s.first - floor_div(s.first, pitch) * pitch;
    return RowWindow{pitch, phase, s.stride[0] * (s.count[0] - 1)};
}

bool same_layout(const ViewShape& a, const ViewShape& b) {
    if (a.is_opaque || b.is_opaque || a.is_empty != b.is_empty) return false;
    if (a.is_empty) return true;
    if (a.first != b.first || a.rank != b.rank) return false;
    for (int i = 0; i < a.rank; ++i)
        if (a.stride[i] != b.stride[i] || a.count[i] != b.count[i]) return false;
    return true;
}

}  // namespace pto::detail
