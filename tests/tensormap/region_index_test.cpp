// docs/design/tensormap.md ("lookup cost must not grow with the number of live views of one buffer") —
// white-box tests of RegionIndex and EntryPool (tensormap/src). Cost is counted in entries walked, never
// timed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "entry_pool.h"
#include "region_index.h"
#include "tensormap/views.h"

using pto::detail::EntryPool;
using pto::detail::kNoEntry;
using pto::detail::RegionIndex;
using Match = pto::detail::RegionIndex::Match;
using pto::detail::RowWindow;

namespace {

constexpr std::uintptr_t kBase = 0x10000;

/// Picker: uniform integers in [lo, hi] from a seeded generator, for the randomized tests.
struct Picker {
    std::mt19937_64 rng;
    explicit Picker(std::uint64_t seed) : rng(seed) {}
    std::int64_t operator()(std::int64_t lo, std::int64_t hi) {
        return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    }
};

struct Index {
    EntryPool pool;
    RegionIndex index;

    explicit Index(std::uint32_t capacity) : pool(capacity), index(pool, capacity) {}

    std::uint32_t add(std::uintptr_t base, std::int64_t lo, std::int64_t hi, bool is_writer = true,
                      RowWindow window = RowWindow{0, 0, 0}) {
        const std::uint32_t e = pool.try_allocate();
        REQUIRE(e != kNoEntry);
        auto& en = pool.entry(e);
        en.task = e;
        en.base = base;
        en.lo = lo;
        en.hi = hi;
        en.is_writer = is_writer;
        en.is_dense = false;
        en.window = window;
        index.insert(e);
        return e;
    }

    /// add_tile: rows [row, row + rows) x columns [col, col + cols) of a matrix `pitch` wide.
    std::uint32_t add_tile(std::uintptr_t base, std::int64_t pitch, std::int64_t row, std::int64_t rows,
                           std::int64_t col, std::int64_t cols, bool is_writer = true) {
        const std::int64_t lo = row * pitch + col;
        return add(base, lo, lo + (rows - 1) * pitch + cols - 1, is_writer,
                   tile_window(pitch, col, cols, rows));
    }

    static RowWindow tile_window(std::int64_t pitch, std::int64_t col, std::int64_t cols, std::int64_t rows) {
        // A single row is one dense range: no window (as view_shape.h's row_window gives).
        return rows > 1 && cols < pitch ? RowWindow{pitch, col, cols - 1} : RowWindow{0, 0, 0};
    }

    void remove(std::uint32_t e) {
        index.erase(e);
        pool.release(e);
    }

    /// The visited entries, sorted; `walked` receives the entries the query examined.
    std::vector<std::uint32_t> query(std::uintptr_t base, std::int64_t lo, std::int64_t hi, Match match,
                                     std::uint64_t* walked = nullptr, RowWindow window = RowWindow{0, 0, 0}) {
        const std::uint64_t before = index.entries_walked();
        std::vector<std::uint32_t> seen;
        index.for_each_candidate(base, lo, hi, window, match, [&](std::uint32_t e) { seen.push_back(e); });
        if (walked) *walked = index.entries_walked() - before;
        std::sort(seen.begin(), seen.end());
        return seen;
    }

    /// expected: by brute force over `live`, the entries a lookup of [lo, hi] in `base` must visit, sorted.
    std::vector<std::uint32_t> expected(const std::vector<std::uint32_t>& live, std::uintptr_t base,
                                        std::int64_t lo, std::int64_t hi, Match match) const {
        std::vector<std::uint32_t> out;
        for (std::uint32_t e : live) {
            const auto& en = pool.entry(e);
            const bool selected = match == Match::Contained ? en.lo >= lo && en.hi <= hi
                                                            : en.lo <= hi && en.hi >= lo &&
                                                                  (match == Match::Accesses || en.is_writer);
            if (en.base == base && selected) out.push_back(e);
        }
        std::sort(out.begin(), out.end());
        return out;
    }

