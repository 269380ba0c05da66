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
    // head_offset_ tracks head_ % capacity_ so the hot path needs no 64-bit division.
    std::uint64_t skip = 0;
    if (head_offset_ + size > capacity_) skip = capacity_ - head_offset_;  // never split a buffer at the wrap
    if (head_ + skip + size - tail_ > capacity_) return nullptr;
    const std::uint64_t offset = skip != 0 ? 0 : head_offset_;
    head_ += skip + size;
    head_offset_ = offset + size;
    if (head_offset_ == capacity_) head_offset_ = 0;
    return aligned_base() + offset;
}

}  // namespace pto::detail
