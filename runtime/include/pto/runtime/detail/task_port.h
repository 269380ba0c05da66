// TaskPort: the task-level interface of a Runtime that the scope and static_graph layers build on (and the
// runtime's own tests drive): the run lifecycle, submitting tasks and template instances, retirement and the
// scope hold. Graph authors never need it: they use pto::run, PTO2_SCOPE and the submit calls of
// pto/scope/orchestration.h, and static templates through pto/static_graph.
//
// A TaskPort is a reference to its Runtime: make one where it is needed (`detail::TaskPort(rt).submit(...)`);
// it costs nothing to construct or copy.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "pto/runtime/detail/instance_plan.h"
#include "pto/runtime/ids.h"
#include "pto/runtime/instance_edges.h"
#include "pto/runtime/runtime.h"
#include "pto/runtime/stats.h"
#include "pto/runtime/task_desc.h"

namespace pto {

/// InstanceNode: one task of a batch submitted with TaskPort::submit_instance (a static-template instance).
/// Internal edges are offsets relative to the node itself, so one table serves every instance; the two
/// tables must describe the same edges (see InstanceEdges::create for every rule).
struct InstanceNode {
    TaskSpec spec;
    /// Consumers inside the batch: node i feeds node i + d for each d (all d > 0), ascending.
    std::span<const std::uint32_t> consumer_offsets;
    /// Producers inside the batch: node i waits for node i - d for each d (all d > 0, d <= i), ascending.
    std::span<const std::uint32_t> producer_offsets;
    /// Producers outside the batch (boundary dependencies), as for TaskPort::submit.
    std::span<const TaskId> external_producers;
};

namespace detail {

/// TaskPort: see the top of this file. Every member except in_run() and the observability getters is called
/// on the orchestrator thread: the thread that called begin_run.
class TaskPort {
  public:
    explicit TaskPort(Runtime& runtime) : runtime_(&runtime) {}

    [[nodiscard]] Runtime& runtime() const { return *runtime_; }

    // ---- Run lifecycle ---------------------------------------------------------------------------------

    /// begin_run: starts a run on the calling thread, which becomes the orchestrator. In concurrent mode the
    /// schedulers start dispatching at once. Throws RunInProgress if a run is already open. If the previous
    /// run was aborted while kernels still ran, first waits for them; throws Stall if they make no progress
    /// for another stall_timeout_ms (the runtime then stays usable once they return).
    void begin_run();
    /// end_orchestration: marks the end of the orchestration function (its wall time is reported). Serial
    /// mode releases the schedulers here. Called by end_run if not called before.
    void end_orchestration();
    /// end_run: blocks until every submitted task has completed, failed or been cancelled, retires them all
    /// and returns the report (also kept as Runtime::last_report()). Never throws for kernel failures: the
    /// report lists them. Throws Stall if the watchdog saw a stall this call was waiting on: the run is
    /// aborted (no task starts any more, what had not started is cancelled), last_report() holds the counts
    /// and RunReport::stalls the classified reports (docs/reliability.md).
    RunReport end_run();

    // ---- Submission (orchestrator thread, inside a run) -------------------------------------------------