    /// check_lookup: the lookup visits exactly what brute force says, while removing the visited entries
    /// for which `erase(e)` holds (an erase during the visit must not disturb it); those leave `live`.
    template <class Erase>
    void check_lookup(std::vector<std::uint32_t>& live, std::uintptr_t base, std::int64_t lo, std::int64_t hi,
                      Match match, Erase erase) {
        const std::vector<std::uint32_t> want = expected(live, base, lo, hi, match);
        std::vector<std::uint32_t> seen;
        index.for_each_candidate(base, lo, hi, RowWindow{0, 0, 0}, match, [&](std::uint32_t e) {
            seen.push_back(e);
            if (erase(e)) remove(e);
        });
        std::sort(seen.begin(), seen.end());
        REQUIRE(seen == want);
        live.erase(std::remove_if(live.begin(), live.end(),
                                  [&](std::uint32_t e) {
                                      return erase(e) && std::binary_search(seen.begin(), seen.end(), e);
                                  }),
                   live.end());
    }
};

/// check_visit: a visit saw each candidate once, every required entry and only allowed ones. If it erased
/// the seen entries whose id is a multiple of `erased_every` (0: none), they leave `live` (id, rect pairs).
template <class Live>
void check_visit(std::vector<std::uint32_t> seen, std::vector<std::uint32_t> required,
                 std::vector<std::uint32_t> allowed, Live& live, std::uint32_t erased_every) {
    std::sort(required.begin(), required.end());
    std::sort(allowed.begin(), allowed.end());
    std::sort(seen.begin(), seen.end());
    REQUIRE(std::adjacent_find(seen.begin(), seen.end()) == seen.end());
    REQUIRE(std::includes(seen.begin(), seen.end(), required.begin(), required.end()));
    REQUIRE(std::includes(allowed.begin(), allowed.end(), seen.begin(), seen.end()));
    if (erased_every == 0) return;
    live.erase(std::remove_if(live.begin(), live.end(),
                              [&](const auto& lr) {
                                  return lr.first % erased_every == 0 &&
                                         std::binary_search(seen.begin(), seen.end(), lr.first);
                              }),
               live.end());
}

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
              std::vector<std::uint32_t>{ids[static_cast<std::size_t>(v)]});
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

TEST_CASE("a lookup of an indexed buffer whose entries it must consider are few walks their lists",
          "[tensormap][index][small]") {
    constexpr std::int64_t kTile = 1024, kRow = 64;
    Index ix(1024);
    // Six tiles written, then every row read: indexed (more than kSmallBuffer entries), six writers.
    std::vector<std::uint32_t> tiles;
    for (std::int64_t t = 0; t < 6; ++t)
        tiles.push_back(ix.add(kBase, t * kTile, t * kTile + kTile - 1, true));
    std::vector<std::uint32_t> readers;
    for (std::int64_t r = 0; r < 6 * kTile / kRow; ++r)
        readers.push_back(ix.add(kBase, r * kRow, r * kRow + kRow - 1, false));
    // A row of tile 2 (not the latest writer, which the extents settle alone): the six writers, no probe.
    const std::int64_t row = 2 * kTile + 5 * kRow;
    std::uint64_t walked = 0;
    CHECK(ix.query(kBase, row, row + kRow - 1, Match::Writers, &walked) ==
          std::vector<std::uint32_t>{tiles[2]});
    CHECK(walked == 6);
    // Twelve writers: probed, a block or two of the tiles' class.
    std::vector<std::uint32_t> more;
    for (std::int64_t t = 6; t < 12; ++t)
        more.push_back(ix.add(kBase, t * kTile, t * kTile + kTile - 1, true));
    CHECK(ix.query(kBase, row, row + kRow - 1, Match::Writers, &walked) ==
          std::vector<std::uint32_t>{tiles[2]});
    CHECK(walked <= 4);
    // Back to six writers: walked again.
    for (const std::uint32_t e : more)
        ix.remove(e);
    CHECK(ix.query(kBase, row, row + kRow - 1, Match::Writers, &walked) ==
          std::vector<std::uint32_t>{tiles[2]});
    CHECK(walked == 6);
    // A write considers every entry: probed while the buffer holds many, walked once few are left (an
    // indexed buffer stays indexed until it empties).
    CHECK(ix.query(kBase, row, row + kRow - 1, Match::Accesses, &walked) ==
          (std::vector<std::uint32_t>{tiles[2], readers[std::size_t(row / kRow)]}));
    CHECK(walked <= 6);
    for (std::size_t r = 0; r < readers.size(); ++r)
        if (r != std::size_t(row / kRow)) ix.remove(readers[r]);
    CHECK(ix.query(kBase, row, row + kRow - 1, Match::Accesses, &walked) ==
          (std::vector<std::uint32_t>{tiles[2], readers[std::size_t(row / kRow)]}));
    CHECK(walked == 7);
}

