// ArgRing: the bounded ring the orchestrator copies each task's arguments into, packed back to back in
// submission order and freed in retirement order, so copying arguments writes consecutive memory instead
// of a fixed-size record per slot (a 1.8 KiB stride that made every submit a TLB and cache miss).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>

#include "pto/runtime/task_desc.h"
#include "task_slot.h"

namespace pto::detail {

/// TensorRef: one tensor argument of a planned instance's node (ArgRecord::by_reference): where its view
/// is, in bytes from the record's start (in the instance's view table, after its records), and its
/// direction. Eight bytes where a TensorArg takes 104, and an instance writes each bound view once however
/// many of its nodes take it (docs/design/static-graph.md, "The argument image").
struct TensorRef {
    std::int32_t view_offset;
    Direction direction;
};
static_assert(sizeof(TensorRef) == 8);

/// ArgRecord: the header of one task's arguments; scalars then tensors follow it in the ring, the tensors
/// as TensorArgs or, in a planned instance's records, as TensorRefs.
struct ArgRecord {
    std::uint32_t tensor_count;
    std::uint16_t scalar_count;
    /// Nonzero: the tensors are TensorRefs (read them with tensor_args); zero: TensorArgs (tensors()).
    std::uint16_t by_reference;

    [[nodiscard]] const std::uint64_t* scalars() const {
        return reinterpret_cast<const std::uint64_t*>(this + 1);
    }
    /// tensors: the TensorArgs of a record that holds them (by_reference zero).
    [[nodiscard]] const TensorArg* tensors() const {
        return reinterpret_cast<const TensorArg*>(reinterpret_cast<const std::byte*>(this) +
                                                  tensors_offset(scalar_count));
    }
    [[nodiscard]] TensorArg* mutable_tensors() { return const_cast<TensorArg*>(tensors()); }
    /// refs: the TensorRefs of a record that holds them (by_reference nonzero).
    [[nodiscard]] const TensorRef* refs() const {
        return reinterpret_cast<const TensorRef*>(reinterpret_cast<const std::byte*>(this) +
                                                  tensors_offset(scalar_count));
    }
    /// tensor_args: the tensor arguments as TensorArgs, whichever way the record holds them: its own for
    /// TensorArgs, else resolved into `scratch` (room for tensor_count).
    [[nodiscard]] std::span<const TensorArg> tensor_args(TensorArg* scratch) const {
        if (by_reference == 0) return {tensors(), tensor_count};
        const TensorRef* r = refs();
        const auto* base = reinterpret_cast<const std::byte*>(this);
        for (std::uint32_t i = 0; i < tensor_count; ++i) {
            std::memcpy(&scratch[i].view, base + r[i].view_offset, sizeof(TensorView));
            scratch[i].direction = r[i].direction;
        }
        return {scratch, tensor_count};
    }
    /// tensors_offset: where a record's tensors start, from the record's start. Scalars padded to an even
    /// count put the tensors 8 bytes past a 16-byte boundary in every record (after the 8-byte header),
    /// whatever the scalar count; TensorArg itself needs 8.
    [[nodiscard]] static constexpr std::uint64_t tensors_offset(std::size_t scalars) {
        return 8 + (scalars + (scalars & 1)) * sizeof(std::uint64_t);
    }
    [[nodiscard]] static std::uint64_t bytes_for(std::size_t tensors, std::size_t scalars) {
        return tensors_offset(scalars) + tensors * sizeof(TensorArg);
    }
    /// bytes_for_refs: a record of `tensors` TensorRefs and `scalars` scalars.
    [[nodiscard]] static std::uint64_t bytes_for_refs(std::size_t tensors, std::size_t scalars) {
        return tensors_offset(scalars) + tensors * sizeof(TensorRef);
    }
};
static_assert(kMaxScalarArgs <= 0xffff, "scalar_count is 16 bits");
static_assert(sizeof(ArgRecord) == 8, "tensors_offset counts the header as 8 bytes");
static_assert(alignof(TensorArg) <= 16);
static_assert(std::is_trivially_copyable_v<TensorArg>);

class ArgRing {
  public:
    static constexpr std::uint64_t kAlignment = 16;

