// simulate(): validates the inputs, runs the Simulator, and derives the report: makespan, lower bounds,
// utilisation and overhead shares per engine, busy times, and the trace extras.
#include <algorithm>
#include <string>
#include <vector>

#include "kernel_durations.h"
#include "pto/runtime/detail/throw.h"
#include "pto/runtime/simulate.h"
#include "simulator.h"

namespace pto {
namespace {

double to_us(std::int64_t ns) {
    return static_cast<double>(ns) / 1000.0;
}

void check_durations(const GraphRecord& graph, const detail::sim::KernelDurations& durations,
                     const RuntimeConfig& m) {
    const std::uint32_t units = m.aic_per_cluster + m.aiv_per_cluster;
    for (const RecordedTask& t : graph.tasks) {
        if (t.kind != TaskKind::Kernel) continue;
        const std::uint32_t lanes = t.core == CoreType::MIX ? units : 1;
        for (std::uint32_t l = 0; l < lanes; ++l) {
            const FuncId f = t.funcs[l];
            if (l > 0 && f.is_none()) continue;  // a MIX lane without a kernel idles for the block
            if (!durations.has(f)) [[unlikely]]
                detail::throw_error(ErrorCode::InvalidArgument,
                                    "simulate: task " + std::to_string(t.id.value) + " (lane " +
                                        std::to_string(l) + ") runs func " +
                                        (f.is_none() ? std::string("none") : std::to_string(f.value)) +
                                        ", which has no duration: it is in neither GraphRecord::kernels nor "
                                        "CostModel::kernels");
        }
    }
}

LowerBounds lower_bounds(const GraphRecord& graph, const detail::sim::SimGraph& g,
                         const detail::sim::SimOutput& out, const RuntimeConfig& m) {
    const std::size_t n = graph.tasks.size();
    // A task's kernel time: its longest block (all blocks could run at once), a MIX block its longest lane.
    std::vector<std::int64_t> weight(n, 0);
    std::int64_t aic_work = 0;
    std::int64_t aiv_work = 0;
    for (const SubtaskRecord& r : out.timeline) {
        const std::int64_t d = r.end_ns - r.start_ns;
        const std::int64_t i = graph.index_of(r.task);
        if (i >= 0) weight[static_cast<std::size_t>(i)] = std::max(weight[static_cast<std::size_t>(i)], d);
        (r.core < m.aic_count() ? aic_work : aiv_work) += d;
    }
    std::vector<std::int64_t> finish(n, 0);
    std::int64_t critical = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const RecordedTask& t = graph.tasks[i];
        std::int64_t start = 0;
        for (std::uint32_t e = t.first_producer; e < t.first_producer + t.producer_count; ++e)
            if (g.producer_index[e] >= 0)
                start = std::max(start, finish[static_cast<std::size_t>(g.producer_index[e])]);
        finish[i] = start + weight[i];
        critical = std::max(critical, finish[i]);
    }
    // Task i is published no earlier than the sum of submit costs up to it, and its longest chain of
    // descendants (its tail) runs after that.
    std::vector<std::int64_t> tail(n, 0);
    for (std::size_t i = n; i-- > 0;) {
        std::int64_t longest = 0;
        for (std::uint32_t k = g.consumer_begin[i]; k < g.consumer_begin[i + 1]; ++k)
            longest = std::max(longest, tail[g.consumers[k]]);
        tail[i] = weight[i] + longest;
    }
    std::int64_t submitted = 0;
    std::int64_t orchestration_path = 0;
    for (std::size_t i = 0; i < n; ++i) {
        submitted += out.submit_cost_ns[i];
        orchestration_path = std::max(orchestration_path, submitted + tail[i]);
    }
    LowerBounds b;
    b.critical_path_us = to_us(critical);
    b.aic_work_us = to_us(aic_work) / static_cast<double>(m.aic_count());
    b.aiv_work_us = to_us(aiv_work) / static_cast<double>(m.aiv_count());
    b.orchestration_us = to_us(submitted);
    b.orchestration_path_us = to_us(orchestration_path);
    b.max_us = std::max(
        {b.critical_path_us, b.aic_work_us, b.aiv_work_us, b.orchestration_us, b.orchestration_path_us});
    return b;
}

}  // namespace

SimReport simulate(const GraphRecord& graph, const SimConfig& config) {
    config.machine.validate();
    config.cost.validate();
    const detail::sim::SimGraph g = detail::sim::SimGraph::build(graph);
    const detail::sim::KernelDurations durations(graph, config.cost, config.seed);
    check_durations(graph, durations, config.machine);

    detail::sim::Simulator simulator(graph, g, durations, config);
    detail::sim::SimOutput out = simulator.run();

    const RuntimeConfig& m = config.machine;
    SimReport r;
    std::int64_t makespan = 0;
    for (std::int64_t end : out.task_end_ns)
        makespan = std::max(makespan, end);
    r.makespan_us = to_us(makespan);
    r.drain_us = to_us(std::max(out.drain_ns, makespan));
    r.bounds = lower_bounds(graph, g, out, m);
    r.lower_bound_us = r.bounds.max_us;

    std::int64_t busy_aic = 0;
    std::int64_t busy_aiv = 0;
    for (const SubtaskRecord& s : out.timeline)
        (s.core < m.aic_count() ? busy_aic : busy_aiv) += s.end_ns - s.start_ns;
    if (makespan > 0) {
        r.utilisation_aic = static_cast<double>(busy_aic) /
                            (static_cast<double>(m.aic_count()) * static_cast<double>(makespan));
        r.utilisation_aiv = static_cast<double>(busy_aiv) /
                            (static_cast<double>(m.aiv_count()) * static_cast<double>(makespan));
    }
    r.overhead = measure_overhead(out.timeline, out.ready, m, makespan,
                                  config.record_trace ? &out.trace.counters : nullptr);

    r.head_tail = measure_head_tail(out.timeline, graph);
    r.orch_busy_us = to_us(out.orch_busy_ns);
    r.orch_wait_us = to_us(out.orch_wait_ns);
    r.orchestration_end_us = to_us(out.orchestration_end_ns);
    for (std::int64_t ns : out.sched_busy_ns) {
        r.sched_busy_us_per_thread.push_back(to_us(ns));
        r.sched_busy_us += to_us(ns);
    }
    r.tasks = graph.tasks.size();
    for (const RecordedTask& t : graph.tasks) {
        if (t.kind != TaskKind::Kernel) continue;
        ++r.kernel_tasks;
        r.subtasks += t.block_num;
    }
    r.scheduler_passes = out.scheduler_passes;
    r.window_waits = out.window_waits;
    r.task_wait_us = to_us(out.task_wait_ns);
    r.task_waits = out.task_waits;
    r.timeline = std::move(out.timeline);
    r.ready = std::move(out.ready);
    if (config.record_trace) r.trace = std::move(out.trace);
    return r;
}

DeviceOrchestrationCost device_orchestration_cost(const GraphRecord& graph, const SimConfig& config,
                                                  const SimReport& report) {
    SimConfig zero = config;
    zero.cost = without_aicpu_costs(config.cost);
    zero.record_trace = false;
    const SimReport free_run = simulate(graph, zero);
    DeviceOrchestrationCost c;
    c.makespan_us = report.makespan_us;
    c.zero_cost_makespan_us = free_run.makespan_us;
    c.cost_us = report.makespan_us - free_run.makespan_us;
    if (report.kernel_tasks != 0)
        c.ns_per_launch = 1000.0 * c.cost_us / static_cast<double>(report.kernel_tasks);
    return c;
}

}  // namespace pto