TEST_CASE("a query past the span of an indexed buffer's entries of a kind walks none of them",
          "[tensormap][index][extents]") {
    Index ix(256);
    // Rows 0..31 written, rows 0..15 also read: indexed (more than kSmallBuffer entries).
    std::vector<std::uint32_t> writers;
    for (std::int64_t r = 0; r < 32; ++r)
        writers.push_back(ix.add(kBase, r * 64, r * 64 + 63, true));
    for (std::int64_t r = 0; r < 16; ++r)
        ix.add(kBase, r * 64, r * 64 + 63, false);
    std::uint64_t walked = 0;
    // The next row, written or read: past every writer and reader.
    CHECK(ix.query(kBase, 32 * 64, 33 * 64 - 1, Match::Accesses, &walked).empty());
    CHECK(walked == 0);
    CHECK(ix.query(kBase, 32 * 64, 33 * 64 - 1, Match::Contained, &walked).empty());
    CHECK(walked == 0);
    CHECK(ix.query(kBase, -64, -1, Match::Writers, &walked).empty());
    CHECK(walked == 0);
    // Row 20: inside the writers' span, past the readers': no reader is examined.
    CHECK(ix.query(kBase, 20 * 64, 21 * 64 - 1, Match::Accesses, &walked) ==
          std::vector<std::uint32_t>{writers[20]});
    CHECK(walked <= 4);
    // The last row's writer leaves; the span keeps it until a list walk, which stays exact either way.
    ix.remove(writers[31]);
    CHECK(ix.query(kBase, 31 * 64, 31 * 64 + 63, Match::Writers).empty());
    CHECK(ix.query(kBase, 0, std::int64_t{1} << 40, Match::Writers, &walked).size() == 31);  // a list walk
    CHECK(ix.query(kBase, 31 * 64, 31 * 64 + 63, Match::Writers, &walked).empty());
    CHECK(walked == 0);  // the walk shrank the writers' span
    // A new writer past the span widens it.
    const std::uint32_t next = ix.add(kBase, 40 * 64, 40 * 64 + 63, true);
    CHECK(ix.query(kBase, 40 * 64, 40 * 64 + 7, Match::Writers) == std::vector<std::uint32_t>{next});
}

TEST_CASE("a column chunk written beside every chunk of its band walks no entry",
          "[tensormap][index][extents]") {
    // Tiles of 16 rows of a matrix 1024 wide, written in 32 column chunks each, tile after tile: each
    // chunk's linear range meets every earlier chunk of its tile, but its columns lie past theirs.
    Index ix(4096);
    constexpr std::int64_t kPitch = 1024, kRows = 16, kCols = 32;
    std::vector<std::uint32_t> chunks;
    for (std::int64_t tile = 0; tile < 4; ++tile) {
        for (std::int64_t c = 0; c < kPitch / kCols; ++c) {
            const std::int64_t lo = tile * kRows * kPitch + c * kCols;
            const RowWindow w = Index::tile_window(kPitch, c * kCols, kCols, kRows);
            // A small buffer is walked whole (candidates by linear range); an indexed one not at all.
            if (chunks.size() > RegionIndex::kSmallBuffer) {
                std::uint64_t walked = 0;
                CHECK(ix.query(kBase, lo, lo + (kRows - 1) * kPitch + kCols - 1, Match::Accesses, &walked, w)
                          .empty());
                CHECK(walked == 0);
            }
            chunks.push_back(ix.add_tile(kBase, kPitch, tile * kRows, kRows, c * kCols, kCols));
        }
    }
    // A chunk written again, of the current band or an earlier one, is probed and meets its own entry
    // (and at most the chunks of the neighbouring column block); a tile read meets all 32 of its chunks.
    for (const std::int64_t tile : {3, 1}) {
        const std::int64_t lo = tile * kRows * kPitch + 5 * kCols;
        const std::vector<std::uint32_t> seen =
            ix.query(kBase, lo, lo + (kRows - 1) * kPitch + kCols - 1, Match::Accesses, nullptr,
                     Index::tile_window(kPitch, 5 * kCols, kCols, kRows));
        CHECK(std::count(seen.begin(), seen.end(), chunks[std::size_t(tile * 32 + 5)]) == 1);
        CHECK(seen.size() <= 3);
    }
    CHECK(ix.query(kBase, 2 * kRows * kPitch, 3 * kRows * kPitch - 1, Match::Writers).size() == 32);
}

TEST_CASE("random inserts and erases, including erases during a visit, keep every lookup exact",
          "[tensormap][index][random]") {
    const std::uint64_t seed = GENERATE(31u, 32u, 33u);
    INFO("seed " << seed);
    Picker pick(seed);
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
            const bool erase_during = op == 9;
            ix.check_lookup(live, base, lo, hi, match,
                            [&](std::uint32_t e) { return erase_during && e % 2 == 0; });
        }
        REQUIRE(ix.pool.size() == live.size());
    }
    for (std::uint32_t e : live)
        ix.remove(e);
    CHECK(ix.index.buffer_count() == 0);
    CHECK(ix.pool.size() == 0);
}

TEST_CASE("a buffer of at most kSmallBuffer entries is walked whole, a larger one is probed",
          "[tensormap][index][small]") {
    constexpr std::int64_t kSmall = RegionIndex::kSmallBuffer;
    Index ix(8192);
    std::vector<std::uint32_t> ids;
    for (std::int64_t v = 0; v < 4096; ++v) {
        ids.push_back(ix.add(kBase, v * 1024, v * 1024 + 1023, v % 2 == 0));
        const std::int64_t views = v + 1;
        if (views > 2 * kSmall && views != 4096) continue;
        INFO(views << " views");
        const std::int64_t q = views / 2;
        std::uint64_t walked = 0;
        CHECK(ix.query(kBase, q * 1024, q * 1024 + 1023, Match::Accesses, &walked) ==
              std::vector<std::uint32_t>{ids[std::size_t(q)]});
        // Small: every entry once; indexed: the probed blocks only.
        CHECK(walked <= std::uint64_t(views <= kSmall ? views : 4));
        const std::int64_t writers = (views + 1) / 2;
        CHECK(ix.query(kBase, 0, views * 1024 - 1, Match::Writers, &walked).size() == std::size_t(writers));
        if (views <= kSmall) CHECK(walked == std::uint64_t(writers));  // a read walks no reader
    }
    // Emptied, the buffer starts small again; its old registrations are gone.
    for (std::uint32_t e : ids)
        ix.remove(e);
    CHECK(ix.index.buffer_count() == 0);
    const std::uint32_t again = ix.add(kBase, 0, 1023);
    std::uint64_t walked = 0;
    CHECK(ix.query(kBase, 0, 1 << 20, Match::Accesses, &walked) == std::vector<std::uint32_t>{again});
    CHECK(walked == 1);
}

