// Measuring one scenario: the graph's counts (from a recorded run), serial-mode orchestration cost,
// concurrent end-to-end cost, and the pieces the options add (model, peers, trace, DOT).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
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
    /// Measurements come in this many rounds: each scenario's reps (and warmup) are split into one block per
    /// round, and a sweep runs round 1 of every scenario, then round 2, ... (each block on a fresh Runtime),
    /// first for the serial runs, then for the end-to-end runs (with --peers at most kPeerRounds, each of
    /// our blocks followed by a block of each peer's). So every scenario's figures sample the whole sweep's
    /// time, not one stretch of it, and the ratios between scenarios of one run hold from run to run.
    std::uint32_t rounds = 20;
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

/// effective_rounds: the rounds of serial runs a sweep with `o` runs: BenchOptions::rounds, at most one per
/// rep.
[[nodiscard]] inline std::uint32_t effective_rounds(const BenchOptions& o) {
    return o.rounds < o.reps ? o.rounds : o.reps;
}

/// kPeerRounds: with --peers, the most rounds of end-to-end runs: each round pauses before every system's
/// block, which more rounds would multiply.
inline constexpr std::uint32_t kPeerRounds = 5;

/// end_to_end_rounds: the rounds of end-to-end runs: effective_rounds, at most kPeerRounds with --peers.
[[nodiscard]] inline std::uint32_t end_to_end_rounds(const BenchOptions& o) {
    const std::uint32_t rounds = effective_rounds(o);
    return o.peers && rounds > kPeerRounds ? kPeerRounds : rounds;
}

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
/// record_graph: what the model replays for `scenario` (the same probe ScenarioMeasurement makes).
[[nodiscard]] RecordedGraph record_graph(const Scenario& scenario);

/// make_workload: an instance of `spec` for `executor` (throws pto::Error when its make returns none).
[[nodiscard]] std::unique_ptr<Workload> make_workload(const WorkloadSpec& spec, Executor executor);

/// ScenarioMeasurement: one scenario measured in steps, so that a sweep can interleave the blocks of its
/// scenarios (BenchOptions::rounds):
///
///     ScenarioMeasurement m(scenario, options, workload); // probe: record the graph, size the runs
///     for (std::uint32_t r = 0; r < m.rounds(); ++r)     // on a pinned thread (CpuPin), interleaved
///         m.measure_serial_round(r, pin.cpu());          //   with the other scenarios' rounds
///     for (std::uint32_t r = 0; r < end_to_end_rounds(options); ++r)  // unpinned, interleaved likewise
///         m.measure_end_to_end_round(r);                 //   (with --peers, the peers' blocks too)
///     nlohmann::json results = m.finish();               // exports, profile, model, JSON
///
/// Throws pto::Error when the scenario cannot run (e.g. a scheme its workload does not build).
class ScenarioMeasurement {
  public:
    /// `workload`: an instance of the scenario's workload for the options' executor (make_workload), which
    /// must outlive this object; the scenarios of one workload share one.
    ScenarioMeasurement(const Scenario& scenario, const BenchOptions& options, Workload& workload);
    ~ScenarioMeasurement();
    ScenarioMeasurement(const ScenarioMeasurement&) = delete;
    ScenarioMeasurement& operator=(const ScenarioMeasurement&) = delete;

    /// rounds: the blocks the options' reps are split into (effective_rounds).
    [[nodiscard]] std::uint32_t rounds() const;
    /// measure_serial_round: block `round` of the serial runs (orchestration, then the schedulers), on a
    /// Runtime created for it on the calling thread, which the caller pinned to `pinned_cpu` (nothing:
    /// pinning failed), so the Runtime's scheduler threads share that CPU.
    void measure_serial_round(std::uint32_t round, std::optional<int> pinned_cpu);
    /// measure_end_to_end_round: block `round` of end_to_end_rounds() of the end-to-end runs (concurrent
    /// mode) on a Runtime created for it on the calling thread, which must not be pinned; with --peers,
    /// then a block of each peer's repetitions. After the last round the compute executor's outputs are
    /// checked.
    void measure_end_to_end_round(std::uint32_t round);
    /// finish: after every round: the exports, the profile and the model; returns the result objects (ours
    /// first, then one per peer).
    [[nodiscard]] nlohmann::json finish();

  private:
    [[nodiscard]] std::uint32_t block_warmup(std::uint32_t rounds) const;

    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace pto::bench
