// ExecutionLog: a compute kernel that records, per subtask, a global start and end sequence number, so
// tests can check exactly-once execution and producer-before-consumer ordering without clocks.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "pto/runtime/kernels.h"

namespace pto::test {

struct ExecutionEntry {
    std::uint64_t task = 0;
    std::uint32_t block = 0;
    std::uint32_t lane = 0;
    std::uint64_t start_seq = 0;
    std::uint64_t end_seq = 0;
};

class ExecutionLog {
  public:
    explicit ExecutionLog(std::size_t capacity) : entries_(capacity) {}

    /// kernel: register with KernelInfo{name, duration, &ExecutionLog::kernel, &log}.
    static int kernel(const KernelContext& ctx) {
        auto& log = *static_cast<ExecutionLog*>(ctx.user);
        const std::uint64_t start = log.sequence_.fetch_add(1, std::memory_order_acq_rel);
        const std::uint64_t end = log.sequence_.fetch_add(1, std::memory_order_acq_rel);
        const std::uint64_t at = log.count_.fetch_add(1, std::memory_order_relaxed);
        if (at >= log.entries_.size()) throw std::runtime_error("ExecutionLog capacity exceeded");
        log.entries_[at] = ExecutionEntry{ctx.task.value, ctx.block_idx, ctx.lane, start, end};
        return 0;
    }

    void clear() {
        count_.store(0);
        sequence_.store(0);
    }
    [[nodiscard]] std::vector<ExecutionEntry> entries() const {
        return {entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(count_.load())};
    }

  private:
    std::vector<ExecutionEntry> entries_;
    std::atomic<std::uint64_t> sequence_{0};
    std::atomic<std::uint64_t> count_{0};
};

}  // namespace pto::test
