// EntryPool: free list, never-used range and age list over one entry array (see entry_pool.h).
#include "entry_pool.h"

namespace pto::detail {

// for_overwrite: no element is initialised here; try_allocate hands out never-used entries in index order
// and their fields are written before they are read.
EntryPool::EntryPool(std::uint32_t capacity)
    : capacity_(capacity),
      entries_(std::make_unique_for_overwrite<Entry[]>(capacity)),
      shapes_(std::make_unique_for_overwrite<ViewShape[]>(capacity)),
      ages_(std::make_unique_for_overwrite<AgeLink[]>(capacity)) {}

void EntryPool::release(std::uint32_t e) {
    unlink(e);
    ages_[e].next = free_head_;
    free_head_ = e;
    --size_;
}

void EntryPool::touch(std::uint32_t e) {
    if (e == youngest_) return;
    unlink(e);
    append(e);
}

void EntryPool::reset() {
    free_head_ = kNoEntry;
    fresh_ = 0;
    oldest_ = kNoEntry;
    youngest_ = kNoEntry;
    size_ = 0;
}

void EntryPool::unlink(std::uint32_t e) {
    const AgeLink link = ages_[e];
    if (link.prev != kNoEntry)
        ages_[link.prev].next = link.next;
    else
        oldest_ = link.next;
    if (link.next != kNoEntry)
        ages_[link.next].prev = link.prev;
    else
        youngest_ = link.prev;
}

}  // namespace pto::detail
