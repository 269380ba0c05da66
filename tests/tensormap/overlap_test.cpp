// docs/design/tensormap.md "overlap is exact for strided views, conservative only where exactness is
// impossible" — conformance tests of views_overlap and view_covers through the public header, one geometry
// per case.
#include <catch2/catch.hpp>

#include <cstdint>

#include "pto/runtime/error.h"
#include "pto/tensormap/overlap.h"
#include "tensormap/views.h"

using namespace pto;
using pto::test::buffer;
using pto::test::range;
using pto::test::strided;
using pto::test::tile;

TEST_CASE("1-D ranges overlap exactly when they share an element", "[tensormap][overlap]") {
    void* a = buffer(1);
    CHECK(views_overlap(range(a, 0, 10), range(a, 5, 15)));
    CHECK(views_overlap(range(a, 0, 10), range(a, 9, 10)));
    CHECK(views_overlap(range(a, 0, 10), range(a, 3, 4)));
    CHECK_FALSE(views_overlap(range(a, 0, 10), range(a, 10, 20)));
    CHECK_FALSE(views_overlap(range(a, 10, 20), range(a, 0, 10)));
    CHECK_FALSE(views_overlap(range(a, 0, 10), range(a, 30, 40)));
}

TEST_CASE("views of different buffers never overlap or cover", "[tensormap][overlap]") {
    CHECK_FALSE(views_overlap(range(buffer(1), 0, 10), range(buffer(2), 0, 10)));
    CHECK_FALSE(view_covers(range(buffer(1), 0, 10), range(buffer(2), 0, 10)));
}

TEST_CASE("an empty view overlaps nothing and is covered by anything", "[tensormap][overlap]") {
    void* a = buffer(1);
    const TensorView empty = strided(a, 0, {{0, 1}, {4, 8}});
    CHECK_FALSE(views_overlap(empty, range(a, 0, 100)));
    CHECK_FALSE(views_overlap(empty, empty));
    CHECK(view_covers(range(a, 0, 1), empty));
    CHECK_FALSE(view_covers(empty, range(a, 0, 1)));
}

TEST_CASE("2-D tiles overlap only where both their row and column ranges intersect", "[tensormap][overlap]") {
    void* m = buffer(1);
    const TensorView t = tile(m, 64, 0, 16, 0, 16);
    CHECK(views_overlap(t, tile(m, 64, 8, 16, 8, 16)));
    CHECK(views_overlap(t, tile(m, 64, 15, 1, 15, 1)));
    // Side by side: the linear ranges interleave row by row, the elements never meet.
    CHECK_FALSE(views_overlap(t, tile(m, 64, 0, 16, 16, 16)));
    CHECK_FALSE(views_overlap(t, tile(m, 64, 4, 4, 48, 16)));
    // Touching edges below and diagonally.
    CHECK_FALSE(views_overlap(t, tile(m, 64, 16, 16, 0, 16)));
    CHECK_FALSE(views_overlap(t, tile(m, 64, 16, 16, 16, 16)));
}

TEST_CASE("3-D blocks overlap only where all three index ranges intersect", "[tensormap][overlap]") {
    void* m = buffer(1);
    // A [8, 16, 32] row-major tensor: block = [d0, d0+n0) x [d1, d1+n1) x [d2, d2+n2).
    auto block = [m](std::uint32_t d0, std::uint32_t n0, std::uint32_t d1, std::uint32_t n1, std::uint32_t d2,
                     std::uint32_t n2) {
        return strided(m, std::int64_t{d0} * 512 + d1 * 32 + d2, {{n0, 512}, {n1, 32}, {n2, 1}});
    };
    CHECK(views_overlap(block(0, 4, 0, 8, 0, 16), block(3, 4, 7, 8, 15, 16)));
    CHECK_FALSE(views_overlap(block(0, 4, 0, 8, 0, 16), block(0, 4, 0, 8, 16, 16)));
    CHECK_FALSE(views_overlap(block(0, 4, 0, 8, 0, 16), block(0, 4, 8, 8, 0, 16)));
    CHECK_FALSE(views_overlap(block(0, 4, 0, 8, 0, 16), block(4, 4, 0, 8, 0, 16)));
    CHECK(view_covers(block(0, 8, 0, 16, 0, 32), block(2, 3, 5, 4, 7, 9)));
    CHECK_FALSE(view_covers(block(0, 4, 0, 8, 0, 16), block(2, 3, 5, 4, 7, 10)));
}

TEST_CASE("a transposed view addresses the same elements as the original", "[tensormap][overlap]") {
    void* m = buffer(1);
    const TensorView a = TensorView::contiguous(m, DataType::F32, {8, 16});
    const TensorView columns_4_5 = a.transpose(0, 1).slice(0, 4, 2);  // [2, 8]: columns 4 and 5 of a
    CHECK(views_overlap(columns_4_5, a.slice(1, 5, 1)));
    CHECK_FALSE(views_overlap(columns_4_5, a.slice(1, 6, 1)));
    CHECK_FALSE(views_overlap(columns_4_5, a.slice(1, 0, 4)));
    CHECK(view_covers(a, columns_4_5));
    CHECK(view_covers(columns_4_5, a.slice(1, 4, 2)));
    CHECK(view_covers(a.slice(1, 4, 2), columns_4_5));
    CHECK_FALSE(view_covers(columns_4_5, a.slice(1, 4, 3)));
}

