// HeapRing allocation: a running counter over a fixed byte array, skipping the ring's tail when a buffer
// would wrap.
#include "heap_ring.h"

namespace pto::detail {

HeapRing::HeapRing(std::uint64_t capacity_bytes)
    : bytes_(std::make_unique_for_overwrite<std::byte[]>(capacity_bytes + kAlignment)),
      capacity_(capacity_bytes & ~(kAlignment - 1)) {}

void* HeapRing::try_allocate(std::uint64_t bytes) {
    std::uint64_t size = (bytes + kAlignment - 1) & ~(kAlignment - 1);
    if (size == 0) size = kAlignment;
    std::uint64_t start = head_;
    std::uint64_t offset = start % capacity_;
    if (offset + size > capacity_) start += capacity_ - offset;  // never split a buffer across the wrap
    if (start + size - tail_ > capacity_) return nullptr;
    head_ = start + size;
    // The array is over-allocated by one alignment unit so the aligned base always fits.
    auto base = reinterpret_cast<std::uintptr_t>(bytes_.get());
    std::uintptr_t aligned = (base + kAlignment - 1) & ~static_cast<std::uintptr_t>(kAlignment - 1);
    return reinterpret_cast<void*>(aligned + start % capacity_);
}

}  // namespace pto::detail
