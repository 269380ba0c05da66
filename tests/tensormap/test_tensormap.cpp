// SPEC §4 (sequential consistency: RAW, WAW, WAR; untracked views; lazy invalidation; bounded pool) and
// §10 (capacity errors name the knob) — conformance tests of TensorMap through its public header.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "pto/runtime/error.h"
#include "pto/tensormap/tensormap.h"
#include "tensormap/views.h"

using namespace pto;
using pto::test::buffer;
using pto::test::range;
using pto::test::strided;
using pto::test::tile;

namespace {

using Ids = std::vector<std::uint64_t>;

/// producers: the distinct task ids find_producers reports, sorted.
Ids producers(TensorMap& map, const TensorView& view, Direction direction, std::uint64_t retired_before = 0) {
    std::vector<TaskId> out;
    map.find_producers(view, direction, TaskId{retired_before}, out);
    Ids ids;
    for (TaskId id : out)
        ids.push_back(id.value);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    return ids;
}

void record(TensorMap& map, const TensorView& view, Direction direction, std::uint64_t task,
            std::uint64_t retired_before = 0) {
    REQUIRE(map.try_record(view, direction, TaskId{task}, TaskId{retired_before}));
}

}  // namespace

TEST_CASE("a read depends on the earlier writer of the same view (RAW)", "[tensormap][hazard]") {
    TensorMap map(64);
    void* a = buffer(1);
    record(map, range(a, 0, 100), Direction::Out, 1);
    CHECK(producers(map, range(a, 0, 100), Direction::In) == Ids{1});
    CHECK(producers(map, range(a, 50, 60), Direction::In) == Ids{1});
    CHECK(producers(map, range(a, 100, 200), Direction::In).empty());
}

TEST_CASE("reads after reads produce no dependencies", "[tensormap][hazard]") {
    TensorMap map(64);
    void* a = buffer(1);
    record(map, range(a, 0, 100), Direction::In, 1);
    record(map, range(a, 0, 100), Direction::In, 2);
    CHECK(producers(map, range(a, 0, 100), Direction::In).empty());
}

TEST_CASE("a write depends on the earlier writer (WAW) and on the readers since (WAR)",
          "[tensormap][hazard]") {
    TensorMap map(64);
    void* a = buffer(1);
    record(map, range(a, 0, 100), Direction::Out, 1);
    CHECK(producers(map, range(a, 0, 100), Direction::Out) == Ids{1});
    record(map, range(a, 0, 50), Direction::In, 2);
    record(map, range(a, 50, 100), Direction::In, 3);
    CHECK(producers(map, range(a, 0, 100), Direction::Out) == (Ids{1, 2, 3}));
    CHECK(producers(map, range(a, 0, 10), Direction::Out) == (Ids{1, 2}));
    CHECK(producers(map, range(a, 0, 10), Direction::In) == Ids{1});
}

TEST_CASE("an inout access depends on writers and readers alike", "[tensormap][hazard]") {
    TensorMap map(64);
    void* a = buffer(1);
    record(map, range(a, 0, 10), Direction::Out, 1);
    record(map, range(a, 0, 10), Direction::In, 2);
    CHECK(producers(map, range(a, 0, 10), Direction::InOut) == (Ids{1, 2}));
    record(map, range(a, 0, 10), Direction::InOut, 3);
    CHECK(producers(map, range(a, 0, 10), Direction::In) == Ids{3});
    CHECK(producers(map, range(a, 0, 10), Direction::InOut) == Ids{3});
}

TEST_CASE("a write that covers older entries supersedes them, so later readers see only it",
          "[tensormap][hazard]") {
    TensorMap map(64);
    void* a = buffer(1);
    record(map, range(a, 0, 10), Direction::Out, 1);
    record(map, range(a, 10, 20), Direction::Out, 2);
    CHECK(producers(map, range(a, 0, 20), Direction::In) == (Ids{1, 2}));
    record(map, range(a, 0, 20), Direction::In, 3);
    CHECK(producers(map, range(a, 0, 20), Direction::Out) == (Ids{1, 2, 3}));
    record(map, range(a, 0, 20), Direction::Out, 4);
    CHECK(map.live_entries() == 1);
    CHECK(producers(map, range(a, 5, 15), Direction::In) == Ids{4});
    CHECK(producers(map, range(a, 5, 15), Direction::Out) == Ids{4});
}

TEST_CASE("a partial overwrite keeps both writers", "[tensormap][hazard]") {
    TensorMap map(64);
    void* a = buffer(1);
    record(map, range(a, 0, 20), Direction::Out, 1);
    record(map, range(a, 0, 10), Direction::Out, 2);
    CHECK(map.live_entries() == 2);
    CHECK(producers(map, range(a, 0, 20), Direction::In) == (Ids{1, 2}));
    CHECK(producers(map, range(a, 10, 20), Direction::In) == Ids{1});
    // Conservative: the older writer's entry still overlaps the rewritten half (the newer writer depends
    // on it, so the extra edge is implied anyway).
    CHECK(producers(map, range(a, 0, 10), Direction::In) == (Ids{1, 2}));
}