    explicit ArgRing(std::uint64_t capacity_bytes)
        : bytes_(std::make_unique_for_overwrite<std::byte[]>(capacity_bytes)),
          capacity_(capacity_bytes & ~(kAlignment - 1)) {}

    /// round: `n` bytes rounded up to the ring's alignment (what one record or block occupies).
    [[nodiscard]] static std::uint64_t round(std::uint64_t n) {
        return (n + kAlignment - 1) & ~(kAlignment - 1);
    }
    /// reserve_bytes: what to wait for before writing a record of `size` bytes: a record never wraps, so
    /// it may first skip the ring's tail (less than `size`).
    [[nodiscard]] static std::uint64_t reserve_bytes(std::uint64_t size) { return 2 * round(size); }
    [[nodiscard]] std::uint64_t free_bytes() const { return capacity_ - (head_ - tail_); }
    [[nodiscard]] std::uint64_t capacity() const { return capacity_; }

    /// append_block: room for `size` bytes (a multiple of kAlignment) of records the caller lays out and
    /// copies in whole (a planned instance's argument image), never wrapping, as append does for one
    /// record; the caller reserved reserve_bytes(size). Returns the block's offset.
    std::uint64_t append_block(std::uint64_t size) {
        // head_offset_ is head_ % capacity_, kept incrementally: no 64-bit division per task.
        std::uint64_t offset = head_offset_;
        if (offset + size > capacity_) {
            head_ += capacity_ - offset;  // a block never wraps: skip the tail
            offset = 0;
        }
        head_ += size;
        head_offset_ = offset + size == capacity_ ? 0 : offset + size;
        return offset;
    }
    /// append: room for one record of `tensors` tensors and `scalars` scalars, counts written; the caller
    /// reserved room and fills the arrays. Returns the record's offset.
    std::uint64_t append(std::size_t tensors, std::size_t scalars) {
        const std::uint64_t offset = append_block(round(ArgRecord::bytes_for(tensors, scalars)));
        *reinterpret_cast<ArgRecord*>(bytes_.get() + offset) =
            ArgRecord{static_cast<std::uint32_t>(tensors), static_cast<std::uint16_t>(scalars), 0};
        return offset;
    }
    /// write: copies one task's arguments; the caller reserved room. Returns the record's offset.
    std::uint64_t write(std::span<const TensorArg> tensors, std::span<const std::uint64_t> scalars) {
        const std::uint64_t offset = append(tensors.size(), scalars.size());
        ArgRecord& record = mutable_record(offset);
        // One block copy each (trivially copyable): cheaper than an element loop for the usual 2-8 tensors.
        // An empty span may have a null data pointer, which memcpy must not be given even for 0 bytes.
        if (!scalars.empty()) std::memcpy(&record + 1, scalars.data(), scalars.size_bytes());
        if (!tensors.empty()) std::memcpy(record.mutable_tensors(), tensors.data(), tensors.size_bytes());
        return offset;
    }

    [[nodiscard]] ArgRecord& mutable_record(std::uint64_t offset) {
        return *reinterpret_cast<ArgRecord*>(bytes_.get() + offset);
    }
    [[nodiscard]] const ArgRecord& record(std::uint64_t offset) const {
        return *reinterpret_cast<const ArgRecord*>(bytes_.get() + offset);
    }
    [[nodiscard]] std::uint64_t head() const { return head_; }
    void release_until(std::uint64_t mark) { tail_ = mark; }
    void reset() { head_ = tail_ = head_offset_ = 0; }

    /// block: the bytes of an appended block.
    [[nodiscard]] std::byte* block(std::uint64_t offset) { return bytes_.get() + offset; }

  private:
    // Compute workers read the records through bytes_; only the orchestrator moves the cursors, on every
    // submit, so they live on their own lines (see EdgePool).
    std::unique_ptr<std::byte[]> bytes_;
    std::uint64_t capacity_;
    alignas(kFalseSharingRange) std::uint64_t head_ = 0;
    std::uint64_t tail_ = 0;
    std::uint64_t head_offset_ = 0;
};

}  // namespace pto::detail
