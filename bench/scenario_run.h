// The state one scenario's steps share (runner.cpp): the workload instance, the recorded probe graph, the
// run configurations and the samples measured, so each step of ScenarioMeasurement (measure, export, model,
// JSON) is a function of its own that reads what the steps before it produced.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog.h"
#include "measure.h"
#include "peers/peer.h"
#include "pto/runtime/config.h"
#include "pto/runtime/graph.h"
#include "pto/runtime/stats.h"
#include "runner.h"

namespace pto::bench {

/// Probe: the graph of one serial run whose window holds the whole graph, so every logical edge is
/// recorded (no producer retires while the graph is built), plus the capacities the measured runs need.
struct Probe {
    GraphRecord graph;
    OrchestratorStats stats;
};

/// probe: records `scenario`'s graph on the instant executor, growing the window until the graph fits.
[[nodiscard]] Probe probe(Workload& workload, const Scenario& scenario);

/// ScenarioRun: one scenario's workload, its probe and the configurations of its measured runs.
struct ScenarioRun {
    const Scenario& scenario;
    const BenchOptions& options;
    Workload& workload;
    Probe probe;
    GraphCounts counts;
    RuntimeConfig serial;      ///< orchestration-cost runs: serial mode, window sized to the graph
    RuntimeConfig concurrent;  ///< end-to-end runs: the options' executor and schedulers
    std::function<void()> body;
};

/// PeerSamples: per-task figures of one peer, one value per measured repetition.
struct PeerSamples {
    Peer peer;
    std::vector<double> total, build, run, replay, create;
    std::uint64_t body_calls = 0;
};

/// Measured: what the timed runs produced.
struct Measured {
    std::vector<double> orchestration;  ///< serial ns per launch
    std::vector<double> scheduling;     ///< serial: the schedulers' time after orchestration, per launch
    std::vector<std::optional<int>> orchestration_cpus;  ///< per serial round: its CPU, if pinning worked
    std::vector<double> end_to_end;                      ///< concurrent ns per launch
    /// the same concurrent runs' orchestration function, per launch: the orchestrator's time while the
    /// schedulers ran beside it (end_to_end minus this is the tail, the draining after it returned)
    std::vector<double> end_to_end_orchestration;
    std::vector<PeerSamples> peers;  ///< --peers only
    std::string golden;              ///< compute executor: the workload's verify() (empty = match)
    nlohmann::json profile;          ///< --profile only
    Checksum checksum;
};

/// export_files: --trace (with --kernel-stats of the traced run), --dot and --dot-summary.
void export_files(const ScenarioRun& run);

/// write_file: writes one output through options.write_output, else in place (throws pto::Error).
void write_file(const BenchOptions& o, const std::string& path, const std::string& what,
                const std::function<void(std::ostream&)>& write);

/// model_json: the result's "sim" object; writes --sim-trace and prints --kernel-stats of the model.
[[nodiscard]] nlohmann::json model_json(const ScenarioRun& run, double orchestration_median_ns);

/// results_json: ours first (with `sim` when not null), then one result per peer.
[[nodiscard]] nlohmann::json results_json(const ScenarioRun& run, const Measured& measured,
                                          nlohmann::json sim);

}  // namespace pto::bench
