// RegionIndex: finds the tensormap entries whose elements may meet a query without walking every entry of
// the buffer (docs/design/tensormap.md: hashing only the base makes a lookup O(views of the buffer)). Entries
// live in EntryPool; this class only indexes them by region and lists them per buffer.
#pragma once

#include "entry_pool.h"
#include "pto/runtime/detail/throw.h"

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstdint>
#include <cstdlib>
#include <memory>

namespace pto::detail {

/// RegionIndex: a hash of (buffer, size class, block, reader/writer[, column class, column block]) ->
/// chain of entries.
///
/// Size classes. An entry with linear range [lo, hi] belongs to class L = bit_width(hi - lo): its range
/// is at most 2^L elements long, so it spans at most two aligned blocks of 2^L elements, and it is chained
/// under its first block lo >> L. A query [qlo, qhi] meets every entry of class L by probing blocks
/// (qlo >> L) - 1 .. qhi >> L, for each class the buffer uses (64-bit masks per buffer and access kind).
/// A query of a view's size probes two or three blocks per class whatever the number of views in the
/// buffer, so the cost does not grow with disjoint views elsewhere in the buffer. Classes adapt to mixed
/// sizes (a whole-buffer write and small tiles live in different classes).
///
/// Grid entries. Tiles side by side in one band of rows have interleaved linear ranges, so they share
/// blocks. An entry with a row window (view_shape.h) that does not wrap, whose pitch is its buffer's grid
/// pitch (the pitch of the buffer's first such entry), is a grid entry: it is chained twice, once by its
/// linear block as above (apart from the other entries) and once by its linear block and its column block
/// phase >> C, C = bit_width(width) its column class. A query with a window of the same pitch (a grid
/// query) probes the column blocks (phase >> C) - 1 .. (phase + width) >> C of every column class the
/// buffer uses instead of the grid entries' linear chains, so it meets only the tiles in its own columns:
/// two shapes with one pitch share an element only if their linear ranges and their column windows meet.
/// Any other query (no window, another pitch) meets the grid entries through their linear chains.
///
/// Small buffers. Most buffers hold a handful of entries (the slices of one scope's scratch, a tile
/// written and read once). Registering each in the bucket chains costs a random bucket-head line per
/// record and per erase and a few per lookup, while all of a small buffer's entries can be checked from its
/// entry lists at the cost of their own lines. So a buffer is indexed (its entries registered in the
/// chains) only once it holds more than kSmallBuffer entries; until then queries walk its entry lists,
/// writers and readers apart. An indexed buffer stays indexed until its last entry leaves, but a query
/// that must consider at most kSmallBuffer of its entries (a read of a buffer with few writers and many
/// readers, such as a tile written once and read per row; a write once most entries retired) walks the
/// lists too. A lookup of a small buffer thus examines at most kSmallBuffer entries, and of an indexed
/// one what the probes below reach: neither grows with the number of live views of the buffer.
///
/// Extents. Before probing, an indexed buffer's Extents (per kind: where its entries can be, the current
/// band of rows of its grid entries, the latest writer) settle most lookups without a probe: a view past
/// or beside everything recorded, or a read that can meet only the latest writer. A read repeated with no
/// writer registered and no entry erased since walks the candidates it found last time (ReadMemo). So an
/// indexed buffer's entries join the bucket chains only when a probe of their kind first needs them.
///
/// Wide queries. A query much wider than a class's entries would probe many empty blocks; when the probe
/// count exceeds the buffer's entry count, the query walks the buffer's entry lists instead, so a lookup
/// never costs more than min(probes, entries of the buffer). Reads and writes are keyed apart, so a read
/// query (which needs writers only) never examines the readers of a region.
///
/// Chains. Each entry has two registrations, 2e (linear) and 2e + 1 (grid, used by grid entries only).
/// Chain links and a 32-bit key hash live in compact arrays indexed by registration: a walk steps through
/// a few kilobytes that stay in cache and loads an entry only on a hash match, without the next step
/// waiting for that load. (Open addressing measured slower; see docs/design/tensormap.md.)
///
/// Sizing and construction: room for 2 x capacity bucket heads, 24 bytes of links per entry, capacity
/// buffer records and heads, of which only as many heads as the live entries need are used (see heads_).
/// Bucket and buffer heads (0 means empty, so they store index + 1) are zeroed only as far as they are in
/// use (the first few kilobytes at construction, the rest as the used part grows); everything else is
/// initialised on first use, so construction costs O(1) beyond the allocator's and the memory of
/// never-used entries is never touched. Nothing allocates after construction. Single-threaded.
class RegionIndex {
  public:
    /// capacity: the EntryPool's capacity, a power of two.
    RegionIndex(EntryPool& pool, std::uint32_t capacity);
    RegionIndex(const RegionIndex&) = delete;
    RegionIndex& operator=(const RegionIndex&) = delete;

    /// BufferRef: which buffer record a base had (kNoEntry: none), and when, so that an access's lookup,
    /// superseding check and insert hash the base once. Records are acquired and released only with a
    /// buffer's first and last entry. A record keeps its base until it is released, so a found record
    /// stands while no record was released since (`epoch` counts releases). A missing one stands while no
    /// record was acquired for that base since (`epoch` counts acquisitions; the last few acquired bases
    /// are remembered, so the records a task's earlier accesses create do not make its later lookups of
    /// other fresh buffers stale).
    struct BufferRef {
        std::uint32_t buffer;
        std::uint64_t epoch;
    };
    /// find: the record of buffer `base` now (kNoEntry: it has no entry).
    [[nodiscard]] BufferRef find(std::uintptr_t base) const {
        const std::uint32_t b = find_buffer(base);
        return BufferRef{b, b == kNoEntry ? acquires_ : releases_};
    }
    /// is_current: whether `ref`, found for `base`, still names its record (or its absence).
    [[nodiscard]] bool is_current(const BufferRef& ref, std::uintptr_t base) const {
        if (ref.buffer != kNoEntry) return ref.epoch == releases_;
        const std::uint64_t since = acquires_ - ref.epoch;
        if (since > kRecentAcquires) return false;
        for (std::uint64_t i = ref.epoch; i != acquires_; ++i)
            if (recent_acquires_[i % kRecentAcquires] == base) return false;
        return true;
    }
    /// current: `ref` while it is current, else the record found anew.
    [[nodiscard]] BufferRef current(const BufferRef& ref, std::uintptr_t base) const {
        return is_current(ref, base) ? ref : find(base);
    }

