// EntryPool: the bounded, preallocated store of tensormap entries (SPEC §4), kept in insertion (age) order so
// the oldest entries, those of the first tasks to retire, are reclaimed first. RegionIndex indexes the same
// entries for lookup; TensorMap decides when an entry dies.
#pragma once

#include "view_shape.h"

#include <cstdint>
#include <vector>

namespace pto::detail {

/// The "no entry" index that ends every chain and list.
inline constexpr std::uint32_t kNoEntry = 0xFFFFFFFFu;

/// Entry: one recorded access, holding exactly what a lookup reads for each candidate, in one cache line.
/// Bookkeeping links live in compact arrays (EntryPool's age list, RegionIndex's chains and buffer lists),
/// and the full shape, read only when the cheap tests below pass, in a parallel array.
struct Entry {
    std::uint64_t task;   ///< TaskId value of the accessing task
    std::uintptr_t base;  ///< buffer identity
    std::int64_t lo;      ///< shape.first: lowest element
    std::int64_t hi;      ///< shape.last: highest element
    RowWindow window;     ///< proves disjointness from tiles beside it without loading the shape
    std::uint8_t level;   ///< RegionIndex size class: the range spans at most 2 blocks of 2^level elements
    bool is_writer;       ///< written (Out/InOut) rather than read
};
static_assert(sizeof(Entry) <= 64, "what a lookup reads of an entry fits one cache line");

/// EntryPool: `capacity` entries allocated at construction; allocate and release are O(1) and never
/// allocate memory. Allocated entries form an age list (oldest first); free ones a LIFO free list, so a
/// just-released (cache-warm) entry is the next one handed out.
class EntryPool {
  public:
    explicit EntryPool(std::uint32_t capacity);

    /// try_allocate: a free entry, appended as the youngest; kNoEntry when all are in use. The caller fills
    /// the entry and its shape.
    [[nodiscard]] std::uint32_t try_allocate();
    /// release: returns an allocated entry to the free list.
    void release(std::uint32_t e);

    [[nodiscard]] std::uint32_t oldest() const { return oldest_; }
    [[nodiscard]] std::uint32_t younger(std::uint32_t e) const { return ages_[e].next; }

    [[nodiscard]] Entry& entry(std::uint32_t e) { return entries_[e]; }
    [[nodiscard]] const Entry& entry(std::uint32_t e) const { return entries_[e]; }
    [[nodiscard]] ViewShape& shape(std::uint32_t e) { return shapes_[e]; }
    [[nodiscard]] const ViewShape& shape(std::uint32_t e) const { return shapes_[e]; }

    [[nodiscard]] std::uint32_t size() const { return size_; }
    [[nodiscard]] std::uint32_t capacity() const { return static_cast<std::uint32_t>(entries_.size()); }

  private:
    struct AgeLink {
        std::uint32_t prev;
        std::uint32_t next;  ///< also links the free list
    };

    std::vector<Entry> entries_;
    std::vector<ViewShape> shapes_;
    std::vector<AgeLink> ages_;
    std::uint32_t free_head_ = kNoEntry;
    std::uint32_t oldest_ = kNoEntry;
    std::uint32_t youngest_ = kNoEntry;
    std::uint32_t size_ = 0;
};

}  // namespace pto::detail
