// The public overlap tests: views of different buffers never alias; otherwise the shape tests decide, and a
// conservative "maybe" counts as overlapping but never as covering.
#include "pto/tensormap/overlap.h"

#include "shape_overlap.h"
#include "view_shape.h"

namespace pto {

bool views_overlap(const TensorView& a, const TensorView& b) {
    if (a.base != b.base) return false;
    return detail::shapes_overlap(detail::make_view_shape(a), detail::make_view_shape(b)) !=
           detail::Answer::No;
}

bool view_covers(const TensorView& outer, const TensorView& inner) {
    if (outer.base != inner.base) return false;
    return detail::shape_covers(detail::make_view_shape(outer), detail::make_view_shape(inner)) ==
           detail::Answer::Yes;
}

}  // namespace pto