    /// insert: indexes allocated entry `e`, whose base, lo, hi, window and is_writer are set; sets its
    /// level, col_level and is_grid. `ref` is a BufferRef of the entry's buffer that was current when the
    /// caller last checked, with no record acquired since (erasing entries may have released records: a
    /// released record is looked up anew).
    [[gnu::always_inline]] inline void insert(std::uint32_t e, BufferRef ref);
    void insert(std::uint32_t e) { insert(e, find(pool_.entry(e).base)); }
    /// erase: unindexes `e`; frees the buffer record with its last entry.
    void erase(std::uint32_t e);
    /// reset: unindexes every entry of the pool, which the caller resets next: O(entries), clearing only
    /// the heads they used.
    void reset();

    /// Which entries a query visits.
    enum class Match : std::uint8_t {
        Writers,    ///< writers that may meet the query
        Accesses,   ///< readers and writers that may meet the query
        Contained,  ///< readers and writers that may lie inside the query
    };

    /// for_each_candidate: calls visit(e) once for every entry of buffer `base` that `match` selects, for a
    /// query of linear range [lo, hi] and row window `window` (pitch 0: none):
    /// every entry whose linear range meets [lo, hi] (Contained: lies inside it), except grid entries whose
    /// column window provably misses a grid query's. May visit more (entries of nearby blocks are filtered
    /// by range only). visit may erase `e` and no other entry, and must not insert. lo and hi lie within
    /// ±kElementLimit.
    template <class Visit>
    void for_each_candidate(std::uintptr_t base, std::int64_t lo, std::int64_t hi, const RowWindow& window,
                            Match match, Visit&& visit);
    /// for_each_candidate on the buffer `ref` names, which must be current (is_current). Inline into the
    /// lookup: out of line, the static-tensormap graphs measured 2-3 % slower at tiers 2 and 4 (in time;
    /// their instruction counts differ by under 1 %).
    template <class Visit>
    [[gnu::always_inline]] inline void for_each_candidate(BufferRef ref, std::uintptr_t base, std::int64_t lo,
                                                          std::int64_t hi, const RowWindow& window,
                                                          Match match, Visit&& visit);

    /// A buffer with more entries than this is indexed by the bucket chains; below it, lookups walk the
    /// buffer's entry lists (at most this many entries, fewer for a read, which walks the writers only).
    static constexpr std::uint32_t kSmallBuffer = 8;

    /// insert_count: entries inserted so far (a clock for is_untouched_since).
    [[nodiscard]] std::uint64_t insert_count() const { return inserts_; }
    /// is_untouched_since: true if no entry was inserted into buffer `base` after insert_count() was
    /// `count` (removals do not count: they only shrink what a query can meet).
    [[nodiscard]] bool is_untouched_since(std::uintptr_t base, std::uint64_t count) const {
        const std::uint32_t b = find_buffer(base);
        return b == kNoEntry || buffers_[b].stamp <= count;
    }
    /// is_untouched_since for the buffer `ref` names (current).
    [[nodiscard]] bool is_untouched_since(BufferRef ref, std::uint64_t count) const {
        return ref.buffer == kNoEntry || buffers_[ref.buffer].stamp <= count;
    }

    static constexpr std::uint32_t kReadMemo = 256;  ///< a read meeting more candidates is not remembered
    static constexpr std::uint32_t kReadMemos = 4;   ///< read memos kept, one per buffer
    /// RememberedRead: a read memo (ReadMemo, below): its slot and its serial, new for each memo made, so
    /// what a caller keeps about a read under that serial holds as long as the memo does.
    struct RememberedRead {
        std::uint32_t slot;
        std::uint64_t serial;
    };
    /// A visit of a read may also answer for it from a memo: the index then calls recall(memo) before
    /// visiting the memo's candidates, which it skips if recall returns true (the visit reported, by
    /// other means, what visiting them would); and remember(memo) after a read that made or followed
    /// memo `memo` with no entry erased, so the visit can keep what it reported.
    template <class Visit>
    static constexpr bool kRecalls = requires(Visit& v, const RememberedRead& r) {
        { v.recall(r) } -> std::same_as<bool>;
        v.remember(r);
    };

    /// entries_walked: chain and list entries examined by all queries so far (white-box cost measure).
    [[nodiscard]] std::uint64_t entries_walked() const { return entries_walked_; }
    /// buffer_count: buffers with at least one entry.
    [[nodiscard]] std::uint32_t buffer_count() const { return buffer_count_; }

