// docs/design/tensormap.md (overlap exact for strided views, conservative only where documented) — white-box
// tests of make_view_shape, shapes_overlap and shape_covers (tensormap/src) against brute-force element sets
// of small random views: a Yes or No must be true, Maybe must be absent wherever the design promises
// exactness.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "pto/tensormap/overlap.h"
#include "shape_overlap.h"
#include "tensormap/views.h"
#include "view_shape.h"

using namespace pto;
using pto::detail::Answer;
using pto::detail::ViewShape;

namespace {

std::vector<std::int64_t> shape_elements(const ViewShape& s) {
    std::vector<std::int64_t> out;
    if (s.is_empty) return out;
    std::int64_t index[kMaxTensorDims] = {};
    for (;;) {
        std::int64_t at = s.first;
        for (int d = 0; d < s.rank; ++d)
            at += index[d] * s.stride[d];
        out.push_back(at);
        int d = 0;
        for (; d < s.rank && ++index[d] == s.count[d]; ++d)
            index[d] = 0;
        if (d == s.rank) break;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

/// The design's exactness promise for overlap: the distinct strides of both shapes form one chain.
bool strides_chain(const ViewShape& a, const ViewShape& b) {
    std::vector<std::int64_t> s(a.stride, a.stride + a.rank);
    s.insert(s.end(), b.stride, b.stride + b.rank);
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
    for (std::size_t i = 1; i < s.size(); ++i)
        if (s[i] % s[i - 1] != 0) return false;
    return true;
}

int pick(std::mt19937_64& rng, int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
}

/// Arbitrary small views: any rank, sizes 0..4, strides -3..12 (zero and negative included).
TensorView wild_view(std::mt19937_64& rng) {
    TensorView v = test::range(test::buffer(1), 0, 1);
    v.ndim = std::uint8_t(pick(rng, 0, 9) < 7 ? pick(rng, 1, 3) : pick(rng, 0, 5));
    v.offset = pick(rng, 0, 40);
    for (int d = 0; d < v.ndim; ++d) {
        v.shape[d] = std::uint32_t(pick(rng, 0, 30) == 0 ? 0 : pick(rng, 1, v.ndim > 3 ? 3 : 4));
        v.strides[d] = pick(rng, 0, 9) == 0 ? pick(rng, -3, 0) : pick(rng, 1, 12);
    }
    return v;
}

/// Views as programs make them: stepped sub-blocks of a row-major tensor of up to 3 dims, maybe transposed.
TensorView tensor_view(std::mt19937_64& rng, const std::uint32_t (&dims)[3], int rank) {
    TensorView v = TensorView::contiguous(test::buffer(1), DataType::F32,
                                          std::span<const std::uint32_t>(dims, std::size_t(rank)));
    for (int d = 0; d < rank; ++d) {
        const std::uint32_t step = std::uint32_t(pick(rng, 0, 3) == 0 ? pick(rng, 2, 3) : 1);
        const std::uint32_t start = std::uint32_t(pick(rng, 0, int(dims[d]) - 1));
        const std::uint32_t most = (dims[d] - start + step - 1) / step;
        v.offset += std::int64_t{start} * v.strides[d];
        v.shape[d] = std::uint32_t(pick(rng, 1, int(most)));
        v.strides[d] *= step;
    }
    if (rank > 1 && pick(rng, 0, 2) == 0) v = v.transpose(0, rank - 1);
    return v;
}

struct Tally {
    int pairs = 0;
    int overlap_maybe = 0;
    int covers_maybe = 0;
    int window_disjoint = 0;
};

void check_pair(const TensorView& a, const TensorView& b, Tally& tally) {
    INFO("a: " << test::describe(a));
    INFO("b: " << test::describe(b));
    const ViewShape sa = detail::make_view_shape(a);
    const ViewShape sb = detail::make_view_shape(b);
    const std::vector<std::int64_t> ea = test::elements(a);
    const std::vector<std::int64_t> eb = test::elements(b);
    REQUIRE(shape_elements(sa) == ea);
    REQUIRE(sa.is_empty == ea.empty());
    if (!ea.empty()) {
        REQUIRE(sa.first == ea.front());
        REQUIRE(sa.last == ea.back());
    }

    const bool meets = test::sets_intersect(ea, eb);
    if (detail::windows_disjoint(detail::row_window(sa), detail::row_window(sb))) {
        CHECK_FALSE(meets);
        ++tally.window_disjoint;
    }
    for (std::int64_t budget : {detail::kOverlapEnumerationBudget, std::int64_t{0}}) {
        INFO("budget " << budget);
        const Answer overlap = detail::shapes_overlap(sa, sb, budget);
        if (overlap == Answer::Yes) CHECK(meets);
        if (overlap == Answer::No) CHECK_FALSE(meets);
        if (strides_chain(sa, sb)) CHECK(overlap != Answer::Maybe);
        if (budget > 0) tally.overlap_maybe += overlap == Answer::Maybe;

        const bool includes = test::set_includes(ea, eb);
        const Answer covers = detail::shape_covers(sa, sb, budget);
        if (covers == Answer::Yes) CHECK(includes);
        if (covers == Answer::No) CHECK_FALSE(includes);
        if (sa.is_chain && strides_chain(sa, sb)) CHECK(covers != Answer::Maybe);
        if (budget > 0) tally.covers_maybe += covers == Answer::Maybe;
    }
    CHECK(views_overlap(a, b) == (detail::shapes_overlap(sa, sb) != Answer::No));
    CHECK(view_covers(a, b) == (detail::shape_covers(sa, sb) == Answer::Yes));
    ++tally.pairs;
}

}  // namespace

TEST_CASE("normalising a view keeps its elements and merges dimensions that form one progression",
          "[tensormap][overlap]") {
    void* m = test::buffer(1);
    const ViewShape rows = detail::make_view_shape(test::tile(m, 64, 2, 4, 0, 64));
    CHECK(rows.rank == 1);
    CHECK(rows.stride[0] == 1);
    CHECK(rows.count[0] == 256);
    CHECK(rows.first == 128);
    const ViewShape t = detail::make_view_shape(test::tile(m, 64, 2, 4, 8, 16).transpose(0, 1));
    CHECK(t.rank == 2);
    CHECK(t.stride[0] == 1);
    CHECK(t.stride[1] == 64);
    CHECK(t.is_chain);
    const ViewShape overlapping = detail::make_view_shape(test::strided(m, 0, {{5, 2}, {3, 4}}));
    CHECK(overlapping.rank == 1);  // {0, 2, ..., 8} + {0, 4, 8}: the evens 0..16
    CHECK(overlapping.count[0] == 9);
    CHECK_FALSE(detail::make_view_shape(test::strided(m, 0, {{4, 2}, {4, 3}})).is_chain);
}

TEST_CASE("contiguous views of any rank normalise to one range with exactly their elements",
          "[tensormap][overlap][normal-form]") {
    // Row-major contiguous views (size-1 dimensions with any stride included) take a shortcut past the
    // sort and merge: the result must be what those would give, one stride-1 dimension or one element.
    std::mt19937_64 rng(21);
    for (int n = 0; n < 5000; ++n) {
        TensorView v = test::range(test::buffer(1), 0, 1);
        v.ndim = std::uint8_t(pick(rng, 0, 5));
        v.offset = pick(rng, -50, 50);
        std::int64_t inner = 1;
        for (int d = v.ndim - 1; d >= 0; --d) {
            v.shape[d] = std::uint32_t(pick(rng, 1, 4));
            v.strides[d] = v.shape[d] == 1 && pick(rng, 0, 1) == 0 ? pick(rng, -9, 9) : inner;
            inner *= v.shape[d];
        }
        INFO(test::describe(v));
        const ViewShape s = detail::make_view_shape(v);
        REQUIRE(shape_elements(s) == test::elements(v));
        CHECK(detail::is_dense(s));
        CHECK(s.rank == (inner == 1 ? 0 : 1));
        // The general path, which the tensormap takes for every view the shortcut declines, agrees.
        ViewShape general{};
        detail::build_general_shape(v, general);
        CHECK(detail::same_layout(general, s));
        CHECK(general.last == s.last);
    }
}

TEST_CASE("ranges and views of rows normalise through the shortcut exactly as through the general path",
          "[tensormap][overlap][normal-form]") {
    // Random views with outer dimensions over a contiguous run (one, or several continuing each other's
    // rows), contiguous views, and near misses (a stride that overlaps the run, a third dimension, a
    // negative stride, an empty dimension):
    // build_simple either declines or builds what the general path builds, with the same row window.
    std::mt19937_64 rng(23);
    int ranges = 0;
    int rows_taken = 0;
    int continued_rows = 0;
    for (int n = 0; n < 20000; ++n) {
        TensorView v = test::range(test::buffer(1), 0, 1);
        v.ndim = std::uint8_t(pick(rng, 0, 5));
        v.offset = pick(rng, -200, 200);
        std::int64_t inner = 1;
        for (int d = v.ndim - 1; d >= 0; --d) {
            v.shape[d] = std::uint32_t(pick(rng, 0, 9) == 0 ? pick(rng, 0, 1) : pick(rng, 1, 5));
            const auto kind = pick(rng, 0, 9);
            // kind 7: continue the next inner dimension's progression (pages of rows of a paged cache).
            const std::int64_t continued =
                d + 1 < v.ndim ? v.strides[d + 1] * std::max<std::int64_t>(1, v.shape[d + 1]) : inner;
            v.strides[d] = kind < 5   ? inner
                           : kind < 7 ? inner + pick(rng, -3, 12)
                           : kind < 8 ? continued
                                      : pick(rng, -20, 40);
            inner *= std::max<std::int64_t>(1, v.shape[d]);
        }
        INFO(test::describe(v));
        ViewShape simple{};
        detail::RowWindow window{};
        ViewShape general{};
        detail::build_general_shape(v, general);
        const detail::SimpleForm form = detail::build_simple(v, simple, window);
        if (form == detail::SimpleForm::None) continue;
        (form == detail::SimpleForm::Range ? ranges : rows_taken) += 1;
        int outer = 0;  // dimensions of size > 1 outside the contiguous run
        for (int d = 0; d < v.ndim; ++d)
            outer += v.shape[d] > 1 && v.strides[d] > simple.count[0] ? 1 : 0;
        if (form == detail::SimpleForm::Rows && outer > 1) ++continued_rows;
        REQUIRE(shape_elements(simple) == test::elements(v));
        CHECK(detail::same_layout(general, simple));
        CHECK(general.last == simple.last);
        CHECK(general.is_chain == simple.is_chain);
        CHECK(detail::is_dense(simple) == (form == detail::SimpleForm::Range));
        const detail::RowWindow expected = detail::row_window(general);
        CHECK(window.pitch == expected.pitch);
        CHECK(window.phase == expected.phase);
        CHECK(window.width == expected.width);
        ViewShape via_entry_point{};
        detail::build_view_shape(v, via_entry_point);
        CHECK(detail::same_layout(via_entry_point, simple));
    }
    CHECK(ranges > 1000);
    CHECK(rows_taken > 1000);
    CHECK(continued_rows > 50);
}

TEST_CASE("a row window proves tiles side by side disjoint and nothing else", "[tensormap][overlap]") {
    void* m = test::buffer(1);
    const auto window = [m](std::uint32_t row, std::uint32_t rows, std::uint32_t col, std::uint32_t cols) {
        return detail::row_window(detail::make_view_shape(test::tile(m, 64, row, rows, col, cols)));
    };
    CHECK(window(0, 4, 0, 16).pitch == 64);
    CHECK(window(0, 4, 0, 16).width == 15);
    CHECK(window(3, 4, 20, 16).phase == 20);
    CHECK(detail::windows_disjoint(window(0, 4, 0, 16), window(0, 4, 16, 16)));
    CHECK(detail::windows_disjoint(window(0, 4, 48, 16), window(7, 4, 0, 16)));
    CHECK_FALSE(detail::windows_disjoint(window(0, 4, 0, 17), window(9, 4, 16, 16)));
    CHECK_FALSE(detail::windows_disjoint(window(0, 4, 0, 64), window(0, 4, 0, 16)));  // whole rows: no window
    CHECK_FALSE(detail::windows_disjoint(window(0, 4, 0, 16), detail::RowWindow{0, 0, 0}));
}

TEST_CASE("random small views: every exact overlap and coverage answer matches the brute-force element sets",
          "[tensormap][overlap][random]") {
    const std::uint64_t seed = GENERATE(11u, 12u, 13u, 14u);
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    Tally tally;
    for (int i = 0; i < 6000; ++i) {
        const TensorView a = wild_view(rng);
        TensorView b = wild_view(rng);
        if (pick(rng, 0, 3) == 0) b.offset = a.offset + pick(rng, -3, 3);
        check_pair(a, b, tally);
        check_pair(b, a, tally);
    }
    WARN("pairs " << tally.pairs << ", overlap Maybe " << tally.overlap_maybe << ", covers Maybe "
                  << tally.covers_maybe << ", disjoint by row window " << tally.window_disjoint);
}

TEST_CASE("random sub-blocks of one tensor: overlap and coverage are exact and match brute force",
          "[tensormap][overlap][random]") {
    const std::uint64_t seed = GENERATE(21u, 22u, 23u, 24u);
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    Tally tally;
    for (int i = 0; i < 3000; ++i) {
        const int rank = pick(rng, 1, 3);
        const std::uint32_t dims[3] = {std::uint32_t(pick(rng, 1, 9)), std::uint32_t(pick(rng, 1, 9)),
                                       std::uint32_t(pick(rng, 1, 9))};
        const TensorView a = tensor_view(rng, dims, rank);
        const TensorView b = tensor_view(rng, dims, rank);
        check_pair(a, b, tally);
        check_pair(b, a, tally);
    }
    WARN("pairs " << tally.pairs << ", overlap Maybe " << tally.overlap_maybe << ", covers Maybe "
                  << tally.covers_maybe << ", disjoint by row window " << tally.window_disjoint);
}

TEST_CASE("random tiles of one matrix: overlap is exact and the row window never hides an overlap",
          "[tensormap][overlap][random]") {
    const std::uint64_t seed = GENERATE(41u, 42u);
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    Tally tally;
    for (int i = 0; i < 4000; ++i) {
        const std::uint32_t width = std::uint32_t(pick(rng, 4, 24));
        auto random_tile = [&] {
            const std::uint32_t row = std::uint32_t(pick(rng, 0, 5));
            const std::uint32_t col = std::uint32_t(pick(rng, 0, int(width) - 1));
            const std::uint32_t step = std::uint32_t(pick(rng, 0, 3) == 0 ? 2 : 1);
            const std::uint32_t cols = std::uint32_t(pick(rng, 1, int((width - col + step - 1) / step)));
            TensorView t = test::strided(test::buffer(1), std::int64_t{row} * width + col,
                                         {{std::uint32_t(pick(rng, 1, 4)), width}, {cols, step}});
            return pick(rng, 0, 3) == 0 ? t.transpose(0, 1) : t;
        };
        check_pair(random_tile(), random_tile(), tally);
    }
    WARN("pairs " << tally.pairs << ", overlap Maybe " << tally.overlap_maybe << ", covers Maybe "
                  << tally.covers_maybe << ", disjoint by row window " << tally.window_disjoint);
    CHECK(tally.overlap_maybe == 0);
    CHECK(tally.window_disjoint > 100);
}
