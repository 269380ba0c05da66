// One scenario's measurements. Orchestration cost comes from serial mode (schedulers idle until the
// orchestration function returns, window sized to hold the graph), end-to-end cost from concurrent mode;
// both are medians over `reps` runs after `warmup` runs, on one Runtime reused across runs.
#include "runner.h"

#include <algorithm>
#include <bit>
#include <set>

#include "measure.h"
#include "pto/runtime/detail/throw.h"
#include "pto/scope/orchestration.h"

namespace pto::bench {
namespace {

std::uint32_t pow2_at_least(std::uint64_t n, std::uint32_t floor) {
    return static_cast<std::uint32_t>(std::bit_ceil(std::max<std::uint64_t>(n, floor)));
}

/// Probe: the graph of one serial run with a generous window, so every logical edge is recorded (no
/// producer retires while the graph is built), plus the capacities the timed runs need.
struct Probe {
    GraphRecord graph;
    OrchestratorStats stats;
};

Probe probe(Workload& workload, const Scenario& scenario) {
    RuntimeConfig config;
    config.orchestration = OrchestrationMode::Serial;
    config.window_tasks = 1u << 16;
    config.edge_capacity = 1u << 20;
    config.tensormap_entries = 1u << 18;
    config.heap_bytes = 1ull << 30;
    config.record_graph = true;
    Runtime rt(config);
    workload.register_kernels(rt);
    Orchestrator orchestrator(rt);
    orchestrator.run([&] { workload.orchestrate(scenario.mode, scenario.tier); });
    return Probe{rt.graph(), rt.last_report().orchestrator};
}

RuntimeConfig serial_config(const Probe& p) {
    RuntimeConfig config;
    config.orchestration = OrchestrationMode::Serial;
    config.window_tasks = pow2_at_least(p.graph.tasks.size() + 1, 8);
    config.edge_capacity = pow2_at_least(p.stats.edges_linked + p.stats.edges_to_completed + 64, 64);
    config.tensormap_entries = pow2_at_least(p.stats.tensormap_inserts + 64, 64);
    config.heap_bytes = std::max<std::uint64_t>(2 * p.stats.heap_bytes_allocated + (1u << 20), 1u << 20);
    return config;
}

template <class Body>
std::vector<double> time_runs(Runtime& rt, const BenchOptions& o, Body&& body, bool end_to_end, Checksum& sum) {
    Orchestrator orchestrator(rt);
    std::vector<double> samples;
    samples.reserve(o.reps);
    for (std::uint32_t i = 0; i < o.warmup + o.reps; ++i) {
        const RunReport r = orchestrator.run(body);
        sum.add(r.completed);
        if (i < o.warmup || r.kernel_tasks == 0) continue;
        const double ns = static_cast<double>(end_to_end ? r.end_to_end_ns : r.orchestration_ns);
        samples.push_back(ns / static_cast<double>(r.kernel_tasks));
    }
    return samples;
}

}  // namespace

std::unique_ptr<Workload> make_synthetic_workload(CaseKind kind);

GraphCounts count_graph(const GraphRecord& graph) {
    GraphCounts c;
    std::vector<bool> is_kernel(graph.tasks.size());
    for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
        const RecordedTask& t = graph.tasks[i];
        is_kernel[i] = t.kind == TaskKind::Kernel;
        if (is_kernel[i]) {
            ++c.tasks;
            c.subtasks += t.block_num;
        } else {
            ++c.framework_tasks;
        }
    }
    for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
        for (TaskId p : graph.producers_of(graph.tasks[i])) {  // producers are unique per task
            const std::int64_t pi = graph.index_of(p);
            const bool kernel_pair = pi >= 0 && is_kernel[static_cast<std::size_t>(pi)] && is_kernel[i];
            ++(kernel_pair ? c.edges : c.framework_edges);
        }
    }
    return c;
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
    std::unique_ptr<Workload> workload = make_workload(scenario.kind, o.executor);
    if (!workload->supports(scenario.mode))
        detail::throw_error(ErrorCode::InvalidArgument,
                            "scenario " + scenario.id + " is not available: the " +
                                std::string(to_string(scenario.kind)) + " workload has no " +
                                std::string(examples::to_string(scenario.mode)) + " scheme");
    Checksum checksum;
    const auto body = [&] { workload->orchestrate(scenario.mode, scenario.tier); };

    const Probe p = probe(*workload, scenario);
    const GraphCounts counts = count_graph(p.graph);

    std::vector<double> orchestration;
    {
        Runtime rt(serial_config(p));
        workload->register_kernels(rt);
        orchestration = time_runs(rt, o, body, false, checksum);
    }
    std::vector<double> end_to_end;
    {
        RuntimeConfig config;
        config.executor = o.executor;
        config.heap_bytes = std::max<std::uint64_t>(config.heap_bytes, serial_config(p).heap_bytes);
        Runtime rt(config);
        workload->register_kernels(rt);
        end_to_end = time_runs(rt, o, body, true, checksum);
    }
    const Summary orch = summarize(orchestration);
    const Summary e2e = summarize(end_to_end);

    nlohmann::json result = {
        {"case", to_string(scenario.kind)},
        {"mode", examples::to_string(scenario.mode)},
        {"tier", scenario.tier ? nlohmann::json(examples::to_string(*scenario.tier)) : nlohmann::json(nullptr)},
        {"executor", o.executor == Executor::Instant ? "instant" : o.executor == Executor::Timed ? "timed" : "compute"},
        {"peer", nullptr},
        {"sizes", workload->sizes()},
        {"tasks", counts.tasks},
        {"framework_tasks", counts.framework_tasks},
        {"subtasks", counts.subtasks},
        {"edges", counts.edges},
        {"framework_edges", counts.framework_edges},
        {"orch_ns_per_task", orch.to_json()},
        {"e2e_ns_per_task", e2e.to_json()},
        {"tasks_per_s", e2e.median > 0 ? 1e9 / e2e.median : 0.0},
        {"reps", o.reps},
        {"checksum", checksum.value()},
    };
    if (o.executor == Executor::Compute) {
        const std::string verdict = workload->verify();
        result["golden"] = verdict.empty() ? "match" : verdict;
    }
    return nlohmann::json::array({result});
}

}  // namespace pto::bench
