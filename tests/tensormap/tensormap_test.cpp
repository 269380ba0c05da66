// docs/design/tensormap.md (sequential consistency: RAW, WAW, WAR; untracked views; lazy invalidation;
// bounded pool) and docs/reliability.md (capacity errors name the knob) — conformance tests of TensorMap
// through its public header.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
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

TEST_CASE("entries of contiguous views keep no shape, yet strided views across them are told apart exactly",
          "[tensormap][hazard][dense]") {
    // A dense entry (one range, or one element) is recorded without its normal form; a strided access that
    // spans it without touching it, touches it, covers it or only partly covers it must still be decided
    // exactly from the range alone.
    TensorMap map(64);
    void* a = buffer(1);
    record(map, range(a, 10, 21), Direction::Out, 1);  // dense range [10, 20]
    record(map, range(a, 40, 41), Direction::Out, 2);  // one element
    // Elements 0, 32, 64: the bounding range spans both entries, but no element lies in either.
    CHECK(producers(map, strided(a, 0, {{3, 32}}), Direction::In).empty());
    // Elements 0, 8, ..., 40: meets [10, 20] at 16 and the single element 40.
    CHECK(producers(map, strided(a, 0, {{6, 8}}), Direction::In) == (Ids{1, 2}));
    // Elements 5, 10, ..., 45 cover the element 40 (superseded) but only part of [10, 20] (kept).
    record(map, strided(a, 5, {{9, 5}}), Direction::Out, 3);
    CHECK(producers(map, range(a, 40, 41), Direction::In) == Ids{3});
    CHECK(producers(map, range(a, 11, 12), Direction::In) == Ids{1});
    CHECK(producers(map, range(a, 10, 21), Direction::In) == (Ids{1, 3}));
    // A dense rewrite of the same range takes task 1's entry over; task 3's wider entry stays, partly
    // rewritten, so it is still reported for 10, 15 and 20 (conservative, as documented).
    record(map, range(a, 10, 21), Direction::Out, 4);
    CHECK(map.live_entries() == 2);
    CHECK(producers(map, range(a, 11, 12), Direction::In) == Ids{4});
    CHECK(producers(map, range(a, 10, 21), Direction::In) == (Ids{3, 4}));
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

TEST_CASE("prepared accesses find and record what the view calls do", "[tensormap][prepared]") {
    TensorMap map(64);
    void* a = buffer(1);
    TensorMap::Access w;
    TensorMap::Access r;
    map.prepare(range(a, 0, 100), Direction::Out, w);
    map.prepare(range(a, 50, 60), Direction::In, r);
    CHECK(w.is_active());
    std::vector<TaskId> out;
    map.find_producers(w, TaskId{0}, out);
    CHECK(out.empty());
    REQUIRE(map.try_record(w, TaskId{1}, TaskId{0}));
    map.find_producers(r, TaskId{0}, out);
    CHECK(out == std::vector<TaskId>{TaskId{1}});
    REQUIRE(map.try_record(r, TaskId{2}, TaskId{0}));
    CHECK(producers(map, range(a, 0, 100), Direction::Out) == (Ids{1, 2}));
    // Untracked and empty views prepare to inactive accesses, which find and record nothing.
    TensorMap::Access none;
    map.prepare(range(a, 0, 100).untracked(), Direction::InOut, none);
    CHECK_FALSE(none.is_active());
    map.prepare(strided(a, 0, {{0, 1}}), Direction::InOut, none);
    CHECK_FALSE(none.is_active());
    CHECK(map.try_record(none, TaskId{3}, TaskId{0}));
    CHECK(map.live_entries() == 2);
}

TEST_CASE("rewriting the same view keeps one entry, which names the latest writer", "[tensormap][prepared]") {
    TensorMap map(64);
    void* a = buffer(1);
    const TensorView tile_view = tile(a, 64, 8, 16, 16, 32);
    for (std::uint64_t t = 1; t <= 100; ++t) {
        TensorMap::Access access;
        map.prepare(tile_view, Direction::InOut, access);
        std::vector<TaskId> out;
        map.find_producers(access, TaskId{0}, out);
        CHECK(out == (t == 1 ? std::vector<TaskId>{} : std::vector<TaskId>{TaskId{t - 1}}));
        REQUIRE(map.try_record(access, TaskId{t}, TaskId{0}));
        CHECK(map.live_entries() == 1);
    }
    CHECK(producers(map, tile(a, 64, 10, 1, 20, 1), Direction::In) == Ids{100});
}

TEST_CASE("a read repeated over many writers reports what changed since: a takeover, a retirement, a writer",
          "[tensormap][prepared]") {
    // Twelve rows written by tasks 1-12, then the whole block read again and again (each read recorded, as
    // the scope layer does): the repeats are answered from what the first reported. Each change below
    // must show in the next read.
    TensorMap map(256);
    void* a = buffer(1);
    constexpr std::uint32_t kWidth = 64;
    auto row = [&](std::uint32_t r) {
        return range(a, std::int64_t{r} * kWidth, std::int64_t{r + 1} * kWidth);
    };
    for (std::uint32_t r = 0; r < 12; ++r)
        record(map, row(r), Direction::Out, r + 1);
    const TensorView block = range(a, 0, 12 * kWidth);
    const TensorView half = tile(a, kWidth, 0, 12, 0, kWidth / 2);  // rows of a strided view
    std::uint64_t reader = 100;
    auto read = [&](const TensorView& v, std::uint64_t retired_before = 0) {
        const Ids found = producers(map, v, Direction::In, retired_before);
        record(map, v, Direction::In, reader++, retired_before);
        return found;
    };
    const Ids all{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    for (const TensorView& v : {block, half})
        for (int k = 0; k < 3; ++k)
            CHECK(read(v) == all);
    // Task 20 rewrites row 3 exactly: it takes over task 4's entry.
    CHECK(producers(map, row(3), Direction::Out) == (Ids{4, 100, 101, 102, 103, 104, 105}));
    record(map, row(3), Direction::Out, 20);
    const Ids taken_over{1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 20};
    CHECK(read(half) == taken_over);
    CHECK(read(block) == taken_over);
    CHECK(read(block) == taken_over);
    // Tasks below 6 retired.
    const Ids retired{6, 7, 8, 9, 10, 11, 12, 20};
    CHECK(read(block, 6) == retired);
    CHECK(read(block, 6) == retired);
    // A new writer inside row 5.
    record(map, range(a, 5 * kWidth + 10, 5 * kWidth + 20), Direction::Out, 30, 6);
    const Ids written{6, 7, 8, 9, 10, 11, 12, 20, 30};
    CHECK(read(block, 6) == written);
    CHECK(read(block, 6) == written);
    // The same block as a buffer the runtime allocated at task 9: older entries are another buffer's.
    TensorView fresh = block;
    fresh.creator = TaskId{9};
    CHECK(read(fresh, 6) == (Ids{9, 10, 11, 12, 20, 30}));
    CHECK(read(fresh, 6) == (Ids{9, 10, 11, 12, 20, 30}));
    CHECK(read(block, 6) == written);
}

TEST_CASE("a task's accesses are all looked up before any is recorded", "[tensormap][prepared]") {
    // One task reads and writes overlapping views of one buffer, and writes a part of it twice: no access
    // may find the task itself, and every later access sees all of them.
    TensorMap map(64);
    void* a = buffer(1);
    record(map, range(a, 0, 64), Direction::Out, 1);
    const TensorView views[] = {range(a, 0, 64), range(a, 0, 32), range(a, 16, 48), range(a, 0, 32)};
    const Direction dirs[] = {Direction::In, Direction::Out, Direction::InOut, Direction::Out};
    TensorMap::Access acc[4];
    std::vector<TaskId> out;
    for (int i = 0; i < 4; ++i) {
        map.prepare(views[i], dirs[i], acc[i]);
        map.find_producers(acc[i], TaskId{0}, out);
    }
    for (TaskId id : out)
        CHECK(id.value == 1);
    for (int i = 0; i < 4; ++i)
        REQUIRE(map.try_record(acc[i], TaskId{2}, TaskId{0}));
    CHECK(producers(map, range(a, 0, 64), Direction::In) == (Ids{1, 2}));
    // Task 1's write was replaced only in part, so it may still be reported (conservative), never alone.
    const Ids front = producers(map, range(a, 0, 16), Direction::In);
    CHECK(std::binary_search(front.begin(), front.end(), 2));
    CHECK(producers(map, range(a, 50, 60), Direction::Out) == (Ids{1, 2}));
}

TEST_CASE("a write looked up before another task wrote inside it still supersedes that entry",
          "[tensormap][prepared]") {
    // The lookup of task 3 met nothing inside its view, then task 2 recorded there: task 3's record
    // must notice the newer entry and supersede it (the skipped pass is only for untouched buffers).
    TensorMap map(64);
    void* a = buffer(1);
    TensorMap::Access late;
    map.prepare(range(a, 0, 100), Direction::Out, late);
    std::vector<TaskId> out;
    map.find_producers(late, TaskId{0}, out);
    record(map, range(a, 10, 20), Direction::Out, 2);
    REQUIRE(map.try_record(late, TaskId{3}, TaskId{0}));
    CHECK(map.live_entries() == 1);
    CHECK(producers(map, range(a, 10, 20), Direction::In) == Ids{3});
}

TEST_CASE("a map of the largest capacity is cheap to build and behaves like a small one",
          "[tensormap][capacity]") {
    // Entries are initialised on first use; only the memory of used entries is ever touched.
    TensorMap map(1u << 22);
    CHECK(map.capacity() == 1u << 22);
    void* a = buffer(1);
    for (std::uint64_t t = 0; t < 5000; ++t)
        record(map, range(a, std::int64_t(t) * 10, std::int64_t(t) * 10 + 10), Direction::Out, t);
    CHECK(map.live_entries() == 5000);
    CHECK(producers(map, range(a, 25, 35), Direction::In) == (Ids{2, 3}));
    map.clear();
    CHECK(map.live_entries() == 0);
    CHECK(producers(map, range(a, 0, 100000), Direction::InOut).empty());
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

TEST_CASE("recording a task's accesses in one call stops at the first that finds no room and resumes there",
          "[tensormap][capacity][prepared]") {
    TensorMap map(64);
    void* a = buffer(1);
    for (std::uint64_t t = 0; t < 63; ++t)
        record(map, range(a, std::int64_t(t) * 10, std::int64_t(t) * 10 + 10), Direction::Out, t);
    // Bits 0, 2 and 3: an inactive (untracked) access at 0, then two that need an entry each.
    TensorView untracked = range(buffer(2), 0, 10);
    untracked.is_tracked = false;
    TensorMap::Access acc[4];
    map.prepare(untracked, Direction::In, acc[0]);
    map.prepare(range(buffer(3), 0, 10), Direction::Out, acc[2]);
    map.prepare(range(buffer(4), 0, 10), Direction::In, acc[3]);
    CHECK(map.try_record(acc, 0, TaskId{}, TaskId{0}) == 0);  // nothing to record: not even checked
    CHECK_THROWS_AS(map.try_record(acc, 0b1101, TaskId{}, TaskId{0}), Error);
    CHECK(map.try_record(acc, 0b1101, TaskId{63}, TaskId{0}) == 0b1000);  // the last entry went to bit 2
    CHECK(map.live_entries() == 64);
    CHECK(producers(map, range(buffer(3), 0, 10), Direction::In) == Ids{63});
    CHECK(producers(map, range(buffer(4), 0, 10), Direction::Out).empty());
    CHECK(map.try_record(acc, 0b1000, TaskId{63}, TaskId{1}) == 0);
    CHECK(producers(map, range(buffer(4), 0, 10), Direction::Out) == Ids{63});
    CHECK(producers(map, range(a, 0, 10), Direction::InOut).empty());
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

TEST_CASE("lazy invalidation and back-pressure behave alike in small buffers and in indexed ones",
          "[tensormap][invalidation][capacity]") {
    // 4 views stay below the small-buffer threshold (lookups walk the buffer's lists); 40 go past it
    // (lookups probe the bucket chains). Then many one-entry buffers fill the pool.
    for (const std::uint64_t views : {std::uint64_t{4}, std::uint64_t{40}}) {
        INFO(views << " views of one buffer");
        TensorMap map(64);
        void* a = buffer(1);
        for (std::uint64_t t = 0; t < views; ++t)
            record(map, range(a, std::int64_t(t) * 10, std::int64_t(t) * 10 + 9), Direction::Out, t);
        CHECK(producers(map, range(a, 0, std::int64_t(views) * 10 - 1), Direction::In).size() == views);
        const std::uint64_t half = views / 2;
        CHECK(producers(map, range(a, 0, std::int64_t(views) * 10 - 1), Direction::In, half).size() ==
              views - half);
        CHECK(map.live_entries() == views - half);  // the retired writers the lookup met are gone
        std::uint64_t t = views;
        while (map.live_entries() < 64) {
            record(map, range(buffer(int(100 + t)), 0, 9), Direction::Out, t);
            ++t;
        }
        CHECK_FALSE(map.try_record(range(buffer(99), 0, 9), Direction::Out, TaskId{t}, TaskId{half}));
        CHECK(map.try_record(range(buffer(99), 0, 9), Direction::Out, TaskId{t}, TaskId{half + 1}));
        CHECK(producers(map, range(buffer(99), 0, 9), Direction::In) == Ids{t});
        CHECK(producers(map, range(a, 0, std::int64_t(views) * 10 - 1), Direction::In).size() ==
              views - half - 1);
    }
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

namespace {

/// PreparedRun: the shape of a random run of tasks with several prepared accesses each.
struct PreparedRun {
    std::uint64_t seed;
    int buffers;                 ///< distinct buffers the views fall in
    std::uint32_t capacity;      ///< entry pool size
    std::uint64_t retire_every;  ///< the watermark moves on about once per this many tasks
    std::uint64_t retire_lag;    ///< and lands up to this many tasks behind the current one
};

/// check_prepared_run: as the scope layer submits, each task prepares and looks up all its accesses,
/// then records them all; every lookup is checked against the per-element reference model.
void check_prepared_run(const PreparedRun& run) {
    INFO("seed " << run.seed << ", " << run.buffers << " buffers");
    std::mt19937_64 rng(run.seed);
    TensorMap map(run.capacity);
    std::vector<Access> history;
    std::vector<TensorView> recent;
    std::uint64_t retired_before = 0;
    for (std::uint64_t task = 0; task < 600; ++task) {
        const int count = int(rng() % 4) + 1;
        struct Arg {
            TensorView view;
            Direction direction;
            int buf;
            std::vector<std::int64_t> elements;
        };
        std::vector<Arg> args;
        for (int i = 0; i < count; ++i) {
            const int buf = int(rng() % std::uint64_t(run.buffers));
            TensorView v = !recent.empty() && rng() % 3 == 0 ? recent[rng() % recent.size()]
                                                             : random_view(rng, buffer(buf));
            if (v.base != buffer(buf)) v.base = buffer(buf);
            recent.push_back(v);
            if (recent.size() > 12) recent.erase(recent.begin());
            args.push_back({v, Direction(rng() % 3), buf, test::elements(v)});
        }
        if (rng() % run.retire_every == 0)
            retired_before =
                std::max(retired_before, task - std::min<std::uint64_t>(task, rng() % run.retire_lag));

        std::vector<TensorMap::Access> acc(args.size());
        std::vector<TaskId> out;
        std::set<std::uint64_t> required;
        std::set<std::uint64_t> allowed;
        for (std::size_t i = 0; i < args.size(); ++i) {
            const Arg& a = args[i];
            const bool writes = a.direction != Direction::In;
            for (std::int64_t x : a.elements) {
                for (auto it = history.rbegin(); it != history.rend(); ++it) {
                    if (it->buffer != a.buf ||
                        !std::binary_search(it->elements.begin(), it->elements.end(), x))
                        continue;
                    if (it->is_write) {
                        if (it->task >= retired_before) required.insert(it->task);
                        break;
                    }
                    if (writes && it->task >= retired_before) required.insert(it->task);
                }
            }
            for (const Access& past : history)
                if (past.buffer == a.buf && past.task >= retired_before && (past.is_write || writes) &&
                    test::sets_intersect(past.elements, a.elements))
                    allowed.insert(past.task);
            // Half the tasks look up through the one-call form, as the scope layer does.
            if (task % 2 == 0) {
                map.prepare_and_find(a.view, a.direction, acc[i], TaskId{retired_before}, out);
            } else {
                map.prepare(a.view, a.direction, acc[i]);
                map.find_producers(acc[i], TaskId{retired_before}, out);
            }
        }
        Ids found;
        for (TaskId id : out)
            found.push_back(id.value);
        std::sort(found.begin(), found.end());
        found.erase(std::unique(found.begin(), found.end()), found.end());
        INFO("task " << task << ", " << args.size() << " accesses");
        for (std::uint64_t t : required)
            CHECK(std::binary_search(found.begin(), found.end(), t));
        for (std::uint64_t t : found)
            CHECK(allowed.count(t) == 1);
        if (task % 3 == 0) {
            for (std::size_t i = 0; i < args.size(); ++i) {
                while (!map.try_record(acc[i], TaskId{task}, TaskId{retired_before})) {
                    REQUIRE(retired_before < task);
                    retired_before = std::min(task, retired_before + 4);
                }
            }
        } else {
            // All of the task's accesses in one call; a full pool leaves the rest (a suffix) to retry.
            const std::uint32_t all = (1u << args.size()) - 1;
            for (std::uint32_t left = map.try_record(acc.data(), all, TaskId{task}, TaskId{retired_before});
                 left != 0; left = map.try_record(acc.data(), left, TaskId{task}, TaskId{retired_before})) {
                REQUIRE((left & (left + (1u << std::countr_zero(left)))) == 0);  // bits from one on, all set
                REQUIRE(retired_before < task);
                retired_before = std::min(task, retired_before + 4);
            }
        }
        for (const Arg& a : args)
            history.push_back({task, a.direction != Direction::In, a.buf, a.elements});
    }
}

}  // namespace

TEST_CASE(
    "random tasks of several prepared accesses find every per-element hazard and only overlapping tasks",
    "[tensormap][hazard][prepared][random]") {
    // Views repeat often (the same tile again, the same row again) so the takeover of identical entries
    // and the skipped superseding pass are exercised, as is reclamation in a small pool.
    const std::uint64_t seed = GENERATE(11u, 12u, 13u, 14u, 15u, 16u);
    check_prepared_run({seed, 2, 128, 16, 48});
}

TEST_CASE(
    "prepared accesses stay exact while buffer records come and go between a task's lookups and "
    "records",
    "[tensormap][hazard][prepared][random]") {
    // Many buffers with few entries each, and a watermark that moves on often and close behind: a
    // record often reclaims a buffer's last entry (freeing its record) or creates a buffer's first one
    // between the lookup of an access and its record, so the buffer the lookup found, or found missing,
    // no longer holds when the access is recorded.
    const std::uint64_t seed = GENERATE(21u, 22u, 23u, 24u, 25u, 26u, 27u, 28u);
    check_prepared_run({seed, 7, 64, 2, 6});
}
