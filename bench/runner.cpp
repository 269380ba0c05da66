// One scenario's measurements. Orchestration cost comes from serial mode (schedulers idle until the
// orchestration function returns, window sized to hold the graph), end-to-end cost from concurrent mode;
// both are medians over `reps` runs after `warmup` runs, on one Runtime and Orchestrator reused across runs.
// With --peers, each end-to-end repetition is followed by one repetition of every peer, so machine drift
// hits all of them alike.
#include "runner.h"

#include <algorithm>
#include <bit>
#include <fstream>
#include <iostream>

#include "measure.h"
#include "peers/peer.h"
#include "profile.h"
#include "pto/runtime/detail/throw.h"
#include "pto/runtime/export.h"
#include "pto/runtime/simulate.h"
#include "pto/scope/orchestration.h"

namespace pto::bench {
namespace {

std::uint32_t pow2_at_least(std::uint64_t n, std::uint32_t floor) {
    return static_cast<std::uint32_t>(std::bit_ceil(std::max<std::uint64_t>(n, floor)));
}

/// Probe: the graph of one serial run whose window holds the whole graph, so every logical edge is
/// recorded (no producer retires while the graph is built), plus the capacities the measured runs need.
struct Probe {
    GraphRecord graph;
    OrchestratorStats stats;
};

Probe probe(Workload& workload, const Scenario& scenario) {
    // Start small (memory: every window slot costs ~130 bytes of preallocated state) and grow until the
    // graph fits; serial mode reports a window that is too small as CapacityDeadlock.
    for (std::uint32_t window = 1u << 12;; window <<= 2) {
        RuntimeConfig config;
        config.orchestration = OrchestrationMode::Serial;
        config.window_tasks = window;
        config.edge_capacity = std::max<std::uint32_t>(window * 16, 1u << 17);
        config.tensormap_entries = std::max<std::uint32_t>(window * 4, 1u << 14);
        config.argument_bytes = std::uint64_t{window} * 1024;
        config.heap_bytes = 1ull << 30;
        config.record_graph = true;
        Runtime rt(config);
        workload.register_kernels(rt);
        Orchestrator orchestrator(rt);
        workload.prepare_run();
        try {
            orchestrator.run([&] { workload.orchestrate(scenario.mode, scenario.tier); });
        } catch (const Error& e) {
            if (e.code() != ErrorCode::CapacityDeadlock || window >= (1u << 20)) throw;
            continue;
        }
        return Probe{rt.graph(), rt.last_report().orchestrator};
    }
}

RuntimeConfig serial_config(const Probe& p) {
    RuntimeConfig config;
    config.orchestration = OrchestrationMode::Serial;
    config.window_tasks = pow2_at_least(p.graph.tasks.size() + 1, 8);
    config.edge_capacity = pow2_at_least(p.stats.edges_linked + p.stats.edges_to_completed + 64, 64);
    config.tensormap_entries = pow2_at_least(p.stats.tensormap_inserts + 64, 64);
    config.argument_bytes = std::uint64_t{config.window_tasks} * 1024;
    config.heap_bytes = std::max<std::uint64_t>(2 * p.stats.heap_bytes_allocated + (1u << 20), 1u << 20);
    return config;
}

double per_task(std::int64_t ns, std::uint64_t tasks) {
    return tasks == 0 ? 0.0 : static_cast<double>(ns) / static_cast<double>(tasks);
}

/// Samples: per-task figures of one measurement, one value per measured repetition.
struct PeerSamples {
    Peer peer;
    std::vector<double> total, build, run, replay, create;
    std::uint64_t body_calls = 0;
};

void write_file(const BenchOptions& o, const std::string& path, const std::string& what,
                const std::function<void(std::ostream&)>& write) {
    if (o.write_output) {
        o.write_output(path, what, write);
        return;
    }
    std::ofstream out(path);
    write(out);
    if (!out) detail::throw_error(ErrorCode::InvalidArgument, "cannot write " + path);
}

nlohmann::json sim_json(const SimReport& s, const CostModel& cost) {
    return {{"makespan_us", s.makespan_us},
            {"lower_bound_us", s.lower_bound_us},
            {"lower_bounds_us",
             {{"critical_path", s.bounds.critical_path_us},
              {"aic_work", s.bounds.aic_work_us},
              {"aiv_work", s.bounds.aiv_work_us},
              {"orchestration", s.bounds.orchestration_us},
              {"orchestration_path", s.bounds.orchestration_path_us}}},
            {"utilisation_pct", {{"aic", 100.0 * s.utilisation_aic}, {"aiv", 100.0 * s.utilisation_aiv}}},
            {"overhead_pct",
             {{"aic", 100.0 * s.overhead.aic},
              {"aiv", 100.0 * s.overhead.aiv},
              {"mix", 100.0 * s.overhead.mix},
              {"all", 100.0 * s.overhead.all},
              {"has", 100.0 * s.overhead.has}}},
            {"orch_busy_us", s.orch_busy_us},
            {"sched_busy_us", s.sched_busy_us},
            {"submit_us", cost.submit_us}};
}

}  // namespace

RecordedGraph record_graph(const Scenario& scenario) {
    std::unique_ptr<Workload> workload = make_workload(scenario.kind, Executor::Instant);
    Probe p = probe(*workload, scenario);
    return RecordedGraph{std::move(p.graph), p.stats};
}

std::string file_for(const std::string& path, const Scenario& scenario, bool several) {
    if (!several) return path;
    std::string id = scenario.id;
    std::replace(id.begin(), id.end(), '/', '.');
    const auto dot = path.find_last_of('.');
    const auto slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + "." + id;
    return path.substr(0, dot) + "." + id + path.substr(dot);
}

nlohmann::json run_scenario(const Scenario& scenario, const BenchOptions& o) {
    if (!supports(scenario.kind, scenario.mode))
        detail::throw_error(ErrorCode::InvalidArgument,
                            "the " + std::string(to_string(scenario.kind)) + " workload has no " +
                                std::string(examples::to_string(scenario.mode)) + " scheme");
    std::unique_ptr<Workload> workload = make_workload(scenario.kind, o.executor);
    Checksum checksum;
    const auto body = [&] { workload->orchestrate(scenario.mode, scenario.tier); };
    const auto timed_runs = [&](Runtime& rt, bool end_to_end, auto&& after_each) {
        Orchestrator orchestrator(rt);
        std::vector<double> samples;
        samples.reserve(o.reps);
        for (std::uint32_t i = 0; i < o.warmup + o.reps; ++i) {
            workload->prepare_run();
            const RunReport r = orchestrator.run(body);
            checksum.add(r.completed);
            if (i < o.warmup) continue;
            // Orchestration cost excludes pto::wait: in serial mode a wait runs the graph submitted so far.
            samples.push_back(per_task(
                end_to_end ? r.end_to_end_ns : r.orchestration_ns - r.orchestrator.wait_ns, r.kernel_tasks));
            after_each();
        }
        return samples;
    };

    const Probe p = probe(*workload, scenario);
    const GraphCounts counts = count_graph(p.graph);

    std::vector<double> orchestration;
    {
        Runtime rt(serial_config(p));
        workload->register_kernels(rt);
        orchestration = timed_runs(rt, false, [] {});
    }

    std::vector<PeerSamples> peers;
    if (o.peers)
        peers = {PeerSamples{Peer::TbbFlowGraph, {}, {}, {}, {}, {}, 0},
                 PeerSamples{Peer::OmpDepend, {}, {}, {}, {}, {}, 0}};
    const auto run_peers = [&] {
        for (PeerSamples& ps : peers) {
            const PeerRun r =
                ps.peer == Peer::TbbFlowGraph ? run_tbb_flow_graph(p.graph) : run_omp_depend(p.graph);
            ps.body_calls += r.body_calls;
            ps.total.push_back(per_task(r.total_ns, r.kernel_tasks));
            if (r.build_ns) ps.build.push_back(per_task(*r.build_ns, r.kernel_tasks));
            if (r.run_ns) ps.run.push_back(per_task(*r.run_ns, r.kernel_tasks));
            if (r.replay_ns) ps.replay.push_back(per_task(*r.replay_ns, r.kernel_tasks));
            if (r.create_ns) ps.create.push_back(per_task(*r.create_ns, r.kernel_tasks));
        }
    };

    RuntimeConfig concurrent;
    concurrent.executor = o.executor;
    if (o.scheduler_threads != 0) concurrent.scheduler_threads = o.scheduler_threads;
    concurrent.timed_scale = o.timed_scale;
    concurrent.timed_jitter = o.jitter;
    concurrent.heap_bytes = std::max<std::uint64_t>(concurrent.heap_bytes, serial_config(p).heap_bytes);
    std::vector<double> end_to_end;
    std::string golden;
    {
        Runtime rt(concurrent);
        workload->register_kernels(rt);
        end_to_end = timed_runs(rt, true, run_peers);
        if (o.executor == Executor::Compute) golden = workload->verify();
    }

    if (!o.trace_path.empty()) {
        RuntimeConfig traced = concurrent;
        traced.record_subtasks = true;
        traced.record_graph = true;
        Runtime rt(traced);
        workload->register_kernels(rt);
        workload->prepare_run();
        pto::run(rt, body);
        const TraceExtras lanes = run_trace_extras(rt.graph(), rt.aicpu_records(), traced);
        write_file(
            o, file_for(o.trace_path, scenario, o.several_scenarios), "trace of " + scenario.id,
            [&](std::ostream& out) { write_perfetto_trace(out, rt.graph(), rt.subtasks(), traced, lanes); });
        if (o.executor == Executor::Instant)
            std::cerr << "pto-bench: warning: " << scenario.id << ": " << instant_executor_warning() << '\n';
        if (o.kernel_stats) {
            std::cout << "\n"
                      << scenario.id << ": recorded per-kernel timing of the traced run (us, "
                      << to_string(o.executor) << " executor)\n";
            write_timing_table(std::cout, timing_by_kernel(rt.graph(), rt.subtasks()));
            write_timing_table(std::cout, timing_by_core_type(rt.subtasks()));
        }
    }
    if (!o.dot_path.empty()) {
        const std::string path = file_for(o.dot_path, scenario, o.several_scenarios);
        write_file(o, path, "task graph of " + scenario.id, [&](std::ostream& out) {
            if (p.graph.tasks.size() > kMaxDotTasks)
                detail::throw_error(ErrorCode::InvalidArgument,
                                    scenario.id + " has " + std::to_string(p.graph.tasks.size()) +
                                        " tasks, more than --dot draws (" + std::to_string(kMaxDotTasks) +
                                        "); use --dot-summary for the kernel-level graph");
            write_graph_dot(out, p.graph);
        });
    }
    if (!o.dot_summary_path.empty())
        write_file(o, file_for(o.dot_summary_path, scenario, o.several_scenarios),
                   "kernel-level graph of " + scenario.id,
                   [&](std::ostream& out) { write_graph_dot_summary(out, p.graph); });

    nlohmann::json profile;
    if (o.profile)
        profile =
            profile_runs(*workload, body, serial_config(p), concurrent, std::min<std::uint32_t>(o.reps, 50));

    const Summary orch = summarize(orchestration);
    const Summary e2e = summarize(end_to_end);
    const nlohmann::json tier =
        scenario.tier ? nlohmann::json(examples::to_string(*scenario.tier)) : nlohmann::json(nullptr);
    // The identity and count fields every result of this scenario carries, ours and each peer's
    // (docs/bench.md).
    const auto result_for = [&](nlohmann::json peer) {
        return nlohmann::json{
            {"case", to_string(scenario.kind)},
            {"mode", examples::to_string(scenario.mode)},
            {"tier", tier},
            {"executor", to_string(o.executor)},
            {"peer", std::move(peer)},
            {"sizes", workload->sizes()},
            {"tasks", counts.kernel_tasks},
            {"framework_tasks", counts.framework_tasks},
            {"subtasks", counts.subtasks},
            {"edges", counts.kernel_edges},
            {"framework_edges", counts.framework_edges},
            {"reps", o.reps},
        };
    };
    nlohmann::json result = result_for(nullptr);
    result["orch_ns_per_task"] = orch.to_json();
    result["e2e_ns_per_task"] = e2e.to_json();
    result["tasks_per_s"] = e2e.median > 0 ? 1e9 / e2e.median : 0.0;
    result["scheduler_threads"] = concurrent.scheduler_threads;
    if (o.executor != Executor::Instant) {
        result["timed_scale"] = o.timed_scale;
        result["jitter"] = o.jitter;
    }
    if (o.executor == Executor::Compute) result["golden"] = golden.empty() ? "match" : golden;
    if (!profile.is_null()) result["profile"] = std::move(profile);

    if (o.simulate) {
        SimConfig sim = sim_config_for(o.sim, p.graph, p.stats, orch.median);
        sim.record_trace = !o.sim_trace_path.empty();
        const SimReport report = simulate(p.graph, sim);
        result["sim"] = sim_json(report, sim.cost);
        result["sim"].update(sim_settings_json(o.sim, sim));
        result["sim"].update(sim_extra_json(report, device_orchestration_cost(p.graph, sim, report)));
        if (!o.sim_trace_path.empty()) {
            TraceExtras extras = report.trace;
            extras.dependency_arrows = true;
            extras.kernel_counters = true;
            extras.notes.emplace_back("source", "virtual-time model");
            write_file(o, file_for(o.sim_trace_path, scenario, o.several_scenarios),
                       "simulated trace of " + scenario.id, [&](std::ostream& out) {
                           write_perfetto_trace(out, p.graph, report.timeline, sim.machine, extras);
                       });
        }
        if (o.kernel_stats) {
            std::cout << "\n" << scenario.id << ": simulated per-kernel timing (us)\n";
            write_timing_table(std::cout, timing_by_kernel(p.graph, report.timeline));
            write_timing_table(std::cout, timing_by_core_type(report.timeline));
        }
    }
    result["checksum"] = checksum.value();

    nlohmann::json results = nlohmann::json::array({result});
    for (const PeerSamples& ps : peers) {
        const Summary total = summarize(ps.total);
        nlohmann::json peer = result_for(to_string(ps.peer));
        peer["e2e_ns_per_task"] = total.to_json();
        peer["tasks_per_s"] = total.median > 0 ? 1e9 / total.median : 0.0;
        peer["ratio"] = e2e.median > 0 ? total.median / e2e.median : 0.0;
        peer["checksum"] = ps.body_calls;
        if (!ps.build.empty()) peer["build_ns_per_task"] = summarize(ps.build).to_json();
        if (!ps.run.empty()) peer["run_ns_per_task"] = summarize(ps.run).to_json();
        if (!ps.replay.empty()) peer["replay_ns_per_task"] = summarize(ps.replay).to_json();
        if (!ps.create.empty()) peer["create_ns_per_task"] = summarize(ps.create).to_json();
        results.push_back(std::move(peer));
    }
    return results;
}

}  // namespace pto::bench