  private:
    /// A grid query probes column blocks while that costs at most this many probes more than the grid
    /// entries' linear chains: a probe of an empty block costs a few nanoseconds, an interleaved tile met
    /// on a linear chain about as much, and a band holds tens of tiles.
    static constexpr std::int64_t kGridProbeSlack = 16;
    /// Query: one for_each_candidate call's arguments, passed on to its helpers.
    struct Query {
        std::uintptr_t base;
        std::int64_t lo;
        std::int64_t hi;
        RowWindow window;
    };
    /// Chain tags: which registration of which entries a key names.
    enum Tag : std::uint32_t {
        kFlat = 0,  ///< linear registration of an entry that is not a grid entry
        kWide = 1,  ///< linear registration of a grid entry
        kGrid = 2,  ///< grid registration of a grid entry
    };
    struct ChainLink {
        std::uint32_t next;  ///< next registration + 1 in the bucket chain; 0 ends it
        std::uint32_t hash;  ///< the registration's key hash; its low bits name the bucket
    };
    struct BufferLink {
        std::uint32_t buffer;  ///< the buffer record, kNoEntry while the entry is not indexed
        std::uint32_t prev;
        std::uint32_t next;
    };
    /// Buffer: a buffer record, one cache line: a new buffer (most buffers of a scope's scratch) writes
    /// this line only; its grid fields, which only buffers with grid entries use, live in GridClasses.
    struct alignas(64) Buffer {
        std::uintptr_t base;
        /// Classes in use, [0] readers and [1] writers, of the entries that are not grid entries (grid
        /// entries' classes: GridClasses). A class whose entries all left may stay (costing a few empty
        /// probes) until a list walk recomputes the masks or the buffer empties.
        std::uint64_t flat[2];
        std::uint64_t stamp;           ///< insert_count() just after the buffer's latest insert
        std::uint32_t first_entry[2];  ///< entry lists, [0] readers and [1] writers
        std::uint32_t entry_count;
        std::uint32_t grid_count;
        /// Entries of an indexed buffer not yet in the bucket chains, [0] readers and [1] writers: the
        /// first unlinked[k] entries of list k (new entries go first). Most lookups of an indexed buffer
        /// are settled by its Extents (a read of the latest writer, a write past or beside everything),
        /// so entries are linked only when a probe of their kind needs them.
        std::uint32_t unlinked[2];
        std::uint32_t next;  ///< hash chain (record + 1, 0 ends it), or free list (record, kNoEntry ends it)
        /// Some grid entry starts in another column than the first: only then can column blocks tell
        /// entries apart (rows of heads all starting at column 0 share one), so only then do queries
        /// probe them. Set until the buffer has no grid entry left.
        bool is_mixed;
        /// Its entries are registered in the bucket chains (it held more than kSmallBuffer entries at
        /// some point since it was acquired); otherwise queries walk its entry lists.
        bool is_indexed;
        bool is_live;  ///< in use (not on the free list)
        /// The record's GridClasses are initialised: it had a grid entry since it was acquired.
        bool has_grid;
    };
    static_assert(sizeof(Buffer) == 64, "a buffer record is one cache line");
    /// GridClasses: the grid part of a buffer record, parallel to buffers_, valid while has_grid.
    struct GridClasses {
        std::uint64_t wide[2];  ///< linear classes of grid entries, [0] readers and [1] writers
        std::uint64_t cols[2];  ///< column classes of grid entries
        std::int64_t pitch;     ///< the grid entries' pitch; meaningful while grid_count > 0
        std::int64_t phase;     ///< the first grid entry's phase
    };
    /// Extent: where an indexed buffer's entries of one kind (readers or writers) can be, so that a query
    /// provably meeting none of them skips that kind's probes: a view written past everything recorded
    /// so far (the next row of a per-row buffer, the next tile) or beside everything recorded in its own
    /// band of rows (the next column chunk of a tile) costs no probe at all.
    ///
    /// Every entry of the kind lies in [lo, hi], and either ends at or before `before`, or is a grid entry
    /// of the current band: pitch band_pitch, its first element in the row starting at band_row0, its last
    /// in the row starting at band_row1, its columns ending at or before band_cols, its range at or before
    /// band_hi. So a query starting after `before` misses them all if it also starts after band_hi, or if
    /// it has a non-wrapping window of the band's pitch starting after band_cols (two such windows of one
    /// pitch that do not meet share no element). A grid entry in other rows than the band's starts a new
    /// band, folding the old one into `before`; any other entry only raises `before`. Entries leaving
    /// change nothing (what is left still satisfies this); a list walk recomputes lo and hi exactly and
    /// folds everything into `before`.
    struct Extent {
        std::int64_t lo;
        std::int64_t hi;
        std::int64_t before;
        std::int64_t band_pitch;
        std::int64_t band_row0;
        std::int64_t band_row1;
        std::int64_t band_cols;
        std::int64_t band_hi;  ///< -kElementLimit: no band

        /// reset: no entry, or (walk) entries spanning [span_lo, span_hi] and no band.
        void reset(std::int64_t span_lo = kElementLimit, std::int64_t span_hi = -kElementLimit) {
            lo = span_lo;
            hi = span_hi;
            before = span_hi;
            band_hi = -kElementLimit;
        }
        void add(const Entry& en) {
            lo = std::min(lo, en.lo);
            hi = std::max(hi, en.hi);
            if (!en.is_grid) {
                before = std::max(before, en.hi);
                return;
            }
            const RowWindow& w = en.window;
            const std::int64_t row0 = en.lo - w.phase;
            const std::int64_t row1 = en.hi - w.phase - w.width;
            if (band_hi != -kElementLimit && band_pitch == w.pitch && band_row0 == row0 &&
                band_row1 == row1) {
                band_cols = std::max(band_cols, w.phase + w.width);
                band_hi = std::max(band_hi, en.hi);
                return;
            }
            before = std::max(before, band_hi);
            band_pitch = w.pitch;
            band_row0 = row0;
            band_row1 = row1;
            band_cols = w.phase + w.width;
            band_hi = en.hi;
        }
        /// misses: whether the query provably meets no entry of this kind.
        [[nodiscard]] bool misses(std::int64_t qlo, std::int64_t qhi, const RowWindow& qw) const {
            if (qhi < lo || qlo > hi) return true;
            return qlo > before &&
                   (qlo > band_hi || (qw.pitch == band_pitch && fits_grid(qw) && qw.phase > band_cols));
        }
    };
    /// Extents: an indexed buffer's Extent per kind, [0] readers and [1] writers, parallel to buffers_ and
    /// valid while is_indexed (one line per kind; only indexed buffers, a few dozen, use them).
    ///
    /// Besides, the latest writer entry registered (`latest`, kNoEntry once it leaves or after a list
    /// walk) and the writers' Extent just before it (`others`: every other live writer entry satisfies
    /// it). A query that misses `others` (and, unless it reads, the readers' Extent) can meet no entry but
    /// `latest`, which it examines alone: a read of what the previous task wrote (scores after the
    /// matmul that wrote them, a tile after its norm) costs no probe either.
    struct Extents {
        Extent kind[2];
        Extent others;
        std::uint64_t writes;  ///< insert_count() just after the latest writer registered
        std::uint32_t latest;
        std::uint32_t writer_count;  ///< the buffer's writer entries: few, and a read walks their list
    };
    static_assert(sizeof(Extent) == 64 && sizeof(Extents) == 208, "an Extent per line; docs count 208 bytes");
    struct FreeDeleter {
        void operator()(void* p) const { std::free(p); }
    };
    template <class T>
    using HeadArray = std::unique_ptr<T[], FreeDeleter>;

