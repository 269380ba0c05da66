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
    /// try_allocate_run: `bytes` (a multiple of kAlignment) in one piece without reaching the ring's end, or
    /// null (then allocate buffer by buffer). Carving several buffers from one run lays them out exactly as
    /// try_allocate would, in one step instead of one per buffer.
    std::byte* try_allocate_run(std::uint64_t bytes) {
        if (head_offset_ + bytes > capacity_ || head_ + bytes - tail_ > capacity_) return nullptr;
        std::byte* run = aligned_base() + head_offset_;
        head_ += bytes;
        head_offset_ += bytes;
        if (head_offset_ == capacity_) head_offset_ = 0;
        return run;
    }
    /// head: the allocation mark; a task records it after its allocations as its end mark.
    [[nodiscard]] std::uint64_t head() const { return head_; }
    /// release_until: frees everything allocated before `mark` (the end mark of a retired task).
    void release_until(std::uint64_t mark) { tail_ = mark; }
    [[nodiscard]] std::uint64_t capacity() const { return capacity_; }
    [[nodiscard]] std::uint64_t used_bytes() const { return head_ - tail_; }
    void reset() { head_ = tail_ = head_offset_ = 0; }

  private:
    // The array is over-allocated by one alignment unit so the aligned base always fits.
    [[nodiscard]] std::byte* aligned_base() const {
        const auto base = reinterpret_cast<std::uintptr_t>(bytes_.get());
        return reinterpret_cast<std::byte*>((base + kAlignment - 1) &
                                            ~static_cast<std::uintptr_t>(kAlignment - 1));
    }

    std::unique_ptr<std::byte[]> bytes_;
    std::uint64_t capacity_;
    std::uint64_t head_ = 0;  // running byte counter; position = head % capacity
    std::uint64_t tail_ = 0;
    std::uint64_t head_offset_ = 0;  // head_ % capacity_, kept incrementally
};

}  // namespace pto::detail
