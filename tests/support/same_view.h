// same_view / same_argument: field-by-field equality of views and tensor arguments, over the dimensions a
// view uses (the arrays past ndim hold nothing meaningful), for tests that check what a kernel was handed.
#pragma once

#include "pto/runtime/tensor.h"

namespace pto::test {

inline bool same_view(const TensorView& a, const TensorView& b) {
    if (a.base != b.base || a.offset != b.offset || a.ndim != b.ndim || a.dtype != b.dtype ||
        a.is_tracked != b.is_tracked || a.creator != b.creator)
        return false;
    for (int d = 0; d < a.ndim && d < kMaxTensorDims; ++d)
        if (a.shape[d] != b.shape[d] || a.strides[d] != b.strides[d]) return false;
    return true;
}

inline bool same_argument(const TensorArg& a, const TensorArg& b) {
    return a.direction == b.direction && same_view(a.view, b.view);
}

}  // namespace pto::test
