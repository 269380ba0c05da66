// EntryPool: the bounded, preallocated store of tensormap entries (docs/design/tensormap.md), kept in
// insertion (age) order so the oldest entries, those of the first tasks to retire, are reclaimed first.
// RegionIndex indexes the same entries for lookup; TensorMap decides when an entry dies.
#pragma once

#include "view_shape.h"

#include <cstdint>
#include <memory>

namespace pto::detail {

/// The "no entry" index that ends every list.
inline constexpr std::uint32_t kNoEntry = 0xFFFFFFFFu;

/// Entry: one recorded access, holding exactly what a lookup reads for each candidate, in one cache line.
/// Bookkeeping links live in compact arrays (EntryPool's age list, RegionIndex's chains and buffer lists),
/// and the full shape, read only when the cheap tests below pass, in a parallel array.
struct alignas(64) Entry {
    std::uint64_t task;      ///< TaskId value of the accessing task
    std::uintptr_t base;     ///< buffer identity
    std::int64_t lo;         ///< shape.first: lowest element
    std::int64_t hi;         ///< shape.last: highest element
    RowWindow window;        ///< proves disjointness from tiles beside it without loading the shape
    std::uint8_t level;      ///< RegionIndex size class: the range spans at most 2 blocks of 2^level elements
    std::uint8_t col_level;  ///< RegionIndex column class of a grid entry: its window spans 2^col_level
    bool is_writer;          ///< written (Out/InOut) rather than read
    bool is_grid;            ///< RegionIndex keyed it by row band and column block too (its buffer's pitch)
    bool is_dense;           ///< its elements are every index in [lo, hi] (view_shape.h is_dense)
    /// Its shape is rows: rank 2, strides {1, window.pitch}, which lo, hi and window determine. Neither
    /// a dense nor a rows entry stores its shape (EntryPool::shape is left unwritten).
    bool is_rows;
    bool is_linked;  ///< RegionIndex registered it in its bucket chains (set while indexed)
};
static_assert(sizeof(Entry) == 64, "what a lookup reads of an entry fits one cache line");

/// EntryPool: room for `capacity` entries reserved at construction but initialised on first use, so
/// building a pool costs O(1) whatever its capacity (a never-used entry is never touched, and the memory
/// behind it is never faulted in). allocate, release and touch are O(1) and never allocate memory.
/// Allocated entries form an age list (oldest first); released ones a LIFO free list, so a just-released
/// (cache-warm) entry is the next one handed out, before any never-used one.
class EntryPool {
  public:
    explicit EntryPool(std::uint32_t capacity);

    /// try_allocate: a free entry, appended as the youngest; kNoEntry when all are in use. The caller fills
    /// the entry and its shape.
    [[nodiscard]] std::uint32_t try_allocate() {
        std::uint32_t e = free_head_;
        if (e != kNoEntry)
            free_head_ = ages_[e].next;
        else if (fresh_ < capacity_)
            e = fresh_++;
        else
            return kNoEntry;
        append(e);
        ++size_;
        return e;
    }
    /// release: returns an allocated entry to the free list.
    void release(std::uint32_t e);
    /// touch: moves allocated entry `e` to the young end, as if just allocated (an entry reused in place).
    void touch(std::uint32_t e);
    /// reset: releases every entry at once, O(1); indexes over the entries must be reset as well.
    void reset();

    [[nodiscard]] std::uint32_t oldest() const { return oldest_; }
    [[nodiscard]] std::uint32_t younger(std::uint32_t e) const { return ages_[e].next; }

    [[nodiscard]] Entry& entry(std::uint32_t e) { return entries_[e]; }
    [[nodiscard]] const Entry& entry(std::uint32_t e) const { return entries_[e]; }
    [[nodiscard]] ViewShape& shape(std::uint32_t e) { return shapes_[e]; }
    [[nodiscard]] const ViewShape& shape(std::uint32_t e) const { return shapes_[e]; }

    [[nodiscard]] std::uint32_t size() const { return size_; }
    [[nodiscard]] std::uint32_t capacity() const { return capacity_; }

  private:
    struct AgeLink {
        std::uint32_t prev;
        std::uint32_t next;  ///< also links the free list
    };

    void unlink(std::uint32_t e);
    void append(std::uint32_t e) {
        ages_[e] = AgeLink{youngest_, kNoEntry};
        if (youngest_ != kNoEntry)
            ages_[youngest_].next = e;
        else
            oldest_ = e;
        youngest_ = e;
    }

    std::uint32_t capacity_;
    std::unique_ptr<Entry[]> entries_;  // uninitialised until handed out
    std::unique_ptr<ViewShape[]> shapes_;
    std::unique_ptr<AgeLink[]> ages_;
    std::uint32_t free_head_ = kNoEntry;
    std::uint32_t fresh_ = 0;  ///< entries [fresh_, capacity_) were never handed out since the last reset
    std::uint32_t oldest_ = kNoEntry;
    std::uint32_t youngest_ = kNoEntry;
    std::uint32_t size_ = 0;
};

}  // namespace pto::detail