TEST_CASE("buffers crossing the small-buffer threshold both ways, with resets and growth, stay exact",
          "[tensormap][index][small][random]") {
    const std::uint64_t seed = GENERATE(41u, 42u, 43u);
    INFO("seed " << seed);
    Picker pick(seed);
    // 2048 entries over 200 buffers: about as many entries per buffer as the threshold, so buffers
    // become indexed, lose entries while indexed, empty and start small again; the bucket table grows
    // while small buffers (not registered) share it with indexed ones.
    Index ix(2048);
    std::vector<std::uint32_t> live;
    for (int step = 0; step < 40000; ++step) {
        const std::uintptr_t base = kBase + 64 * std::uintptr_t(pick(0, 199));
        const std::int64_t lo = pick(0, 4000);
        const std::int64_t hi = lo + (pick(0, 7) == 0 ? pick(0, 8000) : pick(0, 200));
        const auto match = Match(pick(0, 2));
        const auto op = pick(0, 19);
        if (op == 0 && pick(0, 99) == 0) {
            ix.index.reset();
            ix.pool.reset();
            live.clear();
        } else if (op < 9 && live.size() < 2048) {
            live.push_back(ix.add(base, lo, hi, pick(0, 1) == 1));
        } else if (op < 15 && !live.empty()) {
            const std::size_t k = std::size_t(pick(0, std::int64_t(live.size()) - 1));
            ix.remove(live[k]);
            live[k] = live.back();
            live.pop_back();
        } else {
            const bool erase_during = op >= 18;
            ix.check_lookup(live, base, lo, hi, match, [&](std::uint32_t) { return erase_during; });
        }
        REQUIRE(ix.pool.size() == live.size());
    }
    for (std::uint32_t e : live)
        ix.remove(e);
    CHECK(ix.index.buffer_count() == 0);
}

TEST_CASE("a tile lookup among up to 4096 tiles walks only the tiles of its own columns",
          "[tensormap][index][grid]") {
    // 16 x 64 tiles of a matrix 1024 wide, 16 side by side in every band: their linear ranges interleave,
    // but each is keyed by its column block as well, so a tile lookup meets only its column neighbours.
    for (std::int64_t views : {16, 256, 4096}) {
        INFO(views << " tiles");
        Index ix(8192);
        for (std::int64_t t = 0; t < views; ++t)
            ix.add_tile(kBase, 1024, (t / 16) * 16, 16, (t % 16) * 64, 64);
        const std::int64_t t = views - 7;
        const std::int64_t row = (t / 16) * 16;
        const std::int64_t col = (t % 16) * 64;
        std::uint64_t walked = 0;
        const auto seen = ix.query(kBase, row * 1024 + col, (row + 15) * 1024 + col + 63, Match::Accesses,
                                   &walked, RowWindow{1024, col, 63});
        CHECK(std::find(seen.begin(), seen.end(), std::uint32_t(t)) != seen.end());
        CHECK(walked <= 12);  // its own and the previous band, its own and the previous column block
        // A query without a window (a whole band read as one range) still meets every tile of the band.
        const std::int64_t band = (t / 16) * 16 * 1024;
        CHECK(ix.query(kBase, band, band + 16 * 1024 - 1, Match::Writers).size() == 16);
    }
}

TEST_CASE("column blocks are skipped when every tile starts in the same column", "[tensormap][index][grid]") {
    // Rows of heads all starting at column 0 (attention scores of different lengths): columns cannot
    // tell them apart, so queries take the linear chains and meet exactly the rows in range.
    Index ix(1024);
    for (std::int64_t r = 0; r < 64; ++r)
        ix.add_tile(kBase, 4096, r * 8, 8, 0, 100 + r * 30);
    std::uint64_t walked = 0;
    const auto seen = ix.query(kBase, 40 * 8 * 4096, 40 * 8 * 4096 + 7 * 4096 + 99, Match::Accesses, &walked,
                               RowWindow{4096, 0, 99});
    CHECK(seen == std::vector<std::uint32_t>{40});
    CHECK(walked <= 4);
}