    /// family_hash: the hash of everything in a key but the blocks. A registration's hash adds its block
    /// (and column block) to it, so the consecutive blocks one probe visits sit in consecutive buckets:
    /// a probe of several blocks reads one or two cache lines of heads, not one random line per block
    /// (a fan-in read of 16 rows missed the cache on each; perf).
    [[nodiscard]] static std::uint32_t family_hash(std::uintptr_t base, int level, bool is_writer, Tag tag,
                                                   int col_level) {
        std::uint64_t h = static_cast<std::uint64_t>(base) * 0x9E3779B97F4A7C15ull;
        h ^= (static_cast<std::uint64_t>(level) * 256 + static_cast<std::uint64_t>(col_level) * 4 +
              static_cast<std::uint64_t>(tag) * 2 + (is_writer ? 1u : 0u)) *
             0xC2B2AE3D27D4EB4Full;
        h ^= h >> 31;
        h *= 0xD6E8FEB86659FD93ull;
        return static_cast<std::uint32_t>(h >> 32);
    }
    [[nodiscard]] static std::uint32_t block_hash(std::uint32_t family, std::int64_t block) {
        return family + static_cast<std::uint32_t>(block);
    }
    /// grid_hash: columns of one row block adjacent; row blocks spread by an odd multiplier.
    [[nodiscard]] static std::uint32_t grid_hash(std::uint32_t family, std::int64_t block, std::int64_t col) {
        return family + static_cast<std::uint32_t>(col) + static_cast<std::uint32_t>(block) * 0x9E3779B1u;
    }
    /// fits_grid: whether a window has a pitch and does not wrap, so its columns are one interval.
    [[nodiscard]] static bool fits_grid(const RowWindow& w) {
        return w.pitch != 0 && w.phase + w.width < w.pitch;
    }
    [[nodiscard]] std::uint32_t buffer_slot(std::uintptr_t base) const;
    [[nodiscard]] std::uint32_t find_buffer(std::uintptr_t base) const;
    [[nodiscard]] std::uint32_t acquire_buffer(std::uintptr_t base, BufferRef ref);
    void release_buffer(std::uint32_t b);
    void link(std::uint32_t reg, std::uint32_t hash);
    /// register_entry: notes entry `e` (its key fields set) in its indexed buffer's Extents and as
    /// waiting to be linked. Inlined into insert, where every entry of an indexed buffer registers.
    [[gnu::always_inline]] inline void register_entry(std::uint32_t e);
    /// link_entry: links entry `e`'s registrations in the bucket chains.
    [[gnu::always_inline]] inline void link_entry(std::uint32_t e);
    /// link_pending: links the entries of kind `k` of indexed buffer `b` that wait for it
    /// (Buffer::unlinked).
    void link_pending(std::uint32_t b, int k);
    /// index_buffer: registers every entry of small buffer `b`, which becomes indexed.
    void index_buffer(std::uint32_t b);
    void grow_if_crowded();
    void unlink(std::uint32_t reg);
    void grow_buckets();
    void grow_buffer_slots();
    /// blocks: how many blocks a probe of `levels` visits for [lo, hi] (extra: 2 for meeting, 1 for
    /// contained), or a value above `limit` once the count exceeds `limit` (so sums cannot overflow).
    [[nodiscard]] static std::int64_t blocks(std::int64_t lo, std::int64_t hi, std::uint64_t levels,
                                             std::int64_t extra, std::int64_t limit) {
        std::int64_t n = 0;
        for (; levels != 0; levels &= levels - 1) {
            const int level = std::countr_zero(levels);
            n += (hi >> level) - (lo >> level) + extra;
            if (n > limit) return limit + 1;
        }
        return n;
    }
    /// grid_probes: the probes of a grid query over `levels` x `cols`, or a value above `limit`.
    [[nodiscard]] static std::int64_t grid_probes(const Query& q, std::uint64_t levels, std::uint64_t cols,
                                                  std::int64_t extra, std::int64_t limit) {
        if (levels == 0 || cols == 0) return 0;
        const std::int64_t per_block =
            blocks(q.window.phase, q.window.phase + q.window.width, cols, extra, limit);
        const std::int64_t rows = blocks(q.lo, q.hi, levels, extra, limit);
        return per_block > limit || rows > limit ? limit + 1 : per_block * rows;  // each <= 2^26
    }
    [[nodiscard]] static bool selects(const Entry& en, std::int64_t lo, std::int64_t hi, Match match) {
        if (match == Match::Contained) return en.lo >= lo && en.hi <= hi;
        return (match == Match::Accesses || en.is_writer) && en.lo <= hi && en.hi >= lo;
    }

