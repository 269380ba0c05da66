// CPU sharing: whether the first two CPUs pto-bench may use really run at the same time. On the virtual
// machines pto-bench usually runs on, the two vCPUs at times take turns on one host CPU: a thread then runs
// two to three times slower while anything at all runs on the other vCPU, the end-to-end runs (orchestrator
// and schedulers on both) with it, and the figures of a sweep are no longer comparable with those of a
// sweep that had both CPUs. It comes and goes, independently of the cache-line hand-off (core_handoff.h),
// so the report measures both, before and after the sweep (docs/bench.md).
#pragma once

#include <optional>
#include <ostream>

#include <nlohmann/json.hpp>

namespace pto::bench {

/// CpuSharing: how much slower a fixed loop runs on CPU `first` while CPU `second` is busy than while it is
/// idle (1: the two run side by side; about 2 or more: they share one CPU's time).
struct CpuSharing {
    int first = -1;
    int second = -1;
    double slowdown = 0;
};

/// measure_cpu_sharing: a chain of dependent multiplications run for 10 ms on the first CPU the calling
/// thread may use, alternately with the second idle and with a thread spinning on it, three times each; the
/// ratio of the median times per step. Runs on a thread of its own, so the caller's affinity is untouched.
/// Nothing when fewer than two CPUs are usable or pinning fails. Takes about 60 ms.
[[nodiscard]] std::optional<CpuSharing> measure_cpu_sharing();

/// cpu_sharing_json: the report's `machine.cpu_sharing`: {"cpus": [a, b], "before": ratio, "after": ratio},
/// or null when either measurement is missing.
[[nodiscard]] nlohmann::json cpu_sharing_json(const std::optional<CpuSharing>& before,
                                              const std::optional<CpuSharing>& after);

/// print_cpu_sharing: one line for the text report (nothing for null).
void print_cpu_sharing(std::ostream& out, const nlohmann::json& cpu_sharing);

}  // namespace pto::bench