TEST_CASE("random tiles, rows and erases keep every grid and linear lookup complete",
          "[tensormap][index][grid][random]") {
    const std::uint64_t seed = GENERATE(41u, 42u, 43u);
    // Banded: half the rectangles are column chunks of a few bands of rows (tiles of a matrix), so
    // entries share bands and queries fall beside or inside a band's chunks (the Extent's band test).
    const bool banded = GENERATE(false, true);
    INFO("seed " << seed << (banded ? ", banded" : ""));
    Picker pick(seed);
    // Rectangles of a matrix 96 wide (another pitch now and then), in two buffers; a rectangle of one row
    // or of full width is a plain range. Contract: a lookup visits every entry whose elements can meet the
    // query (Contained: can lie inside it), and nothing whose linear range misses, each once.
    struct Rect {
        std::uintptr_t base;
        std::int64_t pitch, row, rows, col, cols;
        bool is_writer;
        [[nodiscard]] std::int64_t lo() const { return row * pitch + col; }
        [[nodiscard]] std::int64_t hi() const { return (row + rows - 1) * pitch + col + cols - 1; }
        [[nodiscard]] bool has_cell(std::int64_t x) const {
            const std::int64_t r = x / pitch, c = x % pitch;
            return r >= row && r < row + rows && c >= col && c < col + cols;
        }
    };
    auto random_rect = [&]() {
        Rect r{};
        r.base = kBase + 64 * std::uintptr_t(pick(0, 1));
        r.pitch = pick(0, 7) == 0 ? 80 : 96;
        r.rows = pick(0, 3) == 0 ? 1 : pick(1, 12);
        r.row = pick(0, 40);
        r.cols = pick(0, 5) == 0 ? r.pitch : pick(1, 40);
        r.col = pick(0, r.pitch - r.cols);
        r.is_writer = pick(0, 1) == 1;
        if (banded && pick(0, 1) == 0) {
            r.rows = pick(0, 5) == 0 ? 11 : 12;
            r.row = 12 * pick(0, 3);
            r.cols = 8;
            r.col = pick(0, 2) == 0 ? pick(0, r.pitch - 8) : 8 * pick(0, r.pitch / 8 - 1);
        }
        return r;
    };
    auto cells = [](const Rect& r) {
        std::vector<std::int64_t> out;
        for (std::int64_t x = r.lo(); x <= r.hi(); ++x)
            if (r.has_cell(x)) out.push_back(x);
        return out;
    };
    Index ix(1024);
    std::vector<std::pair<std::uint32_t, Rect>> live;
    for (int step = 0; step < 6000; ++step) {
        const auto op = pick(0, 9);
        if (op < 4 && live.size() < 1024) {
            const Rect r = random_rect();
            live.push_back({ix.add_tile(r.base, r.pitch, r.row, r.rows, r.col, r.cols, r.is_writer), r});
        } else if (op < 6 && !live.empty()) {
            const std::size_t k = std::size_t(pick(0, std::int64_t(live.size()) - 1));
            ix.remove(live[k].first);
            live.erase(live.begin() + std::ptrdiff_t(k));
        } else {
            const Rect q = random_rect();
            const auto match = Match(pick(0, 2));
            const std::vector<std::int64_t> mine = cells(q);
            std::vector<std::uint32_t> required;
            std::vector<std::uint32_t> allowed;
            for (const auto& [e, r] : live) {
                if (r.base != q.base || (match == Match::Writers && !r.is_writer)) continue;
                if (match == Match::Contained) {
                    if (r.lo() < q.lo() || r.hi() > q.hi()) continue;
                    allowed.push_back(e);
                    if (pto::test::set_includes(mine, cells(r))) required.push_back(e);
                } else {
                    if (r.lo() > q.hi() || r.hi() < q.lo()) continue;
                    allowed.push_back(e);
                    if (pto::test::sets_intersect(mine, cells(r))) required.push_back(e);
                }
            }
            const bool erase_during = op == 9;
            std::vector<std::uint32_t> seen;
            ix.index.for_each_candidate(q.base, q.lo(), q.hi(),
                                        Index::tile_window(q.pitch, q.col, q.cols, q.rows), match,
                                        [&](std::uint32_t e) {
                                            seen.push_back(e);
                                            if (erase_during && e % 3 == 0) ix.remove(e);
                                        });
            check_visit(seen, required, allowed, live, erase_during ? 3 : 0);
        }
        REQUIRE(ix.pool.size() == live.size());
    }
    for (const auto& lr : live)
        ix.remove(lr.first);
    CHECK(ix.index.buffer_count() == 0);
}