    template <class Visit>
    void probe(const Query& q, std::uint64_t levels, bool is_writer, Tag tag, Match match, Visit& visit);
    template <class Visit>
    void probe_grid(const Query& q, std::uint64_t levels, std::uint64_t cols, bool is_writer, Match match,
                    Visit& visit);
    /// Key: the fields a registration's key hash stands for, confirmed on every hash match.
    struct Key {
        std::int64_t block;
        std::int64_t col;  ///< kGrid only
        int level;
        int col_level;  ///< kGrid only
        bool is_writer;
        Tag tag;
    };
    [[nodiscard]] static bool names(const Entry& en, std::uintptr_t base, const Key& k) {
        return en.base == base && en.level == k.level && en.is_writer == k.is_writer &&
               (en.lo >> k.level) == k.block && en.is_grid == (k.tag != kFlat) &&
               (k.tag != kGrid || (en.col_level == k.col_level && (en.window.phase >> k.col_level) == k.col));
    }
    template <class Visit>
    std::uint64_t walk_chain(std::uint32_t hash, const Key& key, const Query& q, Match match, Visit& visit,
                             std::uint64_t walked);
    template <class Visit>
    void walk_buffer(std::uint32_t b, std::int64_t lo, std::int64_t hi, Match match, Visit& visit);
    /// probe_indexed: for_each_candidate on indexed buffer `b`. Inline: what the Extents settle (nothing
    /// near, or only the latest writer: most lookups of an indexed buffer) costs no call.
    template <class Visit>
    [[gnu::always_inline]] inline void probe_indexed(std::uint32_t b, const Query& q, Match match,
                                                     Visit& visit);
    /// probe_near: the rest of probe_indexed, for a query near entries of the kinds near_w and near_r
    /// select; out of line, so the lookup that inlines probe_indexed stays small.
    template <class Visit>
    [[gnu::noinline]] void probe_near(std::uint32_t b, const Query& q, Match match, std::uint64_t near_w,
                                      std::uint64_t near_r, Visit& visit);
    /// probe_all: probe_indexed's probes (or list walk) over the classes of the kinds selected by
    /// near_w and near_r (all bits or none).
    template <class Visit>
    void probe_all(std::uint32_t b, const Query& q, Match match, std::uint64_t near_w, std::uint64_t near_r,
                   Visit& visit);
    /// walk_small: visits the candidates on the buffer's entry lists (writers only for a read). Inline in
    /// both callers: for_each_candidate walks most buffers this way.
    template <class Visit>
    [[gnu::always_inline]] inline void walk_small(std::uint32_t b, std::int64_t lo, std::int64_t hi,
                                                  Match match, Visit& visit);

    EntryPool& pool_;
    /// Bucket heads: first registration + 1. Allocated for the most registrations the pool allows, but
    /// only the first bucket_mask_ + 1 are used, grown fourfold (rehashing in place) when registrations
    /// exceed half of them: a small map's heads stay in cache instead of being spread over the whole
    /// array (a random line per probe measured as the main cost of lookups in the Qwen3 tier-4 trace).
    /// The size is kept across clear(), so a repeated graph grows it once.
    HeadArray<std::uint32_t> heads_;
    std::uint32_t bucket_mask_;
    std::uint32_t max_buckets_;
    std::uint32_t registrations_ = 0;
    std::unique_ptr<ChainLink[]> chain_;  ///< per registration, read by every probe
    std::unique_ptr<std::uint32_t[]>
        chain_prev_;                         ///< per registration: previous registration + 1, 0 at the head
    std::unique_ptr<BufferLink[]> members_;  ///< per entry
    std::unique_ptr<Buffer[]> buffers_;
    std::unique_ptr<GridClasses[]> grids_;   ///< per buffer record
    std::unique_ptr<Extents[]> extents_;     ///< per buffer record
    HeadArray<std::uint32_t> buffer_heads_;  ///< per slot: first record + 1; grown like heads_
    std::uint32_t buffer_mask_;
    std::uint32_t max_buffer_slots_;
    std::uint32_t free_buffer_ = kNoEntry;
    std::uint32_t fresh_buffer_ =
        0;  ///< records [fresh_buffer_, capacity) were never used since the last reset
    std::uint32_t buffer_count_ = 0;
    std::uint64_t entries_walked_ = 0;
    std::uint64_t inserts_ = 0;
    std::uint64_t acquires_ = 0;  ///< records acquired so far (BufferRef::epoch of a missing record)
    std::uint64_t releases_ = 0;  ///< records released so far, and resets (BufferRef::epoch of a record)
    static constexpr std::uint64_t kRecentAcquires = 8;
    std::uintptr_t recent_acquires_[kRecentAcquires] = {};  ///< base of acquisition i at i % kRecentAcquires
    std::uint64_t erases_ = 0;  ///< entries erased so far, and resets: a clock for the read memo
    /// ReadMemo: a probed read (Match::Writers of an indexed buffer) and how many candidates it visited
    /// (their ids in memo_ids_), valid while buffer != kNoEntry, no entry was erased since (so every id
    /// still names the same entry) and no writer of the buffer was registered since (so no candidate is
    /// missing). Many tasks reading one tile (projections of a normed tile, every output chunk reading
    /// the whole attention tile) then probe once and walk the list. The latest probed read of each of a
    /// few buffers is kept (a new buffer takes the slots in turn), so tasks that read two tiles in turn
    /// (a down projection reading the activation tile, the residual beside it reading its chunk of
    /// another buffer) do not evict each other's.
    struct ReadMemo {
        std::uint32_t buffer = kNoEntry;
        std::uint32_t count = 0;
        std::uint64_t writes = 0;
        std::uint64_t erases = 0;
        std::int64_t lo = 0;
        std::int64_t hi = 0;
        std::int64_t pitch = 0;
        std::int64_t phase = 0;
        std::int64_t width = 0;
        std::uint64_t serial = 0;  ///< RememberedRead::serial
    };
    ReadMemo memos_[kReadMemos];
    std::uint32_t memo_victim_ = 0;   ///< the memo a read of another buffer fills next (round robin)
    std::uint64_t memo_serials_ = 0;  ///< memos made so far
    std::unique_ptr<std::uint32_t[]> memo_ids_;  ///< kReadMemo ids per memo, memo k's at k * kReadMemo
    /// The record find_buffer returned last (kNoEntry: none), so an access's lookup, its superseding pass
    /// and its insert hash the base once; reset when the record is freed.
    mutable std::uintptr_t last_base_ = 0;
    mutable std::uint32_t last_buffer_ = kNoEntry;
};

inline std::uint32_t RegionIndex::buffer_slot(std::uintptr_t base) const {
    std::uint64_t h = static_cast<std::uint64_t>(base);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return static_cast<std::uint32_t>(h) & buffer_mask_;
}

inline std::uint32_t RegionIndex::find_buffer(std::uintptr_t base) const {
    if (base == last_base_ && last_buffer_ != kNoEntry) return last_buffer_;
    std::uint32_t r = buffer_heads_[buffer_slot(base)];
    while (r != 0 && buffers_[r - 1].base != base)
        r = buffers_[r - 1].next;
    if (r == 0) return kNoEntry;
    last_base_ = base;
    last_buffer_ = r - 1;
    return r - 1;
}

inline void RegionIndex::register_entry(std::uint32_t e) {
    Entry& en = pool_.entry(e);
    en.is_linked = false;
    Extents& x = extents_[members_[e].buffer];
    if (en.is_writer) {
        x.others = x.kind[1];
        x.latest = e;
        x.writes = inserts_;
        ++x.writer_count;
    }
    x.kind[en.is_writer ? 1 : 0].add(en);
    ++buffers_[members_[e].buffer].unlinked[en.is_writer ? 1 : 0];
}

inline void RegionIndex::insert(std::uint32_t e, BufferRef ref) {
    Entry& en = pool_.entry(e);
    const int level = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(en.hi - en.lo)));
    const int k = en.is_writer ? 1 : 0;
    en.level = static_cast<std::uint8_t>(level);

    const std::uint32_t b =
        ref.buffer != kNoEntry && ref.epoch == releases_ ? ref.buffer : acquire_buffer(en.base, ref);
    Buffer& rec = buffers_[b];
    en.col_level = 0;
    en.is_grid = fits_grid(en.window) && (rec.grid_count == 0 || grids_[b].pitch == en.window.pitch);
    if (en.is_grid) {
        GridClasses& g = grids_[b];
        if (!rec.has_grid) {
            g.wide[0] = g.wide[1] = 0;
            g.cols[0] = g.cols[1] = 0;
            rec.has_grid = true;
        }
        if (rec.grid_count++ == 0) {
            g.pitch = en.window.pitch;
            g.phase = en.window.phase;
            rec.is_mixed = false;
        } else if (en.window.phase != g.phase) {
            rec.is_mixed = true;
        }
        en.col_level = static_cast<std::uint8_t>(std::bit_width(static_cast<std::uint64_t>(en.window.width)));
        g.wide[k] |= std::uint64_t{1} << level;
        g.cols[k] |= std::uint64_t{1} << en.col_level;
    } else {
        rec.flat[k] |= std::uint64_t{1} << level;
    }
    rec.stamp = ++inserts_;
    std::uint32_t& first = rec.first_entry[k];
    members_[e] = BufferLink{b, kNoEntry, first};
    if (first != kNoEntry) members_[first].prev = e;
    first = e;
    ++rec.entry_count;

    // Nothing is linked here (see Buffer::unlinked), so the bucket table grows in link_pending.
    if (rec.is_indexed)
        register_entry(e);
    else if (rec.entry_count > kSmallBuffer) [[unlikely]]
        index_buffer(b);
}

