// Exact overlap of strided tensor views (SPEC §4): whether two views of one buffer share an element, and
// whether one view covers every element of another. Where exactness is impossible within a bounded cost,
// the answer is conservative (overlap assumed, coverage denied); docs/design/tensormap.md lists the cases.
#pragma once

#include "pto/runtime/tensor.h"

namespace pto {

/// views_overlap: true if `a` and `b` (same base required; different bases never overlap) may address a
/// common element. Exact for views whose dimensions nest (each stride a multiple of the next smaller
/// stride's extent, in some order: row-major, column-major, transposed, sliced, interleaved by a step);
/// conservative (true) otherwise.
[[nodiscard]] bool views_overlap(const TensorView& a, const TensorView& b);

/// view_covers: true only if every element of `inner` is also an element of `outer` (same base). Exact for
/// nesting views; false when unsure, which only keeps more tensormap entries alive.
[[nodiscard]] bool view_covers(const TensorView& outer, const TensorView& inner);

}  // namespace pto
