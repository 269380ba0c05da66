// HeapRing: the bounded byte ring runtime-allocated tensors come from. Buffers are carved in submission
// order and freed in retirement order (orchestrator thread only), so allocation is a bump of a counter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace pto::detail {

class HeapRing {
  public:
    /// Alignment of every buffer: one cache line, so kernels on different cores never share a line.
    static constexpr std::uint64_t kAlignment = 64;

    explicit HeapRing(std::uint64_t capacity_bytes);

    /// try_allocate: a buffer of `bytes`, or null if the ring lacks room until older tasks retire.
    /// A buffer never wraps; the unused tail of the ring is skipped instead.
    void* try_allocate(std::uint64_t bytes);
    /// head: the allocation mark; a task records it after its allocations as its end mark.
    [[nodiscard]] std::uint64_t head() const { return head_; }
    /// release_until: frees everything allocated before `mark` (the end mark of a retired task).
    void release_until(std::uint64_t mark) { tail_ = mark; }
    [[nodiscard]] std::uint64_t capacity() const { return capacity_; }
    [[nodiscard]] std::uint64_t used_bytes() const { return head_ - tail_; }
    void reset() { head_ = tail_ = head_offset_ = 0; }

  private:
    std::unique_ptr<std::byte[]> bytes_;
    std::uint64_t capacity_;
    std::uint64_t head_ = 0;  // running byte counter; position = head % capacity
    std::uint64_t tail_ = 0;
    std::uint64_t head_offset_ = 0;  // head_ % capacity_, kept incrementally
};

}  // namespace pto::detail
