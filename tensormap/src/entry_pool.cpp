// EntryPool: free list and age list over one preallocated entry array (see entry_pool.h).
#include "entry_pool.h"

namespace pto::detail {

EntryPool::EntryPool(std::uint32_t capacity) : entries_(capacity), shapes_(capacity), ages_(capacity) {
    for (std::uint32_t e = 0; e < capacity; ++e)
        ages_[e].next = e + 1 < capacity ? e + 1 : kNoEntry;
    free_head_ = capacity > 0 ? 0 : kNoEntry;
}

std::uint32_t EntryPool::try_allocate() {
    const std::uint32_t e = free_head_;
    if (e == kNoEntry) return kNoEntry;
    free_head_ = ages_[e].next;
    ages_[e] = AgeLink{youngest_, kNoEntry};
    if (youngest_ != kNoEntry)
        ages_[youngest_].next = e;
    else
        oldest_ = e;
    youngest_ = e;
    ++size_;
    return e;
}

void EntryPool::release(std::uint32_t e) {
    const AgeLink link = ages_[e];
    if (link.prev != kNoEntry)
        ages_[link.prev].next = link.next;
    else
        oldest_ = link.next;
    if (link.next != kNoEntry)
        ages_[link.next].prev = link.prev;
    else
        youngest_ = link.prev;
    ages_[e].next = free_head_;
    free_head_ = e;
    --size_;
}

}  // namespace pto::detail
