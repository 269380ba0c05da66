// A scenario's result objects (docs/bench.md, "bench-results.json"): ours, then one per peer, each with
// the identity and count fields of the scenario.
#include "scenario_run.h"

#include <algorithm>

namespace pto::bench {
namespace {

nlohmann::json sizes_json(const Sizes& sizes) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, value] : sizes)
        out[name] = value;
    return out;
}

/// identity_json: the identity and count fields every result of this scenario carries, ours and each
/// peer's.
nlohmann::json identity_json(const ScenarioRun& run, nlohmann::json peer) {
    const Scenario& scenario = run.scenario;
    const GraphCounts& counts = run.counts;
    return nlohmann::json{
        {"case", scenario.workload->name},
        {"mode", to_string(scenario.mode)},
        {"tier", scenario.tier ? nlohmann::json(to_string(*scenario.tier)) : nlohmann::json(nullptr)},
        {"executor", to_string(run.options.executor)},
        {"peer", std::move(peer)},
        {"sizes", sizes_json(run.workload.sizes())},
        {"tasks", counts.kernel_tasks},
        {"framework_tasks", counts.framework_tasks},
        {"subtasks", counts.subtasks},
        {"edges", counts.kernel_edges},
        {"framework_edges", counts.framework_edges},
        {"reps", run.options.reps},
    };
}

nlohmann::json our_result(const ScenarioRun& run, const Measured& m, nlohmann::json sim) {
    const BenchOptions& o = run.options;
    const Summary orch = summarize(m.orchestration);
    const Summary e2e = summarize(m.end_to_end);
    nlohmann::json result = identity_json(run, nullptr);
    result["orch_ns_per_task"] = orch.to_json();
    // The serial runs (orchestration, then the schedulers) are pinned to one CPU per round, the faster of
    // two when pto-bench could measure them (machine.serial_cpus): each round's CPU (null: pinning failed),
    // and the one CPU they all ran on, or null when they did not share one.
    nlohmann::json cpus = nlohmann::json::array();
    for (const std::optional<int>& cpu : m.orchestration_cpus)
        cpus.push_back(cpu ? nlohmann::json(*cpu) : nlohmann::json());
    const bool one_cpu = !cpus.empty() && std::all_of(cpus.begin(), cpus.end(),
                                                      [&](const nlohmann::json& c) { return c == cpus[0]; });
    result["orch_pinned_cpu"] = one_cpu ? cpus[0] : nlohmann::json();
    result["orch_pinned_cpus"] = std::move(cpus);
    // The schedulers' share of the work, measured alone in the same serial runs (see docs/bench.md).
    result["sched_ns_per_task"] = summarize(m.scheduling).to_json();
    result["e2e_ns_per_task"] = e2e.to_json();
    // How much of it the orchestration function took, in the same runs (see docs/bench.md).
    result["e2e_orch_ns_per_task"] = summarize(m.end_to_end_orchestration).to_json();
    result["tasks_per_s"] = e2e.median > 0 ? 1e9 / e2e.median : 0.0;
    result["scheduler_threads"] = run.concurrent.scheduler_threads;
    if (o.executor != Executor::Instant) {
        result["timed_scale"] = o.timed_scale;
        result["jitter"] = o.jitter;
    }
    if (o.executor == Executor::Compute) result["golden"] = m.golden.empty() ? "match" : m.golden;
    if (!m.profile.is_null()) result["profile"] = m.profile;
    if (!sim.is_null()) result["sim"] = std::move(sim);
    result["checksum"] = m.checksum.value();
    return result;
}

nlohmann::json peer_result(const ScenarioRun& run, const PeerSamples& ps, double our_e2e_median) {
    const Summary total = summarize(ps.total);
    nlohmann::json peer = identity_json(run, to_string(ps.peer));
    peer["e2e_ns_per_task"] = total.to_json();
    peer["tasks_per_s"] = total.median > 0 ? 1e9 / total.median : 0.0;
    peer["ratio"] = our_e2e_median > 0 ? total.median / our_e2e_median : 0.0;
    peer["checksum"] = ps.body_calls;
    if (!ps.build.empty()) peer["build_ns_per_task"] = summarize(ps.build).to_json();
    if (!ps.run.empty()) peer["run_ns_per_task"] = summarize(ps.run).to_json();
    if (!ps.replay.empty()) peer["replay_ns_per_task"] = summarize(ps.replay).to_json();
    if (!ps.create.empty()) peer["create_ns_per_task"] = summarize(ps.create).to_json();
    return peer;
}

}  // namespace

nlohmann::json results_json(const ScenarioRun& run, const Measured& measured, nlohmann::json sim) {
    nlohmann::json results = nlohmann::json::array({our_result(run, measured, std::move(sim))});
    const double e2e_median = summarize(measured.end_to_end).median;
    for (const PeerSamples& ps : measured.peers)
        results.push_back(peer_result(run, ps, e2e_median));
    return results;
}

}  // namespace pto::bench
