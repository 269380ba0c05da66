// The virtual-time a2a3 model (SPEC §7): replays a recorded graph on a virtual clock, single-threaded and
// deterministic for a seed, with the same dispatch policy as the scheduler threads, and predicts the device
// timeline, its lower bounds and the scheduling overhead. docs/design/virtual-time-model.md explains it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pto/runtime/config.h"
#include "pto/runtime/export.h"
#include "pto/runtime/graph.h"

namespace pto {

/// DependencyMode: how the orchestrator built dependencies, which sets its cost per submit.
enum class DependencyMode : std::uint8_t { Manual, Tensormap, StaticManual, StaticTensormap };

/// DurationModel: how a subtask's kernel duration is drawn from its kernel's cost.
enum class DurationModel : std::uint8_t {
    Fixed,      ///< exactly the mean
    Normal,     ///< mean * (1 + cv * z), z standard normal, clamped at 0
    LogNormal,  ///< lognormal with the kernel's mean and coefficient of variation cv
    Quantiles,  ///< piecewise-linear inverse CDF through min, median, P90, P99, max; kernels without all of
                ///< min/median/P90/P99 fall back to LogNormal
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

/// CostModel: every cost of the model, in microseconds of device time, each overridable. Defaults and their
/// sources (SPEC §7; docs/design/virtual-time-model.md has the reasoning):
struct CostModel {
    // ---- AI cores ----
    /// Kernel durations: GraphRecord::kernels gives each kernel's mean; entries here override or extend it.
    std::vector<KernelCost> kernels;
    DurationModel durations = DurationModel::Fixed;
    /// Coefficient of variation for Normal / LogNormal. Default 0.1 (assumed; no published figure). >= 0.
    double duration_cv = 0.1;

    // ---- Orchestrator (1 AICPU thread) ----
    /// Cost of one submit (any task kind). Default 0.874: the published AICPU figure for a tensormap submit.
    /// Use for_mode() for the other dependency modes, or host_submit_us() for a host measurement.
    double submit_us = 0.874;
    /// Extra cost per producer edge of a submit. Default 0 (the published figure is per submit).
    double submit_edge_us = 0.0;

    // ---- Scheduler threads (AICPU) ----
    /// Taking one ready task and claiming its blocks: once per task per scheduler pass that places blocks of
    /// it (an SPMD launch spread over k passes pays k times). Published 3-6 us per dispatch; default 4.5, the
    /// midpoint. Per task, not per block: the seed notes that SPMD launches lighten the AICPU's per-task
    /// load.
    double dispatch_us = 4.5;
    /// Completing one task, paid when its last block (a MIX block: its last lane) is handled, and per
    /// dependency-only task. Published 2-4 us; default 3.0, the midpoint. Other blocks cost only their poll.
    double completion_us = 3.0;
    /// Walking one fanout edge of a completed task (one consumer's fanin decrement). Default 0.1.
    double fanout_edge_us = 0.1;
    /// Loading one core's task register: per core written (a MIX block writes three). Default 0.8.
    double core_pickup_us = 0.8;
    /// Reading one busy core's status register, once per scheduler pass. Default 0.1.
    double poll_us = 0.1;

    /// default_submit_us: Tensormap 0.874 (published); Manual 0.437 (the published figure without its
    /// lookup / dependency-building half); StaticManual 0.2185 and StaticTensormap 0.437 (half of the
    /// dynamic mode: the SPEC §11 target ratio for templates, an assumption, not a measurement).
    [[nodiscard]] static double default_submit_us(DependencyMode mode);
    /// for_mode: the default model with submit_us = default_submit_us(mode).
    [[nodiscard]] static CostModel for_mode(DependencyMode mode);
    /// host_submit_us: a host measurement scaled to the device, host_ns_per_submit * frequency_scale / 1000,
    /// where frequency_scale = host speed / AICPU speed (calibrate it, e.g. 874 / host tensormap ns).
    [[nodiscard]] static double host_submit_us(double host_ns_per_submit, double frequency_scale);
    /// validate: throws Error{InvalidArgument} naming the first field that is negative or not finite, or a
    /// kernel whose quantiles decrease.
    void validate() const;
};

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
struct OverheadShares {
    double aic = 0.0;
    double aiv = 0.0;
    double mix = 0.0;
    double all = 0.0;
    double has = 0.0;
};

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
    double orch_busy_us = 0.0;          ///< orchestrator time spent submitting
    double orch_wait_us = 0.0;          ///< orchestrator time spent waiting for the window
    double orchestration_end_us = 0.0;  ///< when the last task was submitted
    double sched_busy_us = 0.0;         ///< sum over scheduler threads of time spent in passes
    std::vector<double> sched_busy_us_per_thread;
    std::uint64_t tasks = 0;
    std::uint64_t kernel_tasks = 0;
    std::uint64_t subtasks = 0;
    std::uint64_t scheduler_passes = 0;
    std::uint64_t window_waits = 0;
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
