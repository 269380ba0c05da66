// The virtual-time a2a3 model (docs/design/virtual-time-model.md): replays a recorded graph on a virtual
// clock, single-threaded and deterministic for a seed, with the same dispatch policy as the scheduler
// threads, and predicts the device timeline, its lower bounds and the scheduling overhead.
// docs/design/virtual-time-model.md explains it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pto/runtime/config.h"
#include "pto/runtime/export.h"
#include "pto/runtime/graph.h"

namespace pto {

/// DurationModel: how a subtask's kernel duration is drawn from its kernel's cost.
enum class DurationModel : std::uint8_t {
    Fixed,      ///< exactly the mean
    Normal,     ///< mean * (1 + cv * z), z standard normal, clamped at 0
    LogNormal,  ///< lognormal with the kernel's mean and coefficient of variation cv
    Quantiles,  ///< piecewise-linear inverse CDF through min, median, P90, P99, max; kernels without all of
                ///< min/median/P90/P99 fall back to LogNormal. Draws are scaled by mean / (the curve's
                ///< own mean) so they keep the kernel's mean; the quantiles move by that factor.
};

/// KernelCost: a kernel's duration on the device. Matched to a task by `func`, or by `name` when func is
/// none. Quantile fields are optional (0 = unknown); the seed tables give min / median / P90 / P99 / max.
struct KernelCost {
    FuncId func;
    std::string name;
    double mean_us = 0.0;
    double min_us = 0.0;
    double median_us = 0.0;
    double p90_us = 0.0;
    double p99_us = 0.0;
    double max_us = 0.0;
};

/// CostModel: every cost of the model, in microseconds of device time, each overridable. The costs are
/// *marginal*: what one more submit, edge, dispatched block or completed block adds, not a runtime's loop
/// time per task. The defaults are the `proxy-a2a3` profile (sim_profile()), fitted by `pto-bench --fit`
/// to device measurements; docs/design/virtual-time-model.md gives each profile's source and residuals.
struct CostModel {
    // ---- AI cores ----
    /// Kernel durations: GraphRecord::kernels gives each kernel's mean; entries here override or extend it.
    std::vector<KernelCost> kernels;
    DurationModel durations = DurationModel::Fixed;
    /// Coefficient of variation for Normal / LogNormal. Default 0.1 (assumed; no published figure). >= 0.
    double duration_cv = 0.1;

    // ---- Orchestrator (1 AICPU thread): the same structure for every dependency scheme ----
    /// Cost of one submit (any task kind): building the task and publishing it.
    double submit_us = 0.1;
    /// Cost per dependency edge of a submit (each recorded producer, named explicitly or discovered).
    double submit_edge_us = 0.02;
    /// Cost per tensormap lookup and per tensormap insert (SimConfig::tensormap_lookups / _inserts).
    double tensormap_lookup_us = 0.115;
    double tensormap_insert_us = 0.115;

    // ---- Scheduler threads (AICPU) ----
    /// Building and writing one block's payload to its core (a MIX block: once for its three lanes).
    double dispatch_us = 1.807;
    /// Handling one finished block (a MIX block: once, when its last lane is handled), and completing one
    /// dependency-only task.
    double completion_us = 1.807;
    /// Releasing one fanout edge of a completed task (one consumer's fanin decrement).
    double fanout_edge_us = 0.05;
    /// From the dispatch write to the kernel's start on the core. Does not occupy the scheduler thread; a
    /// block written into a pending slot starts when the running kernel ends if the latency has passed.
    double start_latency_us = 12.53;
    /// Optional extra charges, 0 unless a profile sets them: per core written (a MIX block writes three)
    /// and per busy core polled in each scheduler pass.
    double core_pickup_us = 0.0;
    double poll_us = 0.0;