TEST_CASE("tiles of one matrix depend only on the tiles they overlap", "[tensormap][hazard]") {
    TensorMap map(256);
    void* m = buffer(1);
    std::uint64_t task = 0;
    for (std::uint32_t r = 0; r < 4; ++r)
        for (std::uint32_t c = 0; c < 4; ++c)
            record(map, tile(m, 64, r * 16, 16, c * 16, 16), Direction::Out, task++);
    CHECK(producers(map, tile(m, 64, 16, 16, 32, 16), Direction::In) == Ids{6});
    CHECK(producers(map, tile(m, 64, 8, 16, 8, 16), Direction::In) == (Ids{0, 1, 4, 5}));
    CHECK(producers(map, tile(m, 64, 0, 64, 63, 1), Direction::In) == (Ids{3, 7, 11, 15}));
    // A whole-matrix write covers every tile and leaves one entry.
    record(map, tile(m, 64, 0, 64, 0, 64), Direction::Out, task++);
    CHECK(map.live_entries() == 1);
    CHECK(producers(map, tile(m, 64, 16, 16, 32, 16), Direction::In) == Ids{16});
}

TEST_CASE("interleaved column views find only their own writers", "[tensormap][hazard]") {
    TensorMap map(64);
    void* m = buffer(1);
    const TensorView even = strided(m, 0, {{16, 64}, {32, 2}});
    const TensorView odd = strided(m, 1, {{16, 64}, {32, 2}});
    record(map, even, Direction::Out, 1);
    record(map, odd, Direction::Out, 2);
    CHECK(producers(map, even, Direction::In) == Ids{1});
    CHECK(producers(map, odd, Direction::InOut) == Ids{2});
    CHECK(producers(map, tile(m, 64, 5, 1, 6, 2), Direction::In) == (Ids{1, 2}));
}

TEST_CASE("views of different buffers never depend on each other", "[tensormap][hazard]") {
    TensorMap map(64);
    record(map, range(buffer(1), 0, 100), Direction::Out, 1);
    record(map, range(buffer(2), 0, 100), Direction::In, 2);
    CHECK(producers(map, range(buffer(2), 0, 100), Direction::Out) == Ids{2});
    CHECK(producers(map, range(buffer(3), 0, 100), Direction::InOut).empty());
}

TEST_CASE("untracked views find nothing and record nothing", "[tensormap][hazard]") {
    TensorMap map(64);
    void* a = buffer(1);
    record(map, range(a, 0, 10), Direction::Out, 1);
    CHECK(producers(map, range(a, 0, 10).untracked(), Direction::InOut).empty());
    record(map, range(a, 0, 10).untracked(), Direction::Out, 2);
    CHECK(map.live_entries() == 1);
    CHECK(producers(map, range(a, 0, 10), Direction::In) == Ids{1});
}

TEST_CASE("empty views find nothing and record nothing", "[tensormap][hazard]") {
    TensorMap map(64);
    void* a = buffer(1);
    record(map, range(a, 0, 10), Direction::Out, 1);
    const TensorView empty = strided(a, 0, {{0, 1}});
    CHECK(producers(map, empty, Direction::InOut).empty());
    record(map, empty, Direction::Out, 2);
    CHECK(map.live_entries() == 1);
}

TEST_CASE("entries of tasks below the retirement watermark are not returned and are dropped when met",
          "[tensormap][invalidation]") {
    TensorMap map(64);
    void* a = buffer(1);
    record(map, range(a, 0, 10), Direction::Out, 1);
    record(map, range(a, 0, 10), Direction::In, 2);
    record(map, range(a, 0, 10), Direction::In, 3);
    CHECK(producers(map, range(a, 0, 10), Direction::InOut, 2) == (Ids{2, 3}));
    CHECK(map.live_entries() == 2);
    CHECK(producers(map, range(a, 0, 10), Direction::InOut, 3) == Ids{3});
    CHECK(producers(map, range(a, 0, 10), Direction::InOut, 4).empty());
    CHECK(map.live_entries() == 0);
}

TEST_CASE("recording reclaims the entries of retired tasks oldest first", "[tensormap][invalidation]") {
    TensorMap map(64);
    for (std::uint64_t t = 0; t < 10; ++t)
        record(map, range(buffer(int(t)), 0, 10), Direction::Out, t);
    CHECK(map.live_entries() == 10);
    record(map, range(buffer(20), 0, 10), Direction::Out, 10, 6);
    CHECK(map.live_entries() == 5);
    CHECK(producers(map, range(buffer(5), 0, 10), Direction::In).empty());
    CHECK(producers(map, range(buffer(6), 0, 10), Direction::In) == Ids{6});
}