TEST_CASE("a read repeated while only readers are added walks its remembered candidates",
          "[tensormap][index][extents]") {
    // 64 rows of a tile written one by one (interleaved with rows of other tiles), then the tile read
    // 40 times, each read adding a reader entry: the repeats walk exactly the 64 writers.
    Index ix(4096);
    constexpr std::int64_t kRow = 256;
    std::vector<std::uint32_t> tile;
    for (std::int64_t r = 0; r < 128; ++r) {
        const std::uint32_t e = ix.add(kBase, r * kRow, r * kRow + kRow - 1, true);
        if (r % 2 == 0) tile.push_back(e);
    }
    // The tile: the even rows 0..126, as one strided view (rows of kRow every 2 * kRow).
    const RowWindow window{2 * kRow, 0, kRow - 1};
    const std::int64_t lo = 0, hi = 126 * kRow + kRow - 1;
    std::vector<std::uint32_t> first;
    for (int k = 0; k < 40; ++k) {
        std::uint64_t walked = 0;
        const std::vector<std::uint32_t> seen = ix.query(kBase, lo, hi, Match::Writers, &walked, window);
        if (k == 0) first = seen;
        CHECK(seen == first);
        if (k > 0) CHECK(walked == first.size());
        ix.add(kBase, lo, hi, false, window);
    }
    CHECK(std::includes(first.begin(), first.end(), tile.begin(), tile.end()));
    // A new writer in the tile is found; an erased one is not.
    const std::uint32_t late = ix.add(kBase, 2 * kRow, 3 * kRow - 1, true);
    CHECK(std::count(first.begin(), first.end(), late) == 0);
    std::vector<std::uint32_t> seen = ix.query(kBase, lo, hi, Match::Writers, nullptr, window);
    CHECK(std::count(seen.begin(), seen.end(), late) == 1);
    ix.remove(tile[5]);
    seen = ix.query(kBase, lo, hi, Match::Writers, nullptr, window);
    CHECK(std::count(seen.begin(), seen.end(), tile[5]) == 0);
    CHECK(std::count(seen.begin(), seen.end(), late) == 1);
}

TEST_CASE("reads of a few buffers in turn each walk their own remembered candidates",
          "[tensormap][index][extents]") {
    // Three buffers of 128 rows, each row written by its own task; each buffer read in turn from row 1 to
    // row 126, each read adding a reader entry. A probe also walks row 0 (its block precedes the query's
    // first), a remembered read only its candidates: after the first round every read walks exactly those.
    Index ix(4096);
    constexpr std::int64_t kRow = 256;
    constexpr std::uintptr_t kBuffers[] = {kBase, kBase + 0x1000000, kBase + 0x2000000};
    for (const std::uintptr_t base : kBuffers)
        for (std::int64_t r = 0; r < 128; ++r)
            ix.add(base, r * kRow, r * kRow + kRow - 1, true);
    const std::int64_t lo = kRow, hi = 127 * kRow - 1;
    for (int round = 0; round < 10; ++round) {
        for (const std::uintptr_t base : kBuffers) {
            std::uint64_t walked = 0;
            const std::vector<std::uint32_t> seen = ix.query(base, lo, hi, Match::Writers, &walked);
            CHECK(seen.size() == 126);
            CHECK(walked == (round == 0 ? 127u : 126u));
            ix.add(base, lo, hi, false);
        }
    }
}

namespace {

/// RecallingVisit: a visit that may answer from a memo (RegionIndex::kRecalls): records the visits and the
/// memos the index offers and reports, and answers recall with `answer`.
struct RecallingVisit {
    std::vector<std::uint32_t> seen;
    std::vector<RegionIndex::RememberedRead> offered;     ///< recall calls
    std::vector<RegionIndex::RememberedRead> remembered;  ///< remember calls
    bool answer = false;

    void operator()(std::uint32_t e) { seen.push_back(e); }
    bool recall(const RegionIndex::RememberedRead& memo) {
        offered.push_back(memo);
        return answer;
    }
    void remember(const RegionIndex::RememberedRead& memo) { remembered.push_back(memo); }
};
static_assert(RegionIndex::kRecalls<RecallingVisit>);

}  // namespace

TEST_CASE("a probed read offers its memo to a visit that can answer for it, and reports the memo it used",
          "[tensormap][index][extents]") {
    // 64 rows written one by one, read as a whole: the first read probes and makes a memo (remember), a
    // repeat is offered it (recall): declined, the candidates are visited and the memo reported again;
    // accepted, nothing is visited. A new writer makes the next read probe and make a new memo.
    Index ix(4096);
    constexpr std::int64_t kRow = 256;
    for (std::int64_t r = 0; r < 64; ++r)
        ix.add(kBase, r * kRow, r * kRow + kRow - 1, true);
    const std::int64_t lo = 0, hi = 64 * kRow - 1;
    auto read = [&](RecallingVisit& v) {
        const std::uint64_t before = ix.index.entries_walked();
        ix.index.for_each_candidate(kBase, lo, hi, RowWindow{0, 0, 0}, Match::Writers, v);
        return ix.index.entries_walked() - before;
    };

    RecallingVisit first;
    read(first);
    CHECK(first.seen.size() == 64);
    CHECK(first.offered.empty());
    REQUIRE(first.remembered.size() == 1);
    const RegionIndex::RememberedRead memo = first.remembered[0];
    CHECK(memo.serial != 0);

    RecallingVisit declined;
    CHECK(read(declined) == 64);
    CHECK(declined.seen.size() == 64);
    REQUIRE(declined.offered.size() == 1);
    CHECK(declined.offered[0].serial == memo.serial);
    CHECK(declined.offered[0].slot == memo.slot);
    REQUIRE(declined.remembered.size() == 1);
    CHECK(declined.remembered[0].serial == memo.serial);

    RecallingVisit accepted;
    accepted.answer = true;
    CHECK(read(accepted) == 0);
    CHECK(accepted.seen.empty());
    CHECK(accepted.offered.size() == 1);
    CHECK(accepted.remembered.empty());

    ix.add(kBase, 3 * kRow, 4 * kRow - 1, true);
    RecallingVisit after_write;
    after_write.answer = true;
    read(after_write);
    CHECK(after_write.offered.empty());
    CHECK(after_write.seen.size() == 65);
    REQUIRE(after_write.remembered.size() == 1);
    CHECK(after_write.remembered[0].serial != memo.serial);
}

