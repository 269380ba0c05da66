// --profile: where orchestration time goes, per phase of a launch, and what the scheduler threads' loops
// did. Measured in runs of their own (phase timing adds clock reads, so it never touches the timed runs).
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>

#include <nlohmann/json.hpp>

#include "pto/runtime/config.h"
#include "pto/bench/bench.h"

namespace pto::bench {

/// profile_runs: `runs` serial runs with RuntimeConfig::profile_orchestrator on `serial` (one unmeasured
/// run first) and as many concurrent runs on `concurrent`; returns the result's "profile" object:
///   "runs": the count;
///   "orchestrator_ns_per_task": {phase: spread over the runs} for arg_copy, ring_alloc, dep_lookup,
///     insert, fanin, scope_end, and "other" (orchestration time outside those phases: the orchestration
///     function's own code and the scope layer's bookkeeping);
///   "schedulers": loop statistics of the concurrent runs, summed over threads and averaged over runs:
///     threads, loops_per_task, busy_loop_pct, tasks_per_busy_loop, parks_per_run, batch_waits_per_run,
///     awake_at_start_pct, orchestrator_loop_pct (passes the orchestrator ran in a sleeping scheduler's
///     place after its orchestration, % of all), and complete / dispatch / idle ns per task.
[[nodiscard]] nlohmann::json profile_runs(Workload& workload, const std::function<void()>& body,
                                          RuntimeConfig serial, RuntimeConfig concurrent, std::uint32_t runs);

/// print_profile_table: with --profile, one line per profiled result: the orchestrator phases' median ns
/// per launch and the schedulers' loop figures. Prints nothing when no result has a "profile".
void print_profile_table(std::ostream& out, const nlohmann::json& report);

}  // namespace pto::bench
