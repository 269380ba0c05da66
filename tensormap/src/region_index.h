// RegionIndex: finds the tensormap entries whose linear element range meets a query range without walking
// every entry of the buffer (SPEC §4: hashing only the base makes a lookup O(views of the buffer)).
// Entries live in EntryPool; this class only indexes them by region and lists them per buffer.
#pragma once

#include "entry_pool.h"

#include <bit>
#include <cstdint>
#include <vector>

namespace pto::detail {

/// RegionIndex: a hash of (buffer, size class, block, reader/writer) -> chain of entries.
///
/// Size classes. An entry with linear range [lo, hi] belongs to class L = bit_width(hi - lo): its range
/// is at most 2^L elements long, so it spans at most two aligned blocks of 2^L elements, and it is chained
/// once, under its first block lo >> L. A query [qlo, qhi] meets every entry of class L by probing blocks
/// (qlo >> L) - 1 .. qhi >> L, for each class the buffer uses (a 64-bit mask per buffer and access kind).
/// A query of a view's size probes two or three blocks per class whatever the number of views in the
/// buffer, and every entry it examines starts within one block of the query, so the cost does not grow
/// with disjoint views elsewhere in the buffer. Classes adapt to mixed sizes (a whole-buffer write and
/// small tiles live in different classes), which one block size per buffer cannot.
///
/// Wide queries. A query much wider than a class's entries would probe many empty blocks; when the probe
/// count exceeds the buffer's entry count, the query walks the buffer's entry list instead, so a lookup
/// never costs more than min(probes, entries of the buffer). Reads and writes are keyed apart, so a read
/// query (which needs writers only) never examines the readers of a region.
///
/// Chains. The chain links and a 32-bit key fingerprint live in compact arrays indexed by entry, not in
/// the entries: a walk steps through a few kilobytes that stay in cache, and loads an entry only on a
/// fingerprint match, without the next step waiting for that load, so the misses of one walk overlap.
/// (Open addressing was tried: runs of same-block entries merged into long clusters and it measured
/// slower; see docs/design/tensormap.md.)
///
/// Sizing: 2 x capacity bucket heads (load factor <= 1/2), 20 bytes of links per entry, and capacity
/// buffer records (a record lives while its buffer has an entry). Nothing allocates after construction.
/// Single-threaded.
class RegionIndex {
  public:
    /// capacity: the EntryPool's capacity, a power of two.
    RegionIndex(EntryPool& pool, std::uint32_t capacity);
    RegionIndex(const RegionIndex&) = delete;
    RegionIndex& operator=(const RegionIndex&) = delete;

    /// insert: indexes allocated entry `e`, whose base, lo, hi and is_writer are set; sets its level.
    void insert(std::uint32_t e);
    /// erase: unindexes `e`; frees the buffer record with its last entry.
    void erase(std::uint32_t e);

    /// Which entries a query visits.
    enum class Match : std::uint8_t {
        Writers,    ///< writers whose range meets [lo, hi]
        Accesses,   ///< readers and writers whose range meets [lo, hi]
        Contained,  ///< readers and writers whose range lies inside [lo, hi]
    };

    /// for_each_candidate: calls visit(e) once for every entry of buffer `base` that `match` selects.
    /// visit may erase `e` and no other entry, and must not insert. lo and hi lie within ±kElementLimit.
    /// Contained entries are found cheaper: no larger size class than the query's, no preceding block.
    template <class Visit>
    void for_each_candidate(std::uintptr_t base, std::int64_t lo, std::int64_t hi, Match match,
                            Visit&& visit);

    /// entries_walked: chain and list entries examined by all queries so far (white-box cost measure).
    [[nodiscard]] std::uint64_t entries_walked() const { return entries_walked_; }
    /// buffer_count: buffers with at least one entry.
    [[nodiscard]] std::uint32_t buffer_count() const { return buffer_count_; }

  private:
    struct ChainLink {
        std::uint32_t next;  ///< next entry in the bucket chain
        std::uint32_t hash;  ///< the entry's key hash; its low bits name the bucket
    };
    struct BufferLink {
        std::uint32_t buffer;  ///< the buffer record, kNoEntry while the entry is not indexed
        std::uint32_t prev;
        std::uint32_t next;
    };
    struct Buffer {
        std::uintptr_t base;
        /// Size classes used by readers [0] and writers [1]. May keep a class whose entries all left
        /// (costing a few empty probes) until a list walk recomputes them or the buffer empties.
        std::uint64_t levels[2];
        std::uint32_t first_entry;
        std::uint32_t entry_count;
        std::uint32_t next;  ///< hash chain, or free list
    };