TEST_CASE("tiles and rows written in order and read back right after stay complete",
          "[tensormap][index][extents][random]") {
    const std::uint64_t seed = GENERATE(51u, 52u, 53u);
    INFO("seed " << seed);
    Picker pick(seed);
    // What the Extent shortcuts are for: a matrix 64 wide written band after band (column chunks of 8
    // rows, or whole rows), each write mostly read back at once or a little later, sometimes rewritten,
    // sometimes erased, with now and then a write or read anywhere. Every lookup is checked against brute
    // force over the rectangles' cells: it visits every entry that meets the query, each once, and
    // nothing whose linear range misses it.
    constexpr std::int64_t kPitch = 64;
    struct Rect {
        std::int64_t row, rows, col, cols;
        bool is_writer;
        [[nodiscard]] std::int64_t lo() const { return row * kPitch + col; }
        [[nodiscard]] std::int64_t hi() const { return (row + rows - 1) * kPitch + col + cols - 1; }
        [[nodiscard]] bool meets(const Rect& o) const {
            return row < o.row + o.rows && o.row < row + rows && col < o.col + o.cols && o.col < col + cols;
        }
    };
    Index ix(2048);
    std::vector<std::pair<std::uint32_t, Rect>> live;
    std::vector<Rect> recent;  // what was written lately, to be read back
    std::int64_t band = 0, col = 0;
    auto next_write = [&]() {
        Rect r{band * 8, 8, col, 8, true};
        if (pick(0, 5) == 0) r = Rect{band * 8 + pick(0, 7), 1, 0, kPitch, true};  // a whole row
        if (pick(0, 15) == 0) r = Rect{pick(0, band * 8 + 8), pick(1, 9), pick(0, 48), pick(1, 16), true};
        col += 8;
        if (col == kPitch || pick(0, 11) == 0) {
            col = 0;
            band += 1;
        }
        return r;
    };
    auto lookup = [&](const Rect& q, Match match) {
        std::vector<std::uint32_t> required, allowed, seen;
        for (const auto& [e, r] : live) {
            if (match == Match::Writers && !r.is_writer) continue;
            if (match == Match::Contained ? r.lo() < q.lo() || r.hi() > q.hi()
                                          : r.lo() > q.hi() || r.hi() < q.lo())
                continue;
            allowed.push_back(e);
            if (match != Match::Contained && r.meets(q)) required.push_back(e);
        }
        const bool erase_during = pick(0, 7) == 0;
        ix.index.for_each_candidate(kBase, q.lo(), q.hi(), Index::tile_window(kPitch, q.col, q.cols, q.rows),
                                    match, [&](std::uint32_t e) {
                                        seen.push_back(e);
                                        if (erase_during && e % 2 == 0) ix.remove(e);
                                    });
        check_visit(seen, required, allowed, live, erase_during ? 2 : 0);
    };
    for (int step = 0; step < 8000 && band < 200; ++step) {
        const auto op = pick(0, 9);
        if (op < 4 && live.size() < 2048) {
            const Rect w = next_write();
            lookup(w, Match::Accesses);
            lookup(w, Match::Contained);
            live.push_back({ix.add_tile(kBase, kPitch, w.row, w.rows, w.col, w.cols, true), w});
            recent.push_back(w);
            if (recent.size() > 4) recent.erase(recent.begin());
        } else if (op < 7 && !recent.empty()) {
            Rect r = recent[std::size_t(pick(0, std::int64_t(recent.size()) - 1))];
            if (pick(0, 3) == 0) r.rows = std::max<std::int64_t>(1, r.rows - 1);  // part of it
            lookup(r, Match::Writers);
            r.is_writer = false;
            if (live.size() < 2048)
                live.push_back({ix.add_tile(kBase, kPitch, r.row, r.rows, r.col, r.cols, false), r});
        } else if (op < 8 && !recent.empty()) {
            const Rect w = recent.back();  // written again
            lookup(w, Match::Accesses);
            if (live.size() < 2048)
                live.push_back({ix.add_tile(kBase, kPitch, w.row, w.rows, w.col, w.cols, true), w});
        } else if (op < 9 && !live.empty()) {
            const std::size_t k = std::size_t(pick(0, std::int64_t(live.size()) - 1));
            ix.remove(live[k].first);
            live.erase(live.begin() + std::ptrdiff_t(k));
        } else {
            const Rect q{pick(0, band * 8 + 8), pick(1, 9), pick(0, 48), pick(1, 16), false};
            lookup(q, Match(pick(0, 2)));
        }
        REQUIRE(ix.pool.size() == live.size());
    }
    for (const auto& lr : live)
        ix.remove(lr.first);
    CHECK(ix.index.buffer_count() == 0);
}

