// Overlap and coverage of two ViewShapes with a three-valued answer, so callers (and the white-box tests)
// can tell an exact "yes"/"no" from a conservative "maybe". overlap.cpp and the TensorMap build on these.
#pragma once

#include <cstdint>

#include "view_shape.h"

namespace pto::detail {

/// Answer: Yes and No are proven; Maybe means the test gave up within its budget.
enum class Answer : std::uint8_t { No, Yes, Maybe };

/// When the strides of two views do not form one divisibility chain, the strides that break it are
/// enumerated; this bounds the number of combinations tried before answering Maybe. Each combination costs
/// one chain test (a few divisions), so the worst case stays well under a microsecond.
inline constexpr std::int64_t kOverlapEnumerationBudget = 64;

/// shapes_overlap: whether the two element sets intersect.
/// Exact (Yes/No) when the distinct strides of both shapes together form a divisibility chain, or when the
/// strides outside such a chain span at most `budget` index combinations, or when the bounding ranges are
/// disjoint, or when the offset difference is not a multiple of the gcd of all strides. Maybe otherwise,
/// and whenever a shape is opaque.
[[nodiscard]] Answer shapes_overlap(const ViewShape& a, const ViewShape& b,
                                    std::int64_t budget = kOverlapEnumerationBudget);

/// shape_covers: whether every element of `inner` is an element of `outer`.
/// Exact when the shapes are identical, when `inner` is one element (a membership test, exact as
/// shapes_overlap), or when `outer` is a chain shape and each "hole" test below is exact; No when a bound
/// or residue rules coverage out; Maybe otherwise (including any opaque shape).
/// Method: inside outer's bounding range and residue class, the elements missing from a chain shape are
/// those whose digit i (in the mixed radix of outer's strides) is >= count[i]; those holes are themselves
/// chain shapes, and inner is covered exactly when it meets none of them.
[[nodiscard]] Answer shape_covers(const ViewShape& outer, const ViewShape& inner,
                                  std::int64_t budget = kOverlapEnumerationBudget);

}  // namespace pto::detail
