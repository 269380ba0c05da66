// SPEC §4 ("lookup cost must not grow with the number of live views of one buffer") — white-box tests of
// RegionIndex and EntryPool (tensormap/src). Cost is counted in entries walked, never timed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "entry_pool.h"
#include "region_index.h"

using pto::detail::EntryPool;
using pto::detail::kNoEntry;
using pto::detail::RegionIndex;
using Match = pto::detail::RegionIndex::Match;

namespace {

constexpr std::uintptr_t kBase = 0x10000;

struct Index {
    EntryPool pool;
    RegionIndex index;

    explicit Index(std::uint32_t capacity) : pool(capacity), index(pool, capacity) {}

    std::uint32_t add(std::uintptr_t base, std::int64_t lo, std::int64_t hi, bool is_writer = true) {
        const std::uint32_t e = pool.try_allocate();
        REQUIRE(e != kNoEntry);
        auto& en = pool.entry(e);
        en.task = e;
        en.base = base;
        en.lo = lo;
        en.hi = hi;
        en.is_writer = is_writer;
        en.window = pto::detail::RowWindow{0, 0, 0};
        index.insert(e);
        return e;
    }

    void remove(std::uint32_t e) {
        index.erase(e);
        pool.release(e);
    }

    /// The visited entries, sorted; `walked` receives the entries the query examined.
    std::vector<std::uint32_t> query(std::uintptr_t base, std::int64_t lo, std::int64_t hi, Match match,
                                     std::uint64_t* walked = nullptr) {
        const std::uint64_t before = index.entries_walked();
        std::vector<std::uint32_t> seen;
        index.for_each_candidate(base, lo, hi, match, [&](std::uint32_t e) { seen.push_back(e); });
        if (walked) *walked = index.entries_walked() - before;
        std::sort(seen.begin(), seen.end());
        return seen;
    }
};

}  // namespace

TEST_CASE("a lookup among up to 4096 disjoint row views walks the same few entries", "[tensormap][index]") {
    for (std::int64_t views : {1, 4, 16, 64, 256, 1024, 4096}) {
        INFO(views << " views");
        Index ix(8192);
        std::vector<std::uint32_t> ids;
        for (std::int64_t v = 0; v < views; ++v)
            ids.push_back(ix.add(kBase, v * 1024, v * 1024 + 1023));
        std::uint64_t walked = 0;
        const std::int64_t v = views / 2;
        CHECK(ix.query(kBase, v * 1024, v * 1024 + 1023, Match::Accesses, &walked) ==
              std::vector<std::uint32_t>{ids[v]});
        CHECK(walked <= 4);
    }
}

TEST_CASE("a lookup among 2-D tiles walks only the tiles of its own and the previous row band",
          "[tensormap][index]") {
    // 16 x 64 tiles of a matrix 1024 columns wide: 16 tiles share each band of rows, and their linear
    // ranges interleave, so they share index blocks; other bands never enter the walk.
    for (std::int64_t views : {16, 256, 4096}) {
        INFO(views << " tiles");
        Index ix(8192);
        for (std::int64_t t = 0; t < views; ++t) {
            const std::int64_t lo = (t / 16) * 16 * 1024 + (t % 16) * 64;
            ix.add(kBase, lo, lo + 15 * 1024 + 63);
        }
        const std::int64_t t = views - 7;
        const std::int64_t lo = (t / 16) * 16 * 1024 + (t % 16) * 64;
        std::uint64_t walked = 0;
        const auto seen = ix.query(kBase, lo, lo + 15 * 1024 + 63, Match::Accesses, &walked);
        CHECK(std::find(seen.begin(), seen.end(), std::uint32_t(t)) != seen.end());
        CHECK(walked <= 40);
    }
}

TEST_CASE("a containment query walks only its own band and finds only the entries inside it",
          "[tensormap][index]") {
    Index ix(8192);
    for (std::int64_t t = 0; t < 4096; ++t) {
        const std::int64_t lo = (t / 16) * 16 * 1024 + (t % 16) * 64;
        ix.add(kBase, lo, lo + 15 * 1024 + 63, t % 2 == 0);
    }
    const std::int64_t lo = 100 * 16 * 1024 + 3 * 64;
    std::uint64_t walked = 0;
    CHECK(ix.query(kBase, lo, lo + 15 * 1024 + 63, Match::Contained, &walked) ==
          std::vector<std::uint32_t>{100 * 16 + 3});
    CHECK(walked <= 20);
    const std::int64_t band = 100 * 16 * 1024;
    CHECK(ix.query(kBase, band, band + 16 * 1024 - 1, Match::Contained).size() == 16);
}

TEST_CASE("entries of different sizes in one buffer are all found", "[tensormap][index]") {
    Index ix(256);
    const std::uint32_t whole = ix.add(kBase, 0, (1 << 20) - 1);
    std::vector<std::uint32_t> rows;
    for (std::int64_t r = 0; r < 100; ++r)
        rows.push_back(ix.add(kBase, r * 100, r * 100 + 99));
    const std::uint32_t element = ix.add(kBase, 5050, 5050);
    std::uint64_t walked = 0;
    CHECK(ix.query(kBase, 5040, 5059, Match::Accesses, &walked) ==
          (std::vector<std::uint32_t>{whole, rows[50], element}));
    CHECK(walked <= 30);  // 25 probed blocks plus hash collisions, against 102 entries in the buffer
    CHECK(ix.query(kBase, 1 << 20, 1 << 21, Match::Accesses).empty());
}