TEST_CASE(
    "try_record returns false when the pool is full of live entries and succeeds once the watermark "
    "advances",
    "[tensormap][capacity]") {
    TensorMap map(64);
    void* a = buffer(1);
    for (std::uint64_t t = 0; t < 64; ++t)
        record(map, range(a, std::int64_t(t) * 10, std::int64_t(t) * 10 + 10), Direction::Out, t);
    CHECK(map.live_entries() == 64);
    CHECK_FALSE(map.try_record(range(a, 1000, 1010), Direction::Out, TaskId{64}, TaskId{0}));
    CHECK_FALSE(map.try_record(range(a, 1000, 1010), Direction::In, TaskId{64}, TaskId{0}));
    CHECK(map.live_entries() == 64);
    CHECK(producers(map, range(a, 1000, 1010), Direction::InOut).empty());
    CHECK(producers(map, range(a, 0, 640), Direction::In).size() == 64);
    CHECK(map.try_record(range(a, 1000, 1010), Direction::Out, TaskId{64}, TaskId{1}));
    CHECK(map.live_entries() == 64);
    CHECK(producers(map, range(a, 0, 10), Direction::In).empty());
    CHECK(producers(map, range(a, 1000, 1010), Direction::In) == Ids{64});
}

TEST_CASE("a full pool accepts a write that supersedes one of its entries", "[tensormap][capacity]") {
    TensorMap map(64);
    void* a = buffer(1);
    for (std::uint64_t t = 0; t < 64; ++t)
        record(map, range(a, std::int64_t(t) * 10, std::int64_t(t) * 10 + 10), Direction::Out, t);
    CHECK(map.try_record(range(a, 50, 60), Direction::InOut, TaskId{64}, TaskId{0}));
    CHECK(map.live_entries() == 64);
    CHECK(producers(map, range(a, 50, 60), Direction::In) == Ids{64});
}

TEST_CASE("a full pool finds retired entries even when they were recorded out of task order",
          "[tensormap][capacity]") {
    TensorMap map(64);
    void* a = buffer(1);
    for (std::uint64_t t = 0; t < 64; ++t)
        record(map, range(a, std::int64_t(t) * 10, std::int64_t(t) * 10 + 10), Direction::Out, 63 - t);
    CHECK_FALSE(map.try_record(range(a, 1000, 1010), Direction::Out, TaskId{64}, TaskId{0}));
    CHECK(map.try_record(range(a, 1000, 1010), Direction::Out, TaskId{64}, TaskId{3}));
    CHECK(map.live_entries() == 62);
}

TEST_CASE("live_entries counts entries until reclaimed and clear forgets them all", "[tensormap][capacity]") {
    TensorMap map(128);
    CHECK(map.capacity() == 128);
    CHECK(map.live_entries() == 0);
    for (std::uint64_t t = 0; t < 100; ++t)
        record(map, range(buffer(int(t % 7)), std::int64_t(t), std::int64_t(t) + 1), Direction::In, t);
    CHECK(map.live_entries() == 100);
    map.clear();
    CHECK(map.live_entries() == 0);
    CHECK(producers(map, range(buffer(0), 0, 1000), Direction::InOut).empty());
    for (std::uint64_t t = 100; t < 228; ++t)
        record(map, range(buffer(1), std::int64_t(t), std::int64_t(t) + 1), Direction::Out, t);
    CHECK(map.live_entries() == 128);
    CHECK(producers(map, range(buffer(1), 0, 1000), Direction::In).size() == 128);
}

TEST_CASE("the entry capacity must be a power of two of at least 64, named as the config knob",
          "[tensormap][capacity]") {
    for (std::uint32_t bad : {0u, 1u, 32u, 63u, 100u, 65u, 1u << 27}) {
        INFO("capacity " << bad);
        try {
            TensorMap map(bad);
            FAIL("TensorMap accepted an invalid capacity");
        } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::InvalidConfig);
            CHECK_THAT(std::string(e.message()), Catch::Contains("RuntimeConfig::tensormap_entries"));
        }
    }
    CHECK(TensorMap(64).capacity() == 64);
    CHECK(TensorMap(1u << 12).capacity() == 1u << 12);
}

