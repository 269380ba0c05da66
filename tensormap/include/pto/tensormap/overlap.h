// Exact overlap of strided tensor views (docs/design/tensormap.md): whether two views of one buffer share an
// element, and whether one view covers every element of another. Where exactness is impossible within a
// bounded cost, the answer is conservative (overlap assumed, coverage denied); docs/design/tensormap.md lists
// the cases.
#pragma once

#include "pto/runtime/tensor.h"

namespace pto {

/// views_overlap: true if `a` and `b` (same base required; different bases never overlap) may address a
/// common element. Only geometry counts (is_tracked, dtype and creator are ignored); an empty view
/// overlaps nothing. Exact whenever the distinct strides of both views, after dropping size-1 and
/// zero-stride dimensions and merging dimensions that form one progression, nest (each divides the next):
/// row-major and column-major slices, transposed views, tiles, views stepped by a common factor, and the
/// interleaved even/odd columns of one matrix. Strides that do not nest are still exact when the
/// dimensions outside the nesting part span at most 64 index combinations; beyond that, and for views
/// reaching past ±2^56 elements, the answer is a conservative true. Cost: tens of nanoseconds.
/// Throws InvalidTensor if a view has more than kMaxTensorDims dimensions.
[[nodiscard]] bool views_overlap(const TensorView& a, const TensorView& b);

/// view_covers: true only if every element of `inner` is also an element of `outer` (same base;
/// different bases never cover). Exact when `outer`'s strides nest and the strides of both views together
/// nest, when the views are identical, and when `inner` is one element; false when unsure, which only
/// keeps more tensormap entries alive. An empty `inner` is covered by any view of the same buffer.
/// Throws InvalidTensor if a view has more than kMaxTensorDims dimensions.
[[nodiscard]] bool view_covers(const TensorView& outer, const TensorView& inner);

}  // namespace pto
