// ViewShape: the canonical element set of a TensorView, built once per view and stored with each tensormap
// entry so overlap tests (shape_overlap.h) and the region index never re-derive it
// (docs/design/tensormap.md).
#pragma once

#include <cstdint>
#include <cstring>

#include "fast_divide.h"
#include "pto/runtime/tensor.h"

namespace pto::detail {

/// Element indices a shape may reach: ±2^56. Keeping every index (and so every difference of two indices)
/// far below 2^63 lets the overlap arithmetic run in int64 without overflow checks; no real buffer is
/// 2^56 elements long. Views reaching further (or whose extent overflows) become opaque.
inline constexpr std::int64_t kElementLimit = std::int64_t{1} << 56;

/// ViewShape: the elements { first + sum_i k_i * stride[i] : 0 <= k_i < count[i] }.
///
/// Normal form: size-1 and zero-stride dimensions are dropped (they add no element), negative strides
/// are flipped (moving `first` to the lowest element), dimensions are sorted by ascending stride, and a
/// dimension is merged into the next smaller one whenever their union is one arithmetic progression
/// (stride[j] a multiple of stride[i] and stride[j] / stride[i] <= count[i]). So contiguous rows fold into
/// one dimension, and a chain shape (each stride divides the next) has stride[i+1] > stride[i] * count[i]:
/// every element has exactly one index vector, which is what makes coverage decidable per digit.
struct ViewShape {
    std::int64_t first;                   ///< lowest element
    std::int64_t last;                    ///< highest element (inclusive)
    std::int64_t stride[kMaxTensorDims];  ///< ascending, > 0
    std::int64_t count[kMaxTensorDims];   ///< each > 1 (a merged count may exceed 2^32)
    std::uint8_t rank;                    ///< 0: a single element
    bool is_empty;   ///< some dimension has size 0: no element at all (first/last meaningless)
    bool is_opaque;  ///< outside ±kElementLimit: first/last are ∓kElementLimit, dimensions unknown
    bool is_chain;   ///< each stride divides the next
};

/// RowWindow: for a chain shape of rank >= 2, with pitch = stride[1], every element x has
/// (x - phase) mod pitch in [0, width]: the elements sit in one window of every period ("row") of pitch
/// elements, because stride[0] * (count[0] - 1) < pitch and all larger strides are multiples of pitch.
/// Two shapes with equal pitches whose windows do not meet share no element. The test needs no shape, so
/// tensormap entries carry their window and skip loading shapes of tiles side by side in a band of rows.
struct RowWindow {
    std::int64_t pitch;  ///< 0: the shape has no window (rank < 2, not a chain, opaque or empty)
    std::int64_t phase;  ///< first mod pitch, in [0, pitch)
    std::int64_t width;  ///< stride[0] * (count[0] - 1), < pitch
};

/// set_row_window: writes the RowWindow of `s` into `w` (pitch 0 when it has none). Inline and in place:
/// a window returned through the stack and copied on stalled on store forwarding (perf, chain of inout
/// tasks).
inline void set_row_window(const ViewShape& s, RowWindow& w) {
    if (s.rank < 2 || !s.is_chain || s.is_opaque || s.is_empty) {
        w.pitch = 0;
        w.phase = 0;
        w.width = 0;
        return;
    }
    const std::int64_t pitch = s.stride[1];
    w.pitch = pitch;
    w.phase = s.first - floor_div(s.first, pitch) * pitch;
    w.width = s.stride[0] * (s.count[0] - 1);
}

/// row_window: the RowWindow of `s` (pitch 0 when it has none).
[[nodiscard]] inline RowWindow row_window(const ViewShape& s) {
    RowWindow w;
    set_row_window(s, w);
    return w;
}

/// windows_disjoint: true only if both windows exist, their pitches are equal and their windows do not
/// meet, which proves the shapes disjoint.
[[nodiscard]] inline bool windows_disjoint(const RowWindow& a, const RowWindow& b) {
    if (a.pitch == 0 || a.pitch != b.pitch) return false;
    std::int64_t gap = b.phase - a.phase;  // where b's window starts, seen from a's, in [0, pitch)
    if (gap < 0) gap += a.pitch;
    return gap > a.width && gap + b.width < a.pitch;
}

/// make_view_shape: the normal form of `view`'s elements (its base is ignored). Throws InvalidTensor if
/// view.ndim > kMaxTensorDims. ndim 0 is one element at view.offset.
[[nodiscard]] ViewShape make_view_shape(const TensorView& view);
/// build_view_shape: the same, written into `s` in place; stride and count entries at or past s.rank are
/// left as they were (nothing reads them; copy such a shape with copy_shape).
void build_view_shape(const TensorView& view, ViewShape& s);

/// SimpleForm: which shortcut normalised a view (build_simple).
enum class SimpleForm : std::uint8_t {
    None,   ///< neither: the general path must run
    Range,  ///< row-major contiguous: one range (rank 1, stride 1, or a single element)
    Rows,   ///< rows: a chain of rank 2, strides {1, pitch}
};

/// build_simple: in one pass over the dimensions, the normal form of the two most common kinds of view,
/// with its RowWindow: a row-major contiguous view (one range, no window),
/// or a view of rows: an innermost row-major contiguous run of at least two elements (a row of a tile, or
/// several dimensions that fold into one) repeated by one outer dimension whose stride is larger than the
/// run, and by outer dimensions that continue its rows (stride = pitch x rows so far), every other
/// dimension of size 1 (tiles and column chunks of a matrix, a range of heads of one batch row, one head of
/// a paged cache), which is a chain of rank 2, strides {1, pitch}. Both are what build_general_shape and
/// set_row_window would give, without sorting and merging. Inline, so the tensormap's prepare settles
/// these views without a call. Returns None, writing nothing, for any other view (empty, strided
/// otherwise, reaching beyond ±kElementLimit, or of more than kMaxTensorDims dimensions, which
/// build_general_shape rejects).
inline SimpleForm build_simple(const TensorView& view, ViewShape& s, RowWindow& w) {
    if (view.ndim > kMaxTensorDims) [[unlikely]]
        return SimpleForm::None;
    std::int64_t run = 1;    // elements of the contiguous run so far
    std::int64_t pitch = 0;  // the outer dimension's stride, once found
    std::int64_t rows = 1;
    for (int d = view.ndim - 1; d >= 0; --d) {
        const std::int64_t n = view.shape[d];
        if (n == 1) continue;
        const std::int64_t st = view.strides[d];
        if (n == 0) return SimpleForm::None;
        if (pitch != 0) {
            // Past the rows: only a dimension continuing them (the pages of a paged cache, each a block of
            // rows) keeps the shape rows; it merges into the row count as the general path would.
            std::int64_t next = 0;
            if (__builtin_mul_overflow(pitch, rows, &next) || st != next ||
                __builtin_mul_overflow(rows, n, &rows))
                return SimpleForm::None;
            continue;
        }
        if (st == run) {
            if (__builtin_mul_overflow(run, n, &run) || run > kElementLimit) return SimpleForm::None;
        } else {
            if (run < 2 || st <= run || st > kElementLimit) return SimpleForm::None;
            pitch = st;
            rows = n;
        }
    }
    const std::int64_t first = view.offset;
    std::int64_t span = 0;  // from the first element to the start of the last row
    if (pitch != 0 && (__builtin_mul_overflow(rows - 1, pitch, &span) || span > kElementLimit))
        return SimpleForm::None;
    if (first < -kElementLimit || first > kElementLimit - span - run) return SimpleForm::None;
    s.first = first;
    s.last = first + span + run - 1;
    s.stride[0] = 1;
    s.count[0] = run;
    s.is_empty = false;
    s.is_opaque = false;
    s.is_chain = true;
    if (pitch == 0) {
        s.rank = run == 1 ? 0 : 1;
        w.pitch = 0;
        w.phase = 0;
        w.width = 0;
        return SimpleForm::Range;
    }
    s.stride[1] = pitch;
    s.count[1] = rows;
    s.rank = 2;
    w.pitch = pitch;
    w.phase = first - floor_div(first, pitch) * pitch;
    w.width = run - 1;
    return SimpleForm::Rows;
}

/// build_general_shape: build_view_shape for any view (the sorting and merging path; the views
/// build_simple settles too, more slowly). Throws InvalidTensor if view.ndim > kMaxTensorDims.
void build_general_shape(const TensorView& view, ViewShape& s);

/// copy_shape: copies a shape whose entries past its rank may be uninitialised, byte for byte.
inline void copy_shape(ViewShape& to, const ViewShape& from) {
    std::memcpy(&to, &from, sizeof(ViewShape));
}

/// same_layout: true if both shapes are bounded and have the same normal form (so the same elements).
[[nodiscard]] inline bool same_layout(const ViewShape& a, const ViewShape& b) {
    if (a.is_opaque || b.is_opaque || a.is_empty != b.is_empty) return false;
    if (a.is_empty) return true;
    if (a.first != b.first || a.rank != b.rank) return false;
    for (int i = 0; i < a.rank; ++i)
        if (a.stride[i] != b.stride[i] || a.count[i] != b.count[i]) return false;
    return true;
}

/// is_dense: a bounded shape whose elements are every index from first to last (one element, or one
/// dimension of stride 1): overlap and coverage with it follow from the bounding ranges alone.
[[nodiscard]] inline bool is_dense(const ViewShape& s) {
    return !s.is_opaque && !s.is_empty && (s.rank == 0 || (s.rank == 1 && s.stride[0] == 1));
}

}  // namespace pto::detail