    /// submit: adds one task that waits for `producers` (duplicates are merged; producers that already
    /// retired are skipped). `scoped` means an open scope holds a reference to the task until
    /// release_scope. Create-info outputs in spec.tensors are allocated and written back. Blocks while the
    /// window, heap or edge pool is full and can drain; throws CapacityDeadlock if it cannot.
    /// Throws InvalidDependency, InvalidBlockNum, InvalidTensor, NoActiveRun; a throwing call changes
    /// nothing.
    TaskId submit(const TaskSpec& spec, std::span<const TaskId> producers, bool scoped);
    /// submit_alloc: adds an alloc task that owns one new buffer per create-info (at most kMaxTensorArgs);
    /// task_tensors(id) then holds their views, in order, creator set. The same task as a submit of an
    /// TaskKind::Alloc spec with create-info outputs, written without the generic argument path.
    /// Throws InvalidTensor (a rank outside 1..5), CapacityExhausted (larger than the heap), NoActiveRun.
    TaskId submit_alloc(std::span<const TensorCreateInfo> infos, bool scoped);
    /// submit_instance: adds nodes.size() tasks with contiguous ids starting at the returned id, wiring
    /// internal edges from the offsets without any discovery. The offset tables are checked on every call
    /// (InvalidTemplate naming the node and the offset, as InstanceEdges::create does) and the running
    /// tasks read them until they retire, so the caller keeps them alive until then. Throws
    /// CapacityExhausted if the batch is larger than the window (or the heap), otherwise waits like submit.
    TaskId submit_instance(std::span<InstanceNode> nodes, bool scoped);
    /// submit_instance with tables checked once: node k's offset spans must be exactly
    /// edges->consumers(k) / producers(k) (InvalidArgument otherwise), and the runtime holds a reference on
    /// `edges` until the instance's last task retires, so the caller may drop its own at once. This is how
    /// static templates submit: no per-edge work per instance.
    TaskId submit_instance(std::span<InstanceNode> nodes, const std::shared_ptr<const InstanceEdges>& edges,
                           bool scoped);
    /// submit_planned: an instance of `plan` (plan.nodes().size() tasks, contiguous ids from the returned
    /// one): the plan was checked when created and is checked against this runtime once per run
    /// (CapacityExhausted: window, heap or argument ring too small; UnknownKernel; InvalidArgument: MIX
    /// without two AIV lanes), so a call checks only `inputs`: spans sized as the plan says
    /// (InvalidArgument), each used tensor slot once (InvalidTensor: no buffer, a rank outside 1..5, a
    /// negative stride; naming the slot and a node it feeds) and the external producers (InvalidDependency
    /// unless they precede the instance; CapacityExhausted beyond the edge pool). Writes the allocated
    /// create-info views to inputs.created. The runtime holds plan.edges() until the last task retires.
    /// Otherwise as submit_instance: waits for room, and a throwing call changes nothing.
    TaskId submit_planned(const InstancePlan& plan, const InstanceInputs& inputs, bool scoped);
    /// task_tensors: the tensor arguments the runtime keeps for unretired task `id` (create-info outputs
    /// allocated, creator set), or an empty span if it keeps none (a framework task without outputs to
    /// allocate), keeps them by reference (a node of a submit_planned instance: each view once in the
    /// instance's view table; its kernel sees them resolved) or `id` retired. Valid until the task retires.
    [[nodiscard]] std::span<const TensorArg> task_tensors(TaskId id) const;
    /// retirement_counter: the retirement watermark as the orchestrator publishes it (every task below it
    /// retired): lets a handle tell, cheaply and later, whether its task's kept arguments are gone.
    [[nodiscard]] const std::atomic<std::uint64_t>& retirement_counter() const;

    /// next_task_id: the id the next submit will return.
    [[nodiscard]] TaskId next_task_id() const;
    /// run_first_task_id: the id of the first task of the current (or last) run.
    [[nodiscard]] TaskId run_first_task_id() const;
    /// retired_before: every task with a smaller id has retired. Advanced lazily; refresh with
    /// try_retire().
    [[nodiscard]] TaskId retired_before() const;
    /// retired: retired_before() with the ids of this run's retired tasks that failed or were cancelled,
    /// for layers that must pass that failure on to later consumers (see RetiredTasks).
    [[nodiscard]] RetiredTasks retired() const;
    /// try_retire: retires every finished, unreferenced task at the head of the window; returns the new
    /// retired_before(). Never blocks.
    TaskId try_retire();
    /// wait_for_retirement: blocks until at least one more task retires. `knob` names the capacity the
    /// caller is short of, for the CapacityDeadlock message when nothing can retire.
    void wait_for_retirement(std::string_view knob);
    /// release_scope: drops the scope reference of tasks [begin, end) that were submitted scoped and are
    /// not yet released. Never waits.
    void release_scope(TaskId begin, TaskId end);
    /// wait_for: blocks until every task in `tasks` has completed, so the orchestration function can read
    /// their outputs (data-dependent graphs; docs/api.md "Waiting for tasks"). Flushes staged edges first.
    /// Serial mode runs every task submitted so far and pauses the schedulers again before returning.
    /// Throws InvalidArgument for an id not of this run or not yet submitted, KernelFailed naming the first
    /// awaited task that failed or was cancelled, Stall (run aborted) if the watchdog or a proven deadlock
    /// says the tasks can never complete.
    void wait_for(std::span<const TaskId> tasks);

    // ---- Counters the upper layers add to --------------------------------------------------------------

    /// orchestrator_stats: the current run's orchestrator counters; upper layers add their phases.
    [[nodiscard]] OrchestratorStats& orchestrator_stats() const;
    /// is_profiling: whether phase timing is on (RuntimeConfig::profile_orchestrator).
    [[nodiscard]] bool is_profiling() const;

  private:
    Runtime* runtime_;
};

}  // namespace detail
}  // namespace pto