TEST_CASE("the index grows its bucket and buffer tables in place and stays exact", "[tensormap][index]") {
    // Far more entries and buffers than the initial tables hold: every growth relinks what is live.
    Index ix(1 << 15);
    std::vector<std::uint32_t> ids;
    for (std::int64_t v = 0; v < 20000; ++v)
        ids.push_back(ix.add(kBase + 64 * std::uintptr_t(v % 3000), v * 100, v * 100 + 99, v % 2 == 0));
    CHECK(ix.index.buffer_count() == 3000);
    for (std::int64_t v : {0, 1, 2999, 3000, 12345, 19999}) {
        std::uint64_t walked = 0;
        const std::uintptr_t base = kBase + 64 * std::uintptr_t(v % 3000);
        CHECK(ix.query(base, v * 100, v * 100 + 99, Match::Accesses, &walked) ==
              std::vector<std::uint32_t>{ids[std::size_t(v)]});
        CHECK(walked <= 8);
    }
    ix.index.reset();
    ix.pool.reset();
    CHECK(ix.index.buffer_count() == 0);
    CHECK(ix.query(kBase, 0, 1 << 30, Match::Accesses).empty());
    const std::uint32_t again = ix.add(kBase, 0, 9);
    CHECK(ix.query(kBase, 5, 5, Match::Writers) == std::vector<std::uint32_t>{again});
}

TEST_CASE("entries linked when a probe first needs them, while the table grows, stay exact",
          "[tensormap][index][extents]") {
    // 1000 indexed buffers of 20 interleaved writers and readers each: no entry is linked until a probe
    // of its kind; the probes below link them buffer by buffer, growing the bucket table several times
    // in between, and every lookup (before and after, with erases) matches brute force.
    Index ix(1 << 15);
    std::vector<std::uint32_t> live;
    auto base_of = [](std::int64_t v) { return kBase + 64 * std::uintptr_t(v % 1000); };
    for (std::int64_t v = 0; v < 20000; ++v)
        live.push_back(ix.add(base_of(v), v * 100, v * 100 + 99, v % 3 != 0));
    CHECK(ix.index.buffer_count() == 1000);
    for (std::int64_t b = 0; b < 1000; ++b) {
        // A write overlapping the middle third of the buffer's views (probes both kinds), then a read
        // of its first view (probes writers), then an erase.
        const std::int64_t mid = (b + 7000) * 100;
        ix.check_lookup(live, base_of(b), mid, mid + 5000 * 100, Match::Accesses,
                        [](std::uint32_t) { return false; });
        ix.check_lookup(live, base_of(b), b * 100, b * 100 + 50, Match::Writers,
                        [](std::uint32_t) { return false; });
        ix.remove(live[std::size_t(b)]);
        live[std::size_t(b)] = live.back();
        live.pop_back();
    }
    for (std::int64_t b = 0; b < 1000; b += 37)
        ix.check_lookup(live, base_of(b), 0, 20000 * 100, Match(b % 3),
                        [](std::uint32_t e) { return e % 5 == 0; });
    for (std::uint32_t e : live)
        ix.remove(e);
    CHECK(ix.index.buffer_count() == 0);
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

TEST_CASE("the entry pool moves a touched entry to the young end and reset frees every entry at once",
          "[tensormap][pool]") {
    EntryPool pool(64);
    const std::uint32_t a = pool.try_allocate();
    const std::uint32_t b = pool.try_allocate();
    const std::uint32_t c = pool.try_allocate();
    pool.touch(a);
    CHECK(pool.oldest() == b);
    CHECK(pool.younger(b) == c);
    CHECK(pool.younger(c) == a);
    CHECK(pool.younger(a) == kNoEntry);
    pool.touch(a);  // already the youngest
    CHECK(pool.younger(c) == a);
    pool.reset();
    CHECK(pool.size() == 0);
    CHECK(pool.oldest() == kNoEntry);
    std::vector<std::uint32_t> got;
    for (int i = 0; i < 64; ++i)
        got.push_back(pool.try_allocate());
    CHECK(pool.try_allocate() == kNoEntry);
    std::sort(got.begin(), got.end());
    CHECK(std::adjacent_find(got.begin(), got.end()) == got.end());
}