    /// host_submit_us: a host measurement scaled to the device, host_ns_per_submit * frequency_scale / 1000,
    /// where frequency_scale = AICPU time / host time for the same code.
    [[nodiscard]] static double host_submit_us(double host_ns_per_submit, double frequency_scale);
    /// validate: throws Error{InvalidArgument} naming the first field that is negative or not finite, or a
    /// kernel whose quantiles decrease.
    void validate() const;
};

/// CostParameter: one scalar cost of CostModel by its field name, for command lines and profile files.
struct CostParameter {
    const char* name;
    double CostModel::*field;
};
/// cost_parameters: every scalar of CostModel by name: the AICPU costs submit_us ... poll_us in declaration
/// order, then duration_cv.
[[nodiscard]] std::span<const CostParameter> cost_parameters();
/// find_cost_parameter: the parameter called `name`, or null.
[[nodiscard]] const CostParameter* find_cost_parameter(std::string_view name);
/// without_aicpu_costs: `cost` with every AICPU cost and the start latency at 0 (kernel durations kept):
/// the machine against which the device orchestration + scheduling cost is measured.
[[nodiscard]] CostModel without_aicpu_costs(CostModel cost);

/// SimProfile: a named cost model with where it comes from.
struct SimProfile {
    std::string name;
    std::string source;  ///< one line: what the costs were fitted to
    CostModel cost;
};
/// sim_profile: the built-in profile `name` ("proxy-a2a3", "simpler-a2a3"), or null. "host" is not a
/// built-in: pto-bench derives it from its own measurement.
[[nodiscard]] const SimProfile* sim_profile(std::string_view name);
/// sim_profiles: every built-in profile, the default (proxy-a2a3) first.
[[nodiscard]] std::span<const SimProfile> sim_profiles();

/// SimConfig: the machine, the costs, and the seed of one simulation.
struct SimConfig {
    /// Clusters, AIC/AIV per cluster, scheduler threads (cluster c belongs to thread c mod N), window_tasks
    /// (the orchestrator waits while window_tasks submitted tasks have not retired) and orchestration
    /// (Serial: schedulers start when the last task is submitted, no window limit). Other fields unused.
    RuntimeConfig machine = RuntimeConfig::a2a3();
    CostModel cost;
    /// Seeds the sampled durations; a duration depends only on (seed, task, block, lane).
    std::uint64_t seed = 1;
    /// Whether busy cores take a second subtask into their pending slot (the device has them). Default true.
    bool use_pending_slots = true;
    /// The orchestration run's tensormap work (OrchestratorStats::tensormap_lookups / _inserts). The
    /// recorded graph has no per-task counts, so the model spreads these totals evenly over the kernel
    /// submits (exact totals, each submit within one of the average).
    std::uint64_t tensormap_lookups = 0;
    std::uint64_t tensormap_inserts = 0;
    /// Whether the report carries AICPU slices and overhead counters for the trace (SimReport::trace).
    bool record_trace = true;
};

/// LowerBounds: makespans no schedule can beat, in microseconds, with the durations the run drew.
struct LowerBounds {
    double critical_path_us = 0.0;  ///< longest producer chain of task kernel time (task = its longest block)
    double aic_work_us = 0.0;       ///< AIC lane time (AIC tasks + MIX lane 0) / AIC cores
    double aiv_work_us = 0.0;       ///< AIV lane time (AIV tasks + MIX lanes 1, 2) / AIV cores
    double orchestration_us = 0.0;  ///< sum of submit costs
    double orchestration_path_us = 0.0;  ///< max over tasks of (submit costs up to it + its critical tail)
    double max_us = 0.0;                 ///< the largest of the above: the lower bound
};

/// OverheadShares: shares of the makespan, each in [0, 1]. At time t, with "idle" meaning a core executing
/// no kernel and "ready" meaning blocks of tasks whose producers are done that are not yet written to a core:
///   aic(t) = (ready AIC blocks > 0 and an AIC core is idle) or mix(t)
///   aiv(t) = (ready AIV blocks > 0 and an AIV core is idle) or mix(t)
///   mix(t) = ready MIX blocks > 0 and some cluster has all of its units idle (a MIX block can run nowhere
///            else, so an idle AIC core in a partly busy cluster does not count as stranding MIX work)
///   all(t) = aic(t) and aiv(t)
///   has(t) = some engine (AIC, AIV) has ready work (its own shape or MIX) and every engine that has
///            ready work is in overhead
/// Each share is the measure of {t in [0, makespan) : condition(t)} divided by the makespan.
/// The capacity-weighted shares are the share of capacity lost rather than of time: per engine,
///   integral of min(ready blocks it could run, idle cores of it) dt / (its cores * makespan),
/// where an AIC core can run a ready AIC block and an AIV core a ready AIV block, and a ready MIX block
/// counts (once per lane) only while a wholly idle cluster exists for it: min(ready MIX, idle clusters).
struct OverheadShares {
    double aic = 0.0;
    double aiv = 0.0;
    double mix = 0.0;
    double all = 0.0;
    double has = 0.0;
    double capacity_aic = 0.0;
    double capacity_aiv = 0.0;
};

/// KernelHeadTail: per kernel, the per-subtask overheads around its kernel time, in microseconds:
///   head = start - max(dispatch, the moment its core became free: the previous subtask's end there, or 0)
///   tail = finish (completion handled) - end
/// (each MIX lane is a subtask of its own).
struct KernelHeadTail {
    FuncId func;
    std::string name;
    std::uint64_t subtasks = 0;
    double head_mean_us = 0.0;
    double head_p90_us = 0.0;
    double tail_mean_us = 0.0;
    double tail_p90_us = 0.0;
};
/// measure_head_tail: KernelHeadTail per kernel of `timeline` (any timeline: simulated or recorded), plus
/// a last entry named "all" over every subtask; kernels in order of first appearance. Names come from
/// graph.kernels (the FuncId's number when absent). P90 is the nearest-rank 90th percentile.
[[nodiscard]] std::vector<KernelHeadTail> measure_head_tail(std::span<const SubtaskRecord> timeline,
                                                            const GraphRecord& graph);

/// ReadyMark: when a kernel task became ready (all producers done and the task published).
struct ReadyMark {
    TaskId task;
    CoreType core = CoreType::AIC;
    std::uint32_t blocks = 1;
    std::int64_t ready_ns = 0;
};

/// SimReport: the prediction. Times in microseconds from the start of orchestration.
struct SimReport {
    double makespan_us = 0.0;  ///< when the last task ended (kernel: last subtask end; framework: completion)
    double drain_us = 0.0;     ///< when the schedulers had processed the last completion
    LowerBounds bounds;
    double lower_bound_us = 0.0;   ///< bounds.max_us
    double utilisation_aic = 0.0;  ///< busy AIC core time / (AIC cores * makespan)
    double utilisation_aiv = 0.0;
    OverheadShares overhead;
    std::vector<KernelHeadTail> head_tail;  ///< measure_head_tail of the timeline
    double orch_busy_us = 0.0;              ///< orchestrator time spent submitting
    double orch_wait_us = 0.0;              ///< orchestrator time spent waiting for the window
    double orchestration_end_us = 0.0;      ///< when the last task was submitted
    double sched_busy_us = 0.0;             ///< sum over scheduler threads of time spent in passes
    std::vector<double> sched_busy_us_per_thread;
    std::uint64_t tasks = 0;
    std::uint64_t kernel_tasks = 0;
    std::uint64_t subtasks = 0;
    std::uint64_t scheduler_passes = 0;
    std::uint64_t window_waits = 0;
    /// Recorded waits of a data-dependent orchestration (GraphRecord::waits) that found their task
    /// unfinished, and the orchestrator time spent in them: it submits nothing past a wait before the
    /// awaited task's completion has been handled.
    std::uint64_t task_waits = 0;
    double task_wait_us = 0.0;
    /// The simulated timeline: one record per subtask lane, sorted by (dispatch, core), in the runtime's
    /// format (times in ns, dispatch = written to the core, finish = completion handled by its scheduler).
    std::vector<SubtaskRecord> timeline;
    std::vector<ReadyMark> ready;  ///< one per kernel task, in graph order
    /// AICPU tracks ("orchestrator", "scheduler <k>") and overhead / ready / idle counters, for
    /// write_perfetto_trace(out, graph, timeline, machine, trace). Empty unless SimConfig::record_trace.
    TraceExtras trace;
};

/// simulate: replays `graph` (tasks in submission order; producers must precede their consumers) on the
/// machine and costs of `config`. Pure: no threads, no wall clock; equal inputs give equal reports.
/// Throws Error{InvalidConfig} for a bad machine, Error{InvalidArgument} for a bad cost model, a kernel
/// task without a duration (func not in graph.kernels nor cost.kernels), a kernel task of core type None,
/// or a producer that does not precede its consumer. Cost: O((tasks + edges + subtasks) log events).
[[nodiscard]] SimReport simulate(const GraphRecord& graph, const SimConfig& config);

/// DeviceOrchestrationCost: what orchestration and scheduling cost the device for one graph: the
/// predicted makespan minus the makespan of the same graph, durations and machine with every AICPU cost
/// (and the start latency) at zero.
struct DeviceOrchestrationCost {
    double makespan_us = 0.0;
    double zero_cost_makespan_us = 0.0;
    double cost_us = 0.0;        ///< makespan_us - zero_cost_makespan_us
    double ns_per_launch = 0.0;  ///< cost per kernel launch (kernel task), in nanoseconds
};
/// device_orchestration_cost: runs the zero-cost simulation and compares it with `report`, the report of
/// simulate(graph, config).
[[nodiscard]] DeviceOrchestrationCost device_orchestration_cost(const GraphRecord& graph,
                                                                const SimConfig& config,
                                                                const SimReport& report);

/// measure_overhead: the OverheadShares of any timeline (simulated or hand-made) over [0, makespan_ns):
/// cores are busy on [start_ns, end_ns) of each record; a block counts as ready from its task's ready_ns
/// until the dispatch_ns of its lane-0 record. If `counters` is given, appends step series "overhead AIC",
/// "overhead AIV", "overhead MIX", "overhead all", "overhead has" (0/1), "ready AIC|AIV|MIX blocks" and
/// "idle AIC|AIV cores". Throws Error{InvalidArgument} for a record whose core is outside `machine`.
[[nodiscard]] OverheadShares measure_overhead(std::span<const SubtaskRecord> timeline,
                                              std::span<const ReadyMark> ready, const RuntimeConfig& machine,
                                              std::int64_t makespan_ns,
                                              std::vector<CounterSeries>* counters = nullptr);

}  // namespace pto