template <class Visit>
void RegionIndex::for_each_candidate(std::uintptr_t base, std::int64_t lo, std::int64_t hi,
                                     const RowWindow& window, Match match, Visit&& visit) {
    for_each_candidate(find(base), base, lo, hi, window, match, visit);
}

template <class Visit>
void RegionIndex::for_each_candidate(BufferRef ref, std::uintptr_t base, std::int64_t lo, std::int64_t hi,
                                     const RowWindow& window, Match match, Visit&& visit) {
    PTO_ASSERT(is_current(ref, base), "a stale BufferRef");
    const std::uint32_t b = ref.buffer;
    if (b == kNoEntry) return;
    const Buffer& rec = buffers_[b];
    // Nothing to meet: a read of a buffer no entry writes (an input every task reads).
    if (match == Match::Writers && rec.first_entry[1] == kNoEntry) return;
    if (!rec.is_indexed) {
        walk_small(b, lo, hi, match, visit);
        return;
    }
    probe_indexed(b, Query{base, lo, hi, window}, match, visit);
}

template <class Visit>
void RegionIndex::probe_indexed(std::uint32_t b, const Query& q, Match match, Visit& visit) {
    const std::uint64_t kinds = match == Match::Writers ? 0 : ~std::uint64_t{0};  // readers too?
    // A kind whose span the query misses has no candidate.
    const Extents& x = extents_[b];
    const std::uint64_t near_w = x.kind[1].misses(q.lo, q.hi, q.window) ? 0 : ~std::uint64_t{0};
    const std::uint64_t near_r =
        match == Match::Writers || x.kind[0].misses(q.lo, q.hi, q.window) ? 0 : kinds;
    if ((near_w | near_r) == 0) return;
    if (near_r == 0 && x.latest != kNoEntry && x.others.misses(q.lo, q.hi, q.window)) {
        const std::uint32_t e = x.latest;
        ++entries_walked_;
        if (selects(pool_.entry(e), q.lo, q.hi, match)) visit(e);
        return;
    }
    probe_near(b, q, match, near_w, near_r, visit);
}