    [[nodiscard]] static std::uint32_t key_hash(std::uintptr_t base, int level, std::int64_t block,
                                                bool is_writer) {
        std::uint64_t h = static_cast<std::uint64_t>(base) * 0x9E3779B97F4A7C15ull;
        h ^= static_cast<std::uint64_t>(block) * 0xC2B2AE3D27D4EB4Full;
        h ^= static_cast<std::uint64_t>(level * 2 + (is_writer ? 1 : 0));
        h ^= h >> 31;
        h *= 0xD6E8FEB86659FD93ull;
        return static_cast<std::uint32_t>(h >> 32);
    }
    [[nodiscard]] std::uint32_t buffer_slot(std::uintptr_t base) const;
    [[nodiscard]] std::uint32_t find_buffer(std::uintptr_t base) const;
    [[nodiscard]] std::uint32_t acquire_buffer(std::uintptr_t base);
    void release_buffer(std::uint32_t b);
    [[nodiscard]] static bool probes_exceed(std::int64_t lo, std::int64_t hi, std::uint64_t writer_levels,
                                            std::uint64_t reader_levels, std::uint32_t limit);
    [[nodiscard]] static bool selects(const Entry& en, std::int64_t lo, std::int64_t hi, Match match) {
        if (match == Match::Contained) return en.lo >= lo && en.hi <= hi;
        return (match == Match::Accesses || en.is_writer) && en.lo <= hi && en.hi >= lo;
    }

    template <class Visit>
    void probe(std::uintptr_t base, std::int64_t lo, std::int64_t hi, std::uint64_t levels, bool is_writer,
               Match match, Visit& visit);
    template <class Visit>
    void walk_buffer(std::uint32_t b, std::int64_t lo, std::int64_t hi, Match match, Visit& visit);

    EntryPool& pool_;
    std::vector<std::uint32_t> heads_;  ///< per bucket
    std::uint32_t bucket_mask_;
    std::vector<ChainLink> chain_;           ///< per entry, read by every probe
    std::vector<std::uint32_t> chain_prev_;  ///< per entry, for O(1) erase
    std::vector<BufferLink> members_;        ///< per entry
    std::vector<Buffer> buffers_;
    std::vector<std::uint32_t> buffer_heads_;
    std::uint32_t buffer_mask_;
    std::uint32_t free_buffer_;
    std::uint32_t buffer_count_ = 0;
    std::uint64_t entries_walked_ = 0;
};

template <class Visit>
void RegionIndex::for_each_candidate(std::uintptr_t base, std::int64_t lo, std::int64_t hi, Match match,
                                     Visit&& visit) {
    const std::uint32_t b = find_buffer(base);
    if (b == kNoEntry) return;
    // Copied first: a visit may erase the buffer's last entry and so free its record.
    std::uint64_t writer_levels = buffers_[b].levels[1];
    std::uint64_t reader_levels = match == Match::Writers ? 0 : buffers_[b].levels[0];
    if (match == Match::Contained) {
        // A contained entry is no longer than the query, so its class is at most the query's.
        const int query_level = std::bit_width(static_cast<std::uint64_t>(hi - lo));
        const std::uint64_t classes =
            query_level >= 63 ? ~std::uint64_t{0} : (std::uint64_t{2} << query_level) - 1;
        writer_levels &= classes;
        reader_levels &= classes;
    }
    if (probes_exceed(lo, hi, writer_levels, reader_levels, buffers_[b].entry_count)) {
        walk_buffer(b, lo, hi, match, visit);
        return;
    }
    probe(base, lo, hi, writer_levels, true, match, visit);
    probe(base, lo, hi, reader_levels, false, match, visit);
}

template <class Visit>
void RegionIndex::probe(std::uintptr_t base, std::int64_t lo, std::int64_t hi, std::uint64_t levels,
                        bool is_writer, Match match, Visit& visit) {
    for (; levels != 0; levels &= levels - 1) {
        const int level = std::countr_zero(levels);
        const std::int64_t last_block = hi >> level;
        // An entry reaches at most one block past its own, so one meeting lo may start a block earlier;
        // a contained one starts at or after lo.
        const std::int64_t first_block = (lo >> level) - (match == Match::Contained ? 0 : 1);
        for (std::int64_t block = first_block; block <= last_block; ++block) {
            const std::uint32_t hash = key_hash(base, level, block, is_writer);
            for (std::uint32_t e = heads_[hash & bucket_mask_]; e != kNoEntry;) {
                const ChainLink link = chain_[e];  // read before visit(e), which may erase e
                ++entries_walked_;
                if (link.hash == hash) {
                    const Entry& en = pool_.entry(e);
                    if (en.base == base && en.level == level && en.is_writer == is_writer &&
                        (en.lo >> level) == block && selects(en, lo, hi, match))
                        visit(e);
                }
                e = link.next;
            }
        }
    }
}

template <class Visit>
void RegionIndex::walk_buffer(std::uint32_t b, std::int64_t lo, std::int64_t hi, Match match, Visit& visit) {
    // The walk sees every entry of the buffer, so it also recomputes the size-class masks exactly.
    std::uint64_t levels[2] = {0, 0};
    for (std::uint32_t e = buffers_[b].first_entry; e != kNoEntry;) {
        const std::uint32_t next = members_[e].next;  // read before visit(e), which may erase e
        const Entry& en = pool_.entry(e);
        ++entries_walked_;
        if (selects(en, lo, hi, match)) visit(e);
        if (members_[e].buffer == b) levels[en.is_writer ? 1 : 0] |= std::uint64_t{1} << en.level;
        e = next;
    }
    // No survivor means the visits erased the last entry and the record is already free.
    if ((levels[0] | levels[1]) != 0) {
        buffers_[b].levels[0] = levels[0];
        buffers_[b].levels[1] = levels[1];
    }
}

}  // namespace pto::detail
