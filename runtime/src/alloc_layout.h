// AllocLayout: what an alloc_tensors request works out before any buffer exists (each buffer's size and
// offset in one heap run, the heap room to reserve, the row-major view of each buffer without its base),
// kept for the last request. Graph builders allocate the same scratch scope after scope, so the next request
// is usually equal and costs a comparison instead of sizing and writing eight views.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "pto/runtime/task_desc.h"
#include "pto/runtime/tensor.h"
#include "submit_sizes.h"

namespace pto::detail {

class AllocLayout {
  public:
    /// matches: whether `infos` is the request this layout was built for (every field compared, so a
    /// match is exact; unused shape entries count too, which at worst rebuilds an equal layout).
    [[nodiscard]] bool matches(std::span<const TensorCreateInfo> infos) const {
        if (infos.size() != count_) return false;
        for (std::size_t i = 0; i < infos.size(); ++i) {
            if (infos[i].dtype != infos_[i].dtype ||
                std::memcmp(&infos[i].ndim, &infos_[i].ndim, kRequestBytes) != 0)
                return false;
        }
        return true;
    }

    /// build: the layout of `infos`, whose ranks the caller checked (1..kMaxTensorDims each).
    void build(std::span<const TensorCreateInfo> infos) {
        count_ = static_cast<std::uint32_t>(infos.size());
        need_ = HeapNeed{};
        total_bytes_ = 0;
        for (std::size_t i = 0; i < infos.size(); ++i) {
            infos_[i] = infos[i];
            bytes_[i] = create_info_bytes(infos[i]);
            total_bytes_ += bytes_[i];
            offsets_[i] = need_.total;  // aligned_bytes keeps each buffer on the heap's alignment
            need_.add_buffer(bytes_[i]);
            write_created_view(views_[i].view, infos[i], nullptr, TaskId{});
            views_[i].direction = Direction::Out;
        }
    }

    [[nodiscard]] const HeapNeed& heap_need() const { return need_; }
    /// total_bytes: the buffers' sizes before alignment (what the statistics count as allocated).
    [[nodiscard]] std::uint64_t total_bytes() const { return total_bytes_; }
    /// bytes / offset: buffer i's size, and its offset from the start of a run holding every buffer.
    [[nodiscard]] std::uint64_t bytes(std::size_t i) const { return bytes_[i]; }
    [[nodiscard]] std::uint64_t offset(std::size_t i) const { return offsets_[i]; }
    /// views: the argument records to copy, base and creator still to be set.
    [[nodiscard]] const TensorArg* views() const { return views_; }

  private:
    // ndim and the shape array: contiguous 32-bit words, no padding between them.
    static constexpr std::size_t kRequestBytes = sizeof(std::uint32_t) * (1 + kMaxTensorDims);
    static_assert(offsetof(TensorCreateInfo, shape) ==
                  offsetof(TensorCreateInfo, ndim) + sizeof(std::uint32_t));
    static_assert(sizeof(TensorCreateInfo) == offsetof(TensorCreateInfo, ndim) + kRequestBytes);

    std::uint32_t count_ = 0;  // 0: nothing kept (an alloc of no tensors has nothing to lay out either)
    HeapNeed need_;
    std::uint64_t total_bytes_ = 0;
    TensorCreateInfo infos_[kMaxTensorArgs];
    std::uint64_t bytes_[kMaxTensorArgs];
    std::uint64_t offsets_[kMaxTensorArgs];
    TensorArg views_[kMaxTensorArgs];
};

}  // namespace pto::detail
