// PhaseTimer: adds the wall time of a scope to one of OrchestratorStats' phase counters, only when
// RuntimeConfig::profile_orchestrator is on (two clock reads per phase are too dear to pay always).
#pragma once

#include <cstdint>

#include "clock.h"

namespace pto::detail {

class PhaseTimer {
  public:
    PhaseTimer(bool enabled, std::int64_t& sink)
        : sink_(enabled ? &sink : nullptr), start_(enabled ? steady_ns() : 0) {}
    ~PhaseTimer() {
        if (sink_ != nullptr) *sink_ += steady_ns() - start_;
    }
    PhaseTimer(const PhaseTimer&) = delete;
    PhaseTimer& operator=(const PhaseTimer&) = delete;

  private:
    std::int64_t* sink_;
    std::int64_t start_;
};

/// PhaseTimerIf: a PhaseTimer in code compiled for observed runs; in the other copy, nothing at all.
template <bool kObserved>
class PhaseTimerIf : public PhaseTimer {
  public:
    using PhaseTimer::PhaseTimer;
};
template <>
class PhaseTimerIf<false> {
  public:
    PhaseTimerIf(bool, std::int64_t&) {}
};

}  // namespace pto::detail