TEST_CASE("even and odd columns of one matrix are disjoint although they interleave",
          "[tensormap][overlap]") {
    void* m = buffer(1);
    const TensorView even = strided(m, 0, {{16, 64}, {32, 2}});
    const TensorView odd = strided(m, 1, {{16, 64}, {32, 2}});
    CHECK_FALSE(views_overlap(even, odd));
    CHECK(views_overlap(even, tile(m, 64, 3, 1, 10, 1)));
    CHECK_FALSE(views_overlap(odd, tile(m, 64, 3, 1, 10, 1)));
    CHECK(views_overlap(odd, tile(m, 64, 3, 1, 10, 2)));
    CHECK(view_covers(tile(m, 64, 0, 16, 0, 64), even));
    CHECK_FALSE(view_covers(even, tile(m, 64, 0, 1, 0, 2)));
    // Every fourth column against every sixth: columns 0, 12, 24, ... meet; shifted by one they never do.
    CHECK(views_overlap(strided(m, 0, {{16, 64}, {16, 4}}), strided(m, 0, {{16, 64}, {11, 6}})));
    CHECK_FALSE(views_overlap(strided(m, 0, {{16, 64}, {16, 4}}), strided(m, 1, {{16, 64}, {10, 6}})));
}

TEST_CASE("a partial overlap is an overlap but not a cover", "[tensormap][overlap]") {
    void* a = buffer(1);
    CHECK(views_overlap(range(a, 0, 10), range(a, 5, 15)));
    CHECK_FALSE(view_covers(range(a, 0, 10), range(a, 5, 15)));
    CHECK_FALSE(view_covers(range(a, 5, 15), range(a, 0, 10)));
    CHECK_FALSE(view_covers(tile(buffer(1), 64, 0, 16, 0, 16), tile(buffer(1), 64, 8, 16, 8, 16)));
}

TEST_CASE("a view covers its sub-views and not what reaches outside it", "[tensormap][overlap]") {
    void* m = buffer(1);
    const TensorView rows = tile(m, 64, 0, 16, 0, 64);
    CHECK(view_covers(rows, tile(m, 64, 4, 4, 3, 6)));
    CHECK(view_covers(rows, range(m, 100, 900)));
    CHECK_FALSE(view_covers(rows, range(m, 1000, 1100)));
    const TensorView t = tile(m, 64, 0, 16, 0, 16);
    CHECK(view_covers(t, tile(m, 64, 2, 3, 3, 4)));
    CHECK(view_covers(t, t));
    CHECK_FALSE(view_covers(t, tile(m, 64, 2, 3, 10, 10)));
    CHECK_FALSE(view_covers(t, range(m, 0, 70)));  // inside t's linear range, but crosses its row gap
    CHECK(view_covers(t, strided(m, 0, {{4, 2}})));
    CHECK(view_covers(t, strided(m, 64 * 3 + 5, {{4, 128}, {3, 3}})));
    CHECK_FALSE(view_covers(t, strided(m, 64 * 3 + 5, {{4, 128}, {5, 3}})));  // column 17
}

TEST_CASE("zero strides and size-1 dimensions add no elements", "[tensormap][overlap]") {
    void* m = buffer(1);
    const TensorView broadcast = strided(m, 0, {{4, 0}, {8, 1}, {1, 1000}});
    CHECK(view_covers(broadcast, range(m, 0, 8)));
    CHECK(view_covers(range(m, 0, 8), broadcast));
    CHECK_FALSE(views_overlap(broadcast, range(m, 8, 9)));
}

TEST_CASE("a negative stride addresses the mirror of its positive view", "[tensormap][overlap]") {
    void* m = buffer(1);
    const TensorView reversed = strided(m, 9, {{10, -1}});
    CHECK(view_covers(reversed, range(m, 0, 10)));
    CHECK(view_covers(range(m, 0, 10), reversed));
    CHECK_FALSE(views_overlap(reversed, range(m, 10, 11)));
}

TEST_CASE("strides outside one divisibility chain are still exact for small views", "[tensormap][overlap]") {
    void* m = buffer(1);
    // {0, 3, 6, 9} and {1, 6}: they meet at 6.
    CHECK(views_overlap(strided(m, 0, {{4, 3}}), strided(m, 1, {{2, 5}})));
    // {0, 3} and {1, 6}: ranges intersect, elements do not.
    CHECK_FALSE(views_overlap(strided(m, 0, {{2, 3}}), strided(m, 1, {{2, 5}})));
    CHECK(view_covers(strided(m, 0, {{4, 3}}), strided(m, 3, {{2, 6}})));
}

TEST_CASE("documented conservative cases report overlap and deny coverage", "[tensormap][overlap]") {
    void* m = buffer(1);
    // Columns 0..9 and every third column from 500 to 797 of 50 rows of width 1000 are disjoint, but the
    // strides 1, 3 and 1000 do not nest, and either way of splitting them (100 column or 99 row
    // differences) exceeds the enumeration budget.
    const TensorView left = strided(m, 0, {{50, 1000}, {10, 1}});
    const TensorView sparse = strided(m, 500, {{50, 1000}, {100, 3}});
    CHECK(views_overlap(left, sparse));
    CHECK_FALSE(view_covers(left, sparse));
    // Views reaching beyond 2^56 elements are opaque.
    const std::int64_t far = std::int64_t{1} << 60;
    CHECK(views_overlap(range(m, far, far + 10), range(m, far + 20, far + 30)));
    CHECK_FALSE(view_covers(range(m, far, far + 10), range(m, far, far + 10)));
}

TEST_CASE("a view of more than five dimensions is rejected as an invalid tensor", "[tensormap][overlap]") {
    TensorView v = range(buffer(1), 0, 10);
    v.ndim = kMaxTensorDims + 1;
    try {
        (void)views_overlap(v, v);
        FAIL("views_overlap accepted a rank-6 view");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::InvalidTensor);
        CHECK_THAT(std::string(e.message()), Catch::Contains("dimensions"));
    }
}