template <class Visit>
void RegionIndex::probe_near(std::uint32_t b, const Query& q, Match match, std::uint64_t near_w,
                             std::uint64_t near_r, Visit& visit) {
    const Extents& x = extents_[b];
    // The entries the query must consider (a read: the writers; otherwise all) are few: walked as a small
    // buffer's are, without a probe. A buffer written once per tile and read once per row has many
    // readers but few writers, and an indexed buffer stays indexed while its entries retire.
    if ((match == Match::Writers ? x.writer_count : buffers_[b].entry_count) <= kSmallBuffer) {
        walk_small(b, q.lo, q.hi, match, visit);
        return;
    }
    if (match != Match::Writers) {
        probe_all(b, q, match, near_w, near_r, visit);
        return;
    }
    // A read of the same view as the buffer's previous probed read, with no writer of the buffer
    // registered and no entry erased anywhere since, has the same candidates: the entries it visited,
    // still live.
    std::uint32_t k = 0;
    while (k < kReadMemos && memos_[k].buffer != b)
        ++k;
    const bool found = k < kReadMemos;
    if (!found) k = memo_victim_++ % kReadMemos;  // the buffer's memo, or the next slot in turn
    ReadMemo& m = memos_[k];
    std::uint32_t* const ids = memo_ids_.get() + k * kReadMemo;
    if (found && m.erases == erases_ && m.writes == x.writes && m.lo == q.lo && m.hi == q.hi &&
        m.pitch == q.window.pitch && m.phase == q.window.phase && m.width == q.window.width) {
        const RememberedRead memo{k, m.serial};
        if constexpr (kRecalls<Visit>)
            if (visit.recall(memo)) return;
        const std::uint32_t n = m.count;
        entries_walked_ += n;
        const std::uint64_t erases = erases_;
        for (std::uint32_t i = 0; i < n; ++i)
            visit(ids[i]);  // may erase that entry only: the others stay live
        if constexpr (kRecalls<Visit>)
            if (erases == erases_) visit.remember(memo);
        return;
    }
    m.buffer = kNoEntry;
    const std::uint64_t erases = erases_;
    std::uint32_t n = 0;
    bool overflow = false;
    auto remember = [&](std::uint32_t e) {
        if (n < kReadMemo)
            ids[n++] = e;
        else
            overflow = true;
        visit(e);
    };
    probe_all(b, q, match, near_w, near_r, remember);
    if (overflow || erases != erases_) return;  // an erase may have freed the record too
    m = ReadMemo{b,
                 n,
                 extents_[b].writes,
                 erases,
                 q.lo,
                 q.hi,
                 q.window.pitch,
                 q.window.phase,
                 q.window.width,
                 ++memo_serials_};
    if constexpr (kRecalls<Visit>) visit.remember(RememberedRead{k, m.serial});
}

template <class Visit>
void RegionIndex::probe_all(std::uint32_t b, const Query& q, Match match, std::uint64_t near_w,
                            std::uint64_t near_r, Visit& visit) {
    if (near_w != 0 && buffers_[b].unlinked[1] != 0) link_pending(b, 1);
    if (near_r != 0 && buffers_[b].unlinked[0] != 0) link_pending(b, 0);
    // Copied first: a visit may erase the buffer's last entry and so free its record. Scalars, not
    // arrays: a small array written and read back at once compiled to vector loads that stalled on
    // store forwarding (perf, chain of 2048 inout tasks).
    const Buffer& rec = buffers_[b];
    const GridClasses& g = grids_[b];
    const bool has_grid = rec.has_grid;
    const bool is_grid =
        rec.grid_count != 0 && rec.is_mixed && q.window.pitch == g.pitch && fits_grid(q.window);
    const bool is_contained = match == Match::Contained;
    std::uint64_t flat_w = rec.flat[1] & near_w;
    std::uint64_t flat_r = rec.flat[0] & near_r;
    std::uint64_t wide_w = has_grid ? g.wide[1] & near_w : 0;
    std::uint64_t wide_r = has_grid ? g.wide[0] & near_r : 0;
    std::uint64_t cols_w = is_grid ? g.cols[1] & near_w : 0;
    std::uint64_t cols_r = is_grid ? g.cols[0] & near_r : 0;
    const std::int64_t limit = rec.entry_count;
    if (is_contained) {
        // A contained entry is no longer than the query, so its class is at most the query's; a contained
        // grid entry's columns lie inside a grid query's, so its column class is at most the query's too.
        const int query_level = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(q.hi - q.lo)));
        const std::uint64_t classes =
            query_level >= 63 ? ~std::uint64_t{0} : (std::uint64_t{2} << query_level) - 1;
        const std::uint64_t col_classes =
            (std::uint64_t{2} << std::bit_width(static_cast<std::uint64_t>(q.window.width))) - 1;
        flat_w &= classes;
        flat_r &= classes;
        wide_w &= classes;
        wide_r &= classes;
        cols_w &= col_classes;
        cols_r &= col_classes;
    }
    const std::int64_t extra = is_contained ? 1 : 2;
    std::int64_t probes = blocks(q.lo, q.hi, flat_w, extra, limit) + blocks(q.lo, q.hi, flat_r, extra, limit);
    // Grid entries are reachable both ways. Column blocks pay off for queries about as wide as the tiles;
    // a query spanning many more columns than the entries (a whole context of a cache written one
    // position at a time) would probe thousands of empty column blocks, so it takes the linear chains.
    const std::int64_t linear =
        blocks(q.lo, q.hi, wide_w, extra, limit) + blocks(q.lo, q.hi, wide_r, extra, limit);
    bool use_grid = false;
    if (is_grid) {
        const std::int64_t grid =
            grid_probes(q, wide_w, cols_w, extra, limit) + grid_probes(q, wide_r, cols_r, extra, limit);
        use_grid = grid <= linear + kGridProbeSlack;
        probes += use_grid ? grid : linear;
    } else {
        probes += linear;
    }
    if (probes > limit) {
        walk_buffer(b, q.lo, q.hi, match, visit);
        return;
    }
    probe(q, flat_w, true, kFlat, match, visit);
    probe(q, flat_r, false, kFlat, match, visit);
    if (use_grid) {
        probe_grid(q, wide_w, cols_w, true, match, visit);
        probe_grid(q, wide_r, cols_r, false, match, visit);
    } else {
        probe(q, wide_w, true, kWide, match, visit);
        probe(q, wide_r, false, kWide, match, visit);
    }
}

