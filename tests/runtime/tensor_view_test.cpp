// docs/design/tensormap.md, conformance: TensorView operations are zero-copy metadata and reject malformed
// requests.
#include <catch2/catch.hpp>

#include <vector>

#include "pto/runtime/error.h"
#include "pto/runtime/tensor.h"

using pto::DataType;
using pto::TensorView;

TEST_CASE("a contiguous view is row-major and slices move the offset only", "[runtime][tensor]") {
    std::vector<float> buffer(6 * 8);
    const TensorView v = TensorView::contiguous(buffer.data(), DataType::F32, {6, 8});
    CHECK(v.ndim == 2);
    CHECK(v.strides[0] == 8);
    CHECK(v.strides[1] == 1);
    CHECK(v.element_count() == 48);
    CHECK(v.is_contiguous());
    const TensorView rows = v.slice(0, 2, 3);
    CHECK(rows.offset == 16);
    CHECK(rows.shape[0] == 3);
    CHECK(rows.is_contiguous());
    const TensorView cols = v.slice(1, 4, 2);
    CHECK(cols.offset == 4);
    CHECK_FALSE(cols.is_contiguous());
    CHECK(cols.data<float>() == buffer.data() + 4);
    const std::uint32_t index[] = {1, 1};
    CHECK(cols.element_offset(index) == 4 + 8 + 1);
}

TEST_CASE("transpose swaps strides and reshape needs a contiguous view", "[runtime][tensor]") {
    std::vector<float> buffer(12);
    const TensorView v = TensorView::contiguous(buffer.data(), DataType::F32, {3, 4});
    const TensorView t = v.transpose(0, 1);
    CHECK(t.shape[0] == 4);
    CHECK(t.strides[0] == 1);
    CHECK(t.strides[1] == 4);
    CHECK_FALSE(t.is_contiguous());
    CHECK_THROWS_AS(t.reshape({12}), pto::Error);
    const TensorView flat = v.reshape({2, 6});
    CHECK(flat.strides[0] == 6);
    CHECK_FALSE(v.untracked().is_tracked);
}

TEST_CASE("out-of-range slices and ranks throw InvalidTensor", "[runtime][tensor]") {
    std::vector<float> buffer(12);
    const TensorView v = TensorView::contiguous(buffer.data(), DataType::F32, {3, 4});
    try {
        (void)v.slice(1, 3, 2);
        FAIL("expected an error");
    } catch (const pto::Error& e) {
        CHECK(e.code() == pto::ErrorCode::InvalidTensor);
        CHECK_THAT(e.what(), Catch::Contains("leaves dimension 1"));
    }
    CHECK_THROWS_AS(TensorView::contiguous(buffer.data(), DataType::F32, {1, 1, 1, 1, 1, 1}), pto::Error);
}
