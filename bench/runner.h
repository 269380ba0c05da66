// Measuring one scenario: the graph's counts (from a recorded run), serial-mode orchestration cost,
// concurrent end-to-end cost, and the pieces the options add (model, peers, trace, DOT).
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "catalog.h"
#include "pto/runtime/config.h"
#include "pto/runtime/graph.h"
#include "pto/runtime/stats.h"
#include "sim_options.h"

namespace pto::bench {

struct BenchOptions {
    std::string program = "pto-bench";  ///< prefixes warnings
    Executor executor = Executor::Instant;
    /// Scheduler threads of the end-to-end runs (RuntimeConfig::scheduler_threads); 0 = the a2a3 default.
    std::uint32_t scheduler_threads = 0;
    /// Timed executor: RuntimeConfig::timed_scale and timed_jitter (jitter also delays compute kernels).
    double timed_scale = 1.0;
    double jitter = 0.0;
    std::uint32_t reps = 200;
    std::uint32_t warmup = 10;
    bool simulate = true;
    SimSettings sim;  ///< profile, cost overrides and pending slots of the model
    bool peers = false;
    std::string trace_path;          ///< Perfetto trace of a real (concurrent) run; empty: none
    std::string sim_trace_path;      ///< Perfetto trace of the simulated device timeline; empty: none
    std::string dot_path;            ///< the recorded graph as DOT; empty: none
    bool kernel_stats = false;       ///< print per-kernel timing statistics of the simulated timeline
    bool several_scenarios = false;  ///< trace/dot file names then carry the scenario id
    std::string dot_summary_path;    ///< the kernel-level graph as DOT; empty: none
    /// Extra runs with RuntimeConfig::profile_orchestrator: per-phase orchestrator ns per launch and the
    /// scheduler threads' loop statistics, as the result's "profile" object (not part of the timed runs).
    bool profile = false;
    /// write_output: writes one file (`what` says what it is, e.g. "trace of qwen3/manual/non-spmd"). The
    /// default writes in place and throws pto::Error when it cannot; pto-bench passes one that writes
    /// atomically, announces the file and keeps going when a file fails, so the run is never lost.
    std::function<void(const std::string& path, const std::string& what,
                       const std::function<void(std::ostream&)>& write)>
        write_output;
};

/// kMaxDotTasks: the largest graph --dot draws task by task; graphviz takes minutes beyond it and the
/// drawing is unreadable anyway, so larger graphs are refused with a pointer to --dot-summary.
inline constexpr std::size_t kMaxDotTasks = 2000;

/// file_for: `path` as given for a single scenario, else with ".<scenario id>" before its extension.
[[nodiscard]] std::string file_for(const std::string& path, const Scenario& scenario, bool several);

/// RecordedGraph: the graph of one serial run of a scenario on the instant executor, with its statistics.
struct RecordedGraph {
    GraphRecord graph;
    OrchestratorStats stats;
};
/// record_graph: what the model replays for `scenario` (the same probe run_scenario makes).
[[nodiscard]] RecordedGraph record_graph(const Scenario& scenario);

/// run_scenario: measures `scenario` and returns its result objects (ours first, then one per peer).
/// Steps: probe (record the graph), measure orchestration (serial), measure end to end (concurrent, with
/// the peers), export the files, profile, model, JSON. Throws pto::Error when a scenario cannot run (e.g.
/// a scheme its workload does not build).
[[nodiscard]] nlohmann::json run_scenario(const Scenario& scenario, const BenchOptions& options);

}  // namespace pto::bench
