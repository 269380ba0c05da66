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

}  // namespace

// Works on locals and writes the result once: zero-filling the whole struct first compiled to `rep stos`
// (79% of this function), and updating the output's rank in place kept it in memory through every step
// (perf, chain of 2048 inout tasks and the Qwen3 tier-4 access trace); returning a copy of a freshly
// byte-written struct stalls on store forwarding (37% of a 1-D lookup + insert when measured).
void build_view_shape(const TensorView& view, ViewShape& s) {
    RowWindow window;  // build_view_shape's callers derive the window when they need it
    if (build_simple(view, s, window) != SimpleForm::None) return;
    build_general_shape(view, s);
}

void build_general_shape(const TensorView& view, ViewShape& s) {
    const int ndim = view.ndim;
    if (ndim > kMaxTensorDims) [[unlikely]]
        bad_rank(ndim);
    std::int64_t stride[kMaxTensorDims];
    std::int64_t count[kMaxTensorDims];
    int rank = 0;
    std::int64_t first = view.offset;
    bool is_empty = false;
    bool is_opaque = false;
    // Innermost dimension first: a row-major view then arrives in ascending stride order and the
    // insertion sort below moves nothing.
    for (int d = ndim - 1; d >= 0; --d) {
        const std::int64_t n = view.shape[d];
        std::int64_t st = view.strides[d];
        is_empty = is_empty || n == 0;
        if (n <= 1 || st == 0) continue;
        if (st < 0) {
            // A negative stride walks down from the offset: the same elements start stride * (n - 1) lower.
            std::int64_t shift = 0;
            if (st < -kElementLimit || __builtin_mul_overflow(st, n - 1, &shift) ||
                __builtin_add_overflow(first, shift, &first)) {
                is_opaque = true;  // the scan goes on: an empty dimension still makes the view empty
                continue;
            }
            st = -st;
        }
        int at = rank++;
        for (; at > 0 && stride[at - 1] > st; --at) {
            stride[at] = stride[at - 1];
            count[at] = count[at - 1];
        }
        stride[at] = st;
        count[at] = n;
    }
    if (is_empty) {
        s.rank = 0;
        s.first = 0;
        s.last = 0;
        s.is_empty = true;
        s.is_opaque = false;
        s.is_chain = false;
        return;
    }
    // One pass in ascending stride order, merging each dimension into the last kept one when their union
    // is one progression. A merge only grows the kept dimension's count, which no earlier pair's test
    // reads, so no earlier pair needs testing again.
    int kept = 0;
    for (int i = 0; i < rank && !is_opaque; ++i) {
        if (kept > 0 && divides(stride[kept - 1], stride[i])) {
            const std::int64_t ratio = exact_div(stride[i], stride[kept - 1]);
            if (ratio <= count[kept - 1]) {
                // Blocks of count elements repeat every ratio <= count steps, so they touch or overlap.
                std::int64_t grown = 0;
                if (__builtin_mul_overflow(count[i] - 1, ratio, &grown) ||
                    __builtin_add_overflow(grown, count[kept - 1], &grown))
                    is_opaque = true;
                count[kept - 1] = grown;
                continue;
            }
        }
        stride[kept] = stride[i];
        count[kept] = count[i];
        ++kept;
    }
    rank = kept;
    std::int64_t last = first;
    for (int i = 0; i < rank && !is_opaque; ++i) {
        std::int64_t span = 0;
        if (__builtin_mul_overflow(stride[i], count[i] - 1, &span) ||
            __builtin_add_overflow(last, span, &last))
            is_opaque = true;
    }
    if (is_opaque || first < -kElementLimit || last > kElementLimit) {
        make_opaque(s);
        return;
    }
    bool is_chain = true;
    for (int i = 1; i < rank; ++i)
        is_chain = is_chain && divides(stride[i - 1], stride[i]);
    // Unrolled by hand: a copy loop of this length compiled to two memcpy calls (18% of a prepare).
    switch (rank) {
        case 5:
            s.stride[4] = stride[4], s.count[4] = count[4];
            [[fallthrough]];
        case 4:
            s.stride[3] = stride[3], s.count[3] = count[3];
            [[fallthrough]];
        case 3:
            s.stride[2] = stride[2], s.count[2] = count[2];
            [[fallthrough]];
        case 2:
            s.stride[1] = stride[1], s.count[1] = count[1];
            [[fallthrough]];
        case 1:
            s.stride[0] = stride[0], s.count[0] = count[0];
            [[fallthrough]];
        default:
            break;
    }
    s.first = first;
    s.last = last;
    s.rank = static_cast<std::uint8_t>(rank);
    s.is_empty = false;
    s.is_opaque = false;
    s.is_chain = is_chain;
}

ViewShape make_view_shape(const TensorView& view) {
    ViewShape s{};
    build_view_shape(view, s);
    return s;
}

}  // namespace pto::detail
