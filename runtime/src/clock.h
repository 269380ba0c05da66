// The one clock the runtime reads: steady, in nanoseconds. Run timestamps, stall detection, timed kernels
// and phase profiling all compare values from it, so they must come from the same source.
#pragma once

#include <chrono>
#include <cstdint>

namespace pto::detail {

inline std::int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace pto::detail
