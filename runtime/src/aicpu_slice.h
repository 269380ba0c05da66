// AicpuSlice: records one interval of the orchestrator thread as an AicpuRecord when recording is on
// (RuntimeConfig::record_subtasks), for the AICPU lanes of a real run's trace. Off, it is one branch.
#pragma once

#include <cstdint>
#include <vector>

#include "clock.h"
#include "pto/runtime/graph.h"

namespace pto::detail {

class AicpuSlice {
  public:
    AicpuSlice(std::vector<AicpuRecord>* sink, AicpuActivity what, std::int64_t base_ns, TaskId task,
               std::uint32_t count = 1)
        : sink_(sink),
          what_(what),
          count_(count),
          task_(task),
          base_ns_(base_ns),
          start_ns_(sink != nullptr ? steady_ns() : 0) {}
    ~AicpuSlice() {
        if (sink_ != nullptr)
            sink_->push_back(
                AicpuRecord{0, what_, count_, task_, start_ns_ - base_ns_, steady_ns() - base_ns_});
    }
    AicpuSlice(const AicpuSlice&) = delete;
    AicpuSlice& operator=(const AicpuSlice&) = delete;

  private:
    std::vector<AicpuRecord>* sink_;
    AicpuActivity what_;
    std::uint32_t count_;
    TaskId task_;
    std::int64_t base_ns_;
    std::int64_t start_ns_;
};

/// AicpuSliceIf: an AicpuSlice in code compiled for observed runs; in the other copy, nothing at all.
template <bool kObserved>
class AicpuSliceIf : public AicpuSlice {
  public:
    using AicpuSlice::AicpuSlice;
};
template <>
class AicpuSliceIf<false> {
  public:
    AicpuSliceIf(std::vector<AicpuRecord>*, AicpuActivity, std::int64_t, TaskId, std::uint32_t = 1) {}
};

}  // namespace pto::detail
