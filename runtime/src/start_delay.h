// The compute executor's random start delay, a pure function so tests can check it without a clock.
#pragma once

#include <cstdint>

#include "pto/runtime/config.h"

namespace pto::detail {

/// compute_start_delay_ns: how long a compute-executor subtask waits before its kernel starts: the
/// relative part, unit_relative x timed_jitter x the kernel's scaled device time (`duration_ns`), plus the
/// absolute part, unit_absolute x compute_start_jitter_us. Both units are draws in [0, 1).
[[nodiscard]] inline std::int64_t compute_start_delay_ns(const RuntimeConfig& config,
                                                         std::int64_t duration_ns, double unit_relative,
                                                         double unit_absolute) {
    const double relative = static_cast<double>(duration_ns) * config.timed_jitter * unit_relative;
    const double absolute = config.compute_start_jitter_us * 1000.0 * unit_absolute;
    return static_cast<std::int64_t>(relative) + static_cast<std::int64_t>(absolute);
}

}  // namespace pto::detail
