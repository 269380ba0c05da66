// Core-to-core hand-off: how long one cache line takes to travel between two CPUs of the machine. The
// end-to-end runs pass every task between the orchestrator's CPU and the schedulers', so their figures move
// with this latency, and on the virtual machines pto-bench usually runs on it changes under a running
// process (docs/bench.md): the report measures it before and after the sweep.
#pragma once

#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

namespace pto::bench {

/// CoreHandoff: the one-way latency of a cache line between CPUs `first` and `second`.
struct CoreHandoff {
    int first = -1;
    int second = -1;
    double ns = 0;
};

/// measure_core_handoff: two threads, pinned to the first two CPUs the calling thread may run on, pass
/// one atomic back and forth; half the median round trip of several trials (each at most 20 ms; one in
/// which no pass came back is left out). Nothing when fewer than two CPUs are usable, pinning fails, or no
/// trial got a pass back. Takes a few to a hundred milliseconds.
[[nodiscard]] std::optional<CoreHandoff> measure_core_handoff();

/// core_handoff_json: the report's `machine.core_to_core_ns`: {"cpus": [a, b], "before": ns, "after": ns},
/// or null when either measurement is missing.
[[nodiscard]] nlohmann::json core_handoff_json(const std::optional<CoreHandoff>& before,
                                               const std::optional<CoreHandoff>& after);

/// print_core_handoff: one line for the text report (nothing for null).
void print_core_handoff(std::ostream& out, const nlohmann::json& core_to_core_ns);

}  // namespace pto::bench