template <class Visit>
std::uint64_t RegionIndex::walk_chain(std::uint32_t hash, const Key& key, const Query& q, Match match,
                                      Visit& visit, std::uint64_t walked) {
    const std::uint32_t parity = key.tag == kGrid ? 1u : 0u;
    for (std::uint32_t r = heads_[hash & bucket_mask_]; r != 0;) {
        const std::uint32_t reg = r - 1;
        const ChainLink link = chain_[reg];  // read before visit(e), which may erase e
        ++walked;
        // The parity check comes first: an erased entry's other registration may be the next one in this
        // chain; it is skipped here (its link still leads on) and never visited twice.
        if (link.hash == hash && (reg & 1) == parity) {
            const std::uint32_t e = reg >> 1;
            const Entry& en = pool_.entry(e);
            // The hash names a key; the fields confirm it, so no entry is visited from a colliding key.
            if (names(en, q.base, key) && selects(en, q.lo, q.hi, match)) visit(e);
        }
        r = link.next;
    }
    return walked;
}

template <class Visit>
void RegionIndex::probe(const Query& q, std::uint64_t levels, bool is_writer, Tag tag, Match match,
                        Visit& visit) {
    std::uint64_t walked = 0;
    for (; levels != 0; levels &= levels - 1) {
        const int level = std::countr_zero(levels);
        const std::int64_t last_block = q.hi >> level;
        // An entry reaches at most one block past its own, so one meeting lo may start a block earlier;
        // a contained one starts at or after lo.
        const std::int64_t first_block = (q.lo >> level) - (match == Match::Contained ? 0 : 1);
        const std::uint32_t family = family_hash(q.base, level, is_writer, tag, 0);
        for (std::int64_t block = first_block; block <= last_block; ++block)
            walked = walk_chain(block_hash(family, block), Key{block, 0, level, 0, is_writer, tag}, q, match,
                                visit, walked);
    }
    entries_walked_ += walked;
}

template <class Visit>
void RegionIndex::probe_grid(const Query& q, std::uint64_t levels, std::uint64_t cols, bool is_writer,
                             Match match, Visit& visit) {
    if (cols == 0) return;
    std::uint64_t walked = 0;
    const std::int64_t col_lo = q.window.phase;
    const std::int64_t col_hi = q.window.phase + q.window.width;
    const std::int64_t back = match == Match::Contained ? 0 : 1;
    for (; levels != 0; levels &= levels - 1) {
        const int level = std::countr_zero(levels);
        const std::int64_t last_block = q.hi >> level;
        for (std::uint64_t c = cols; c != 0; c &= c - 1) {
            const int col_level = std::countr_zero(c);
            const std::int64_t last_col = col_hi >> col_level;
            const std::uint32_t family = family_hash(q.base, level, is_writer, kGrid, col_level);
            for (std::int64_t block = (q.lo >> level) - back; block <= last_block; ++block) {
                for (std::int64_t col = (col_lo >> col_level) - back; col <= last_col; ++col)
                    walked = walk_chain(grid_hash(family, block, col),
                                        Key{block, col, level, col_level, is_writer, kGrid}, q, match, visit,
                                        walked);
            }
        }
    }
    entries_walked_ += walked;
}

template <class Visit>
void RegionIndex::walk_buffer(std::uint32_t b, std::int64_t lo, std::int64_t hi, Match match, Visit& visit) {
    // The walk sees every entry of the buffer, so it also recomputes the class masks exactly (in scalars:
    // see for_each_candidate).
    std::uint64_t flat_r = 0, flat_w = 0, wide_r = 0, wide_w = 0, cols_r = 0, cols_w = 0;
    std::int64_t lo_r = kElementLimit, lo_w = kElementLimit, hi_r = -kElementLimit, hi_w = -kElementLimit;
    // Both heads first: a visit may erase the last entry and free the record, never an entry of the other
    // list.
    const std::uint32_t heads[2] = {buffers_[b].first_entry[0], buffers_[b].first_entry[1]};
    for (const std::uint32_t head : heads) {
        for (std::uint32_t e = head; e != kNoEntry;) {
            const std::uint32_t next = members_[e].next;  // read before visit(e), which may erase e
            const Entry& en = pool_.entry(e);
            ++entries_walked_;
            if (selects(en, lo, hi, match)) visit(e);
            if (members_[e].buffer == b) {
                const std::uint64_t level = std::uint64_t{1} << en.level;
                const std::uint64_t col_level = std::uint64_t{1} << en.col_level;
                if (en.is_grid) {
                    (en.is_writer ? wide_w : wide_r) |= level;
                    (en.is_writer ? cols_w : cols_r) |= col_level;
                } else {
                    (en.is_writer ? flat_w : flat_r) |= level;
                }
                std::int64_t& span_lo = en.is_writer ? lo_w : lo_r;
                std::int64_t& span_hi = en.is_writer ? hi_w : hi_r;
                span_lo = std::min(span_lo, en.lo);
                span_hi = std::max(span_hi, en.hi);
            }
            e = next;
        }
    }
    // No survivor means the visits erased the last entry and the record is already free.
    if ((flat_r | flat_w | wide_r | wide_w) != 0) {
        Buffer& rec = buffers_[b];
        rec.flat[0] = flat_r;
        rec.flat[1] = flat_w;
        Extents& x = extents_[b];
        x.kind[0].reset(lo_r, hi_r);
        x.kind[1].reset(lo_w, hi_w);
        x.latest = kNoEntry;
        if (rec.has_grid) {
            GridClasses& g = grids_[b];
            g.wide[0] = wide_r;
            g.wide[1] = wide_w;
            g.cols[0] = cols_r;
            g.cols[1] = cols_w;
        }
    }
}

template <class Visit>
void RegionIndex::walk_small(std::uint32_t b, std::int64_t lo, std::int64_t hi, Match match, Visit& visit) {
    // Both heads first, as in walk_buffer; a read needs the writers only.
    const std::uint32_t heads[2] = {buffers_[b].first_entry[1],
                                    match == Match::Writers ? kNoEntry : buffers_[b].first_entry[0]};
    std::uint64_t walked = 0;
    for (const std::uint32_t head : heads) {
        for (std::uint32_t e = head; e != kNoEntry;) {
            const std::uint32_t next = members_[e].next;  // read before visit(e), which may erase e
            ++walked;
            if (selects(pool_.entry(e), lo, hi, match)) visit(e);
            e = next;
        }
    }
    entries_walked_ += walked;
}

}  // namespace pto::detail
