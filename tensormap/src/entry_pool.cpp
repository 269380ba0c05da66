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

std::uint32_t EntryPool::try_allocate() {
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

void EntryPool::append(std::uint32_t e) {
    ages_[e] = AgeLink{youngest_, kNoEntry};
    if (youngest_ != kNoEntry)
        ages_[youngest_].next = e;
    else
        oldest_ = e;
    youngest_ = e;
}

}  // namespace pto::detail