TEST_CASE("a query far wider than the entries walks the buffer list instead of probing every block",
          "[tensormap][index]") {
    Index ix(64);
    for (std::int64_t k = 0; k < 10; ++k)
        ix.add(kBase, k * 1000, k * 1000 + 9);
    ix.add(kBase + 64, 0, 9);
    std::uint64_t walked = 0;
    CHECK(ix.query(kBase, 0, std::int64_t{1} << 50, Match::Accesses, &walked).size() == 10);
    CHECK(walked == 10);
}

TEST_CASE("a read query walks no reader entries", "[tensormap][index]") {
    Index ix(256);
    const std::uint32_t writer = ix.add(kBase, 0, 99, true);
    for (int r = 0; r < 100; ++r)
        ix.add(kBase, 0, 99, false);
    std::uint64_t walked = 0;
    CHECK(ix.query(kBase, 0, 99, Match::Writers, &walked) == std::vector<std::uint32_t>{writer});
    CHECK(walked == 1);
    CHECK(ix.query(kBase, 0, 99, Match::Accesses).size() == 101);
}

TEST_CASE("random inserts and erases, including erases during a visit, keep every lookup exact",
          "[tensormap][index][random]") {
    const std::uint64_t seed = GENERATE(31u, 32u, 33u);
    INFO("seed " << seed);
    std::mt19937_64 rng(seed);
    auto pick = [&rng](std::int64_t lo, std::int64_t hi) {
        return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    Index ix(512);
    std::vector<std::uint32_t> live;
    for (int step = 0; step < 20000; ++step) {
        const std::uintptr_t base = kBase + 64 * std::uintptr_t(pick(0, 3));
        const std::int64_t lo = pick(-5000, 5000);
        const std::int64_t hi = lo + (pick(0, 5) == 0 ? pick(0, 100000) : pick(0, 300));
        const bool is_writer = pick(0, 1) == 1;
        const auto match = Match(pick(0, 2));
        const auto op = pick(0, 9);
        if (op < 4 && live.size() < 512) {
            live.push_back(ix.add(base, lo, hi, is_writer));
        } else if (op < 6 && !live.empty()) {
            const std::size_t k = std::size_t(pick(0, std::int64_t(live.size()) - 1));
            ix.remove(live[k]);
            live.erase(live.begin() + std::ptrdiff_t(k));
        } else {
            std::vector<std::uint32_t> expected;
            for (std::uint32_t e : live) {
                const auto& en = ix.pool.entry(e);
                const bool selected =
                    match == Match::Contained
                        ? en.lo >= lo && en.hi <= hi
                        : en.lo <= hi && en.hi >= lo && (match == Match::Accesses || en.is_writer);
                if (en.base == base && selected) expected.push_back(e);
            }
            std::sort(expected.begin(), expected.end());
            const bool erase_during = op == 9;
            std::vector<std::uint32_t> seen;
            ix.index.for_each_candidate(base, lo, hi, match, [&](std::uint32_t e) {
                seen.push_back(e);
                if (erase_during && e % 2 == 0) ix.remove(e);
            });
            std::sort(seen.begin(), seen.end());
            REQUIRE(seen == expected);
            if (erase_during)
                live.erase(std::remove_if(live.begin(), live.end(),
                                          [&](std::uint32_t e) {
                                              return e % 2 == 0 &&
                                                     std::binary_search(seen.begin(), seen.end(), e);
                                          }),
                           live.end());
        }
        REQUIRE(ix.pool.size() == live.size());
    }
    for (std::uint32_t e : live)
        ix.remove(e);
    CHECK(ix.index.buffer_count() == 0);
    CHECK(ix.pool.size() == 0);
}

TEST_CASE("the entry pool hands out each entry once, keeps age order and reuses the last released first",
          "[tensormap][pool]") {
    EntryPool pool(64);
    std::vector<std::uint32_t> got;
    for (int i = 0; i < 64; ++i)
        got.push_back(pool.try_allocate());
    CHECK(pool.try_allocate() == kNoEntry);
    CHECK(pool.size() == 64);
    std::vector<std::uint32_t> sorted = got;
    std::sort(sorted.begin(), sorted.end());
    CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
    CHECK(pool.oldest() == got[0]);
    pool.release(got[0]);
    pool.release(got[10]);
    CHECK(pool.oldest() == got[1]);
    CHECK(pool.younger(got[9]) == got[11]);
    CHECK(pool.try_allocate() == got[10]);
    CHECK(pool.try_allocate() == got[0]);
    CHECK(pool.try_allocate() == kNoEntry);
    std::uint32_t e = pool.oldest();
    std::vector<std::uint32_t> order;
    for (; e != kNoEntry; e = pool.younger(e))
        order.push_back(e);
    CHECK(order.size() == 64);
    CHECK(order[62] == got[10]);
    CHECK(order[63] == got[0]);
}