TEST_CASE("misuse is rejected with a named error and leaves the map usable", "[tensormap][errors]") {
    TensorMap map(64);
    void* a = buffer(1);
    record(map, range(a, 0, 10), Direction::Out, 1);
    try {
        (void)map.try_record(range(a, 0, 10), Direction::Out, TaskId{}, TaskId{0});
        FAIL("an invalid task id was recorded");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::InvalidArgument);
        CHECK_THAT(std::string(e.message()), Catch::Contains("TaskId"));
    }
    TensorView rank6 = range(a, 0, 10);
    rank6.ndim = kMaxTensorDims + 1;
    std::vector<TaskId> out;
    CHECK_THROWS_AS(map.find_producers(rank6, Direction::In, TaskId{0}, out), Error);
    CHECK_THROWS_AS(map.try_record(rank6, Direction::In, TaskId{2}, TaskId{0}), Error);
    CHECK(map.live_entries() == 1);
    CHECK(producers(map, range(a, 0, 10), Direction::In) == Ids{1});
}

namespace {

/// Reference model: every access ever recorded, with its element set, for per-element hazard rules.
struct Access {
    std::uint64_t task;
    bool is_write;
    int buffer;
    std::vector<std::int64_t> elements;
};

TensorView random_view(std::mt19937_64& rng, void* base) {
    // Mostly sub-blocks of an [8, 12] row-major matrix, sometimes transposed or stepped, sometimes 1-D.
    auto pick = [&rng](int lo, int hi) { return int(std::uniform_int_distribution<int>(lo, hi)(rng)); };
    if (pick(0, 4) == 0) {
        const int begin = pick(0, 95);
        return range(base, begin, begin + pick(1, 96 - begin));
    }
    const std::uint32_t r0 = std::uint32_t(pick(0, 7));
    const std::uint32_t c0 = std::uint32_t(pick(0, 11));
    const std::uint32_t rs = std::uint32_t(pick(1, 2));
    const std::uint32_t cs = std::uint32_t(pick(1, 3));
    const std::uint32_t rows = std::uint32_t(pick(1, int((8 - r0 + rs - 1) / rs)));
    const std::uint32_t cols = std::uint32_t(pick(1, int((12 - c0 + cs - 1) / cs)));
    TensorView v = strided(base, std::int64_t{r0} * 12 + c0, {{rows, 12 * std::int64_t{rs}}, {cols, cs}});
    return pick(0, 3) == 0 ? v.transpose(0, 1) : v;
}

}  // namespace

TEST_CASE("random access sequences find every per-element hazard and only overlapping tasks",
          "[tensormap][hazard][random]") {
    const std::uint64_t seed = GENERATE(1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u);
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    TensorMap map(64);  // small, so recording often has to reclaim
    std::vector<Access> history;
    std::uint64_t retired_before = 0;
    std::size_t required_total = 0;
    std::size_t found_total = 0;
    for (std::uint64_t task = 0; task < 1000; ++task) {
        const int buf = int(rng() % 2);
        const TensorView view = random_view(rng, buffer(buf));
        const auto direction = Direction(rng() % 3);
        // The watermark only rises: entries dropped below it never come back.
        if (rng() % 16 == 0)
            retired_before = std::max(retired_before, task - std::min<std::uint64_t>(task, rng() % 48));
        const std::vector<std::int64_t> mine = test::elements(view);
        const bool writes = direction != Direction::In;

        // required: per element, the last writer (and, for writes, the readers since); allowed: any live
        // earlier access of a relevant kind that shares an element.
        std::set<std::uint64_t> required;
        std::set<std::uint64_t> allowed;
        for (std::int64_t x : mine) {
            for (auto it = history.rbegin(); it != history.rend(); ++it) {
                if (it->buffer != buf || !std::binary_search(it->elements.begin(), it->elements.end(), x))
                    continue;
                if (it->is_write) {
                    if (it->task >= retired_before) required.insert(it->task);
                    break;
                }
                if (writes && it->task >= retired_before) required.insert(it->task);
            }
        }
        for (const Access& past : history)
            if (past.buffer == buf && past.task >= retired_before && (past.is_write || writes) &&
                test::sets_intersect(past.elements, mine))
                allowed.insert(past.task);

        INFO("task " << task << " " << test::describe(view) << " direction " << int(direction));
        const Ids found = producers(map, view, direction, retired_before);
        for (std::uint64_t t : required)
            CHECK(std::binary_search(found.begin(), found.end(), t));
        for (std::uint64_t t : found)
            CHECK(allowed.count(t) == 1);
        required_total += required.size();
        found_total += found.size();
        // A full pool makes the caller wait for retirement, as the scope layer does.
        while (!map.try_record(view, direction, TaskId{task}, TaskId{retired_before})) {
            REQUIRE(retired_before < task);
            retired_before = std::min(task, retired_before + 4);
        }
        history.push_back({task, writes, buf, mine});
    }
    WARN("required " << required_total << ", found " << found_total << " dependencies over 1000 tasks");
    CHECK(required_total > 2000);
}
