// Runtime::Impl: the composition of the runtime's components (task window, edge linker, heap ring, the
// shared Engine, scheduler threads, watchdog) and the run lifecycle and submission steps that coordinate
// them. Each step's file says which components it touches.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "alloc_layout.h"
#include "claim_line.h"
#include "compute_pool.h"
#include "edge_linker.h"
#include "edge_table_holds.h"
#include "engine.h"
#include "heap_ring.h"
#include "host_cpus.h"
#include "run_observer.h"
#include "run_recorder.h"
#include "run_state.h"
#include "pto/runtime/detail/task_port.h"
#include "pto/runtime/runtime.h"
#include "scheduler.h"
#include "task_window.h"
#include "watchdog.h"

namespace pto::detail {
struct HeapNeed;  // submit_sizes.h
class InstancePlan;
struct InstanceInputs;
/// next_run_token: a number no earlier run of any runtime in the process got (instance_plan.cpp).
std::uint64_t next_run_token();
}  // namespace pto::detail

namespace pto {

struct Runtime::Impl {
    explicit Impl(const RuntimeConfig& config);
    ~Impl();

    // ---- Steps (orchestrator thread), each coordinating the components below
    // The run lifecycle (runtime.cpp): RunState, every component's start_run, the schedulers, the watchdog.
    void begin_run();
    void start_run();
    void end_orchestration();
    RunReport end_run();
    // Refusing calls that do not fit the run's phase (runtime.cpp, submit_validation.cpp).
    [[noreturn]] void refuse_call(const char* call) const;
    [[noreturn]] void throw_run_in_progress(const char* call, detail::RunPhase seen) const;
    [[noreturn]] void terminate_destroyed_in_run(detail::RunPhase seen) const;
    // The stall path (stall_path.cpp; finish_run in runtime.cpp): abort, drain, reap, and finishing a run
    // aborted earlier (RunState, Engine's DispatchControl and completion protocol, RunObserver, watchdog).
    void settle_run(bool recovering);
    /// schedule_in_a_sleeping_place: if end_run raised its hint (helps_at_end and should_schedule_the_end),
    /// runs the passes of a sleeping scheduler on this thread until the run drains (true) or they find
    /// nothing more to do (false).
    bool schedule_in_a_sleeping_place();
    /// should_schedule_the_end: whether the orchestrator should take the end of the run (a hint): at most
    /// half of its tasks ended, and every scheduler awake idles in its batch wait.
    [[nodiscard]] bool should_schedule_the_end() const;
    void abort_run();
    bool reap_if_idle();
    void quiesce_schedulers();
    void resume_dispatch();
    RunReport finish_run(bool throw_if_aborted, bool release);
    /// check_drained: after a run retired everything, every pool is empty and `counted` tasks ended (one per
    /// submit); otherwise prints what leaked and aborts (run_invariants.cpp).
    void check_drained(std::uint64_t counted) const;
    void recover_aborted_run();
    [[noreturn]] void throw_stall_while_waiting(std::string_view knob);
    // Deadlocks proven without a timeout (deadlock_proof.cpp): RunState's quiet period, RunObserver, a
    // look at the TaskTable with the schedulers quiesced.
    bool should_check_deadlock();
    bool prove_deadlock(std::string_view waiting_for);
    // Submission (submit.cpp): TaskTable, HeapRing, ArgRing, TaskWindow, EdgeLinker, Engine::make_ready,
    // RunRecorder.
    TaskId submit(const TaskSpec& spec, std::span<const TaskId> producers, bool scoped);
    /// submit_as: submit, compiled twice: with kObserved false (no phase timing, no AICPU trace
    /// slice) it carries none of their bookkeeping, which cost a manual-scope orchestration 2-3 % of its
    /// instructions while both were off.
    template <bool kObserved>
    TaskId submit_as(const TaskSpec& spec, std::span<const TaskId> producers, bool scoped);
    /// submit_alloc: an alloc task whose views are written straight into the argument ring
    /// (submit_alloc.cpp).
    TaskId submit_alloc(std::span<const TensorCreateInfo> infos, bool scoped);
    /// lay_out_alloc: checks the ranks of a request that differs from the last one and keeps its layout.
    [[gnu::noinline]] void lay_out_alloc(std::span<const TensorCreateInfo> infos, TaskId id,
                                         const TaskSpec& spec);
    TaskId submit_instance(std::span<InstanceNode> nodes, const std::shared_ptr<const InstanceEdges>& edges,
                           bool scoped);
    void init_instance_slots(std::span<const InstanceNode> nodes, TaskId first, bool scoped);
    void link_instance(std::span<const InstanceNode> nodes, TaskId first);
    /// submit_planned: an instance of a plan checked once (submit_instance.cpp); validate_planned checks
    /// only what the instance binds and counts its boundary edges (instance_validation.cpp).
    TaskId submit_planned(const detail::InstancePlan& plan, const detail::InstanceInputs& inputs,
                          bool scoped);
    /// BoundaryEdges: a planned instance's boundary edges, and how many of its boundary lists are long
    /// enough for a bundle (each may take a node more, EdgeLinker "Bundles").
    struct BoundaryEdges {
        std::uint64_t edges = 0;
        std::uint64_t long_lists = 0;
    };
    BoundaryEdges validate_planned(const detail::InstancePlan& plan, const detail::InstanceInputs& inputs,
                                   TaskId first);
    void check_plan_for_run(const detail::InstancePlan& plan, TaskId first);
    template <bool kSharesLists>
    void init_planned_slots(const detail::InstancePlan& plan, const detail::InstanceInputs& inputs,
                            TaskId first, bool scoped, bool may_bundle);
    void release_scope(TaskId begin, TaskId end);
    /// FinishedCount: when the tasks that ended on the orchestrator (alloc tasks, tasks cancelled at
    /// submission) join the run's finished count. Counting is a locked add on the line every scheduler
    /// pass adds to, and on the 2-vCPU machines of docs/benchmarks.md taking that line from the other CPU
    /// costs 40-250 ns, as much as a whole submit: paged attention ends an alloc task every four launches.
    ///   Batched  submits and scope ends: once kFinishedBatch tasks are waiting.
    ///   Now      before the orchestrator waits, and when orchestration ends, so whatever waits (the end
    ///            of the run, the watchdog's diagnosis of a stall) counts every task that ended.
    enum class FinishedCount : std::uint8_t { Batched, Now };
    static constexpr std::uint64_t kFinishedBatch = 64;

    /// claim_ahead: once every kClaimBatch tasks, claims (claim_line.h) the slots of the kClaimBatch tasks
    /// kSlotsClaimedAhead past task `id`, where no unretired task holds them (a scheduler may be working on
    /// it), and the edge nodes ahead (EdgePool::claim_ahead). Concurrent mode only (claims_lines_ahead).
    void claim_ahead(std::uint64_t id) {
        if (!claims_lines_ahead || (id & (kClaimBatch - 1)) != 0) return;
        for (std::uint64_t ahead = id + kSlotsClaimedAhead; ahead < id + kSlotsClaimedAhead + kClaimBatch;
             ++ahead)
            if (window.slot_is_free_for(ahead)) detail::claim_line(&engine.tasks[window.slot_of(ahead)]);
        engine.edges.claim_ahead();
    }
    static constexpr std::uint64_t kClaimBatch = 8;
    static constexpr std::uint64_t kSlotsClaimedAhead = 16;

    /// flush_links: splices the staged edges (EdgeLinker::flush) and finishes what that completed.
    void flush_links(FinishedCount count = FinishedCount::Now) {
        if (linker.has_staged()) linker.flush(engine, orchestrator_ctx, stats, config.profile_orchestrator);
        finish_orchestrator_completions(count);
    }
    [[nodiscard]] std::span<const TensorArg> task_tensors(TaskId id) const;
    /// init_slot: the slot's state (init_slot_state), then create-info outputs allocated (when `allocates`:
    /// validation found some) and the arguments copied to the argument ring.
    std::uint32_t init_slot(const TaskSpec& spec, TaskId id, bool scoped, bool allocates = true) {
        return config.profile_orchestrator ? init_slot_as<true>(spec, id, scoped, allocates)
                                           : init_slot_as<false>(spec, id, scoped, allocates);
    }
    template <bool kObserved>
    std::uint32_t init_slot_as(const TaskSpec& spec, TaskId id, bool scoped, bool allocates);
    std::uint32_t init_slot_state(const TaskSpec& spec, TaskId id, bool scoped);
    /// allocate_created: gives a create-info output of task `id` its heap buffer (reserved beforehand).
    void allocate_created(TensorView& view, TaskId id);
    void count_submit(const TaskSpec& spec);
    /// complete_at_birth: ends an alloc task as it is submitted (before its slot is published).
    void complete_at_birth(detail::TaskSlot& t);
    // Checks before anything changes (submit_validation.cpp).
    void check_run_open(const char* call) const;
    /// validate_spec: the checks of one task's spec; adds its create-info outputs to `heap_need` on the way.
    void validate_spec(const TaskSpec& spec, TaskId id, detail::HeapNeed& heap_need) const;
    /// check_registered: a kernel task's kernels are registered (with a compute function for the compute
    /// executor); the instant executor needs neither.
    [[gnu::noinline]] void check_registered(const TaskSpec& spec, TaskId id) const;
    /// throw_bad_spec: names the first of validate_spec's shape checks (kind, core, width, counts) the spec
    /// fails.
    [[noreturn, gnu::cold, gnu::noinline]] void throw_bad_spec(const TaskSpec& spec, TaskId id) const;
    /// validate_tensors_walk: validate_spec's tensor checks one by one, for a list with a create-info or a
    /// bad view.
    [[gnu::noinline]] void validate_tensors_walk(const TaskSpec& spec, TaskId id,
                                                 detail::HeapNeed& heap_need) const;
    /// throw_bad_producer: names what is wrong with a producer list validate_producers refused (an alloc task
    /// given producers, a producer not of this run or not yet submitted, more producers than the edge pool).
    [[noreturn, gnu::cold, gnu::noinline]] void throw_bad_producer(std::span<const TaskId> producers,
                                                                   TaskId id, const TaskSpec& spec) const;
    [[noreturn]] void throw_bad_rank(TaskId id, const TaskSpec& spec, std::size_t index, unsigned rank) const;
    void validate_producers(std::span<const TaskId> producers, TaskId id, const TaskSpec& spec) const;
    /// all_precede: every producer is a task of this run submitted before `id`: its distance from the run's
    /// start (unsigned, so an id before the start wraps to a huge value) is below id's. One compare each.
    [[nodiscard]] bool all_precede(std::span<const TaskId> producers, TaskId id) const {
        const std::uint64_t run_first = window.run_first_id();
        std::uint64_t farthest = 0;
        for (const TaskId p : producers)
            farthest = std::max(farthest, p.value - run_first);
        return producers.empty() || farthest < id.value - run_first;
    }
    /// InstanceNeeds: the room a whole template instance reserves at once.
    struct InstanceNeeds {
        std::uint64_t edge_nodes = 0;
        std::uint64_t heap_bytes = 0;
        std::uint64_t arg_bytes = 0;
    };
    // A template instance (instance_validation.cpp).
    InstanceNeeds validate_instance(std::span<const InstanceNode> nodes, TaskId first,
                                    const InstanceEdges* edges);
    void validate_instance_edges(std::span<const InstanceNode> nodes, TaskId first,
                                 const InstanceEdges* edges);
    void check_heap_need(std::uint64_t reserve_bytes, TaskId id, const TaskSpec* spec) const;
    std::string describe_task(TaskId id, const TaskSpec* spec = nullptr) const;
    // Room and retirement (back_pressure.cpp): TaskWindow, the rings' free room, waiting on WakeUps.
    /// reserve: returns once the window, edge pool, argument ring and heap hold this much room (usually at
    /// once: the waiting is out of line).
    void reserve(std::uint64_t slots, std::uint64_t edge_nodes, std::uint64_t heap_bytes,
                 std::uint64_t arg_bytes) {
        if (!window.has_room(slots) || engine.edges.free_nodes() < edge_nodes ||
            engine.args.free_bytes() < arg_bytes || heap.capacity() - heap.used_bytes() < heap_bytes)
            [[unlikely]]
            wait_for_room(slots, edge_nodes, heap_bytes, arg_bytes);
    }
    [[gnu::noinline]] void wait_for_room(std::uint64_t slots, std::uint64_t edge_nodes,
                                         std::uint64_t heap_bytes, std::uint64_t arg_bytes);
    TaskId try_retire();
    void wait_for_retirement(std::string_view knob);
    // Waiting for tasks to complete (wait.cpp): RunProgress's awaited slot, the TaskTable's link words.
    void wait_for(std::span<const TaskId> tasks);
    void wait_for_one(TaskId task);
    [[nodiscard]] bool is_complete(TaskId task) const;
    [[noreturn]] void throw_awaited_unsuccessful(TaskId task);
    [[noreturn]] void throw_deadlock(std::string_view knob) const;
    std::uint64_t knob_value(std::string_view knob) const;
    /// finish_orchestrator_completions: ends the tasks the orchestrator's own completions cancelled and
    /// publishes the ready tasks it staged (ReadyQueues::stage), then counts what ended on this thread, like
    /// a scheduler pass, when `count` says so. Every call that can make a task ready ends with it, so nothing
    /// staged outlives the call.
    void finish_orchestrator_completions(FinishedCount count = FinishedCount::Now) {
        if (!orchestrator_ctx.cancelled_ready.empty() || orchestrator_ctx.pushed_ready)
            publish_orchestrator_completions();
        const std::uint64_t uncounted = orchestrator_ctx.counters.total() - orchestrator_finished_published;
        if (uncounted == 0) return;
        if (count == FinishedCount::Now || uncounted >= kFinishedBatch)
            count_orchestrator_completions();
        else
            engine.progress.set_uncounted_on_orchestrator(uncounted);  // for the watchdog's diagnosis
    }
    [[gnu::noinline]] void publish_orchestrator_completions();
    [[gnu::noinline]] void count_orchestrator_completions();

    const RuntimeConfig config;
    /// Polls before the orchestrator parks at the end of a run (draining, quiescing): about 20 µs, long
    /// enough for the instant executor's last tasks and a scheduler's acknowledgement; none on one CPU,
    /// where spinning would only hold back the threads it waits for.
    const std::uint32_t end_of_run_polls = detail::usable_cpus() > 1 ? 1024 : 0;
    /// Whether the orchestrator schedules the end of a run in a sleeping scheduler's place
    /// (schedule_in_a_sleeping_place): concurrent instant runs with the knob on, and a second CPU for the
    /// awake scheduler that stands aside meanwhile (on one CPU its spin would take the orchestrator's time).
    const bool helps_at_end = config.orchestrator_schedules_at_end &&
                              config.orchestration == OrchestrationMode::Concurrent &&
                              config.executor == Executor::Instant && detail::usable_cpus() > 1;
    /// Whether submits claim lines ahead (claim_ahead): only while schedulers run beside the orchestrator.
    /// In serial mode no other thread touches a line during orchestration, so only what the previous run's
    /// scheduling left on another CPU could be remote, and the bench's serial runs are pinned to one CPU;
    /// there the claims measured 1-3 % of the orchestration time for nothing (docs/benchmarks.md).
    const bool claims_lines_ahead =
        config.orchestration == OrchestrationMode::Concurrent && detail::can_claim_lines();

    // ---- Shared with the scheduler threads and compute workers
    detail::Engine engine;  // task table, rings, queues, wake-ups, progress, switches, failures; completion
    detail::RunSettings settings;  // per-run scheduler settings, written while dispatch is disabled
    std::unique_ptr<detail::ComputePool> compute;
    std::vector<std::unique_ptr<detail::Scheduler>> schedulers;

    // ---- Orchestrator-private components
    // The first line the orchestrator writes on every submit: apart from the parts above, which the
    // scheduler threads read (settings each pass), so no line is shared with them.
    alignas(detail::kFalseSharingRange) detail::TaskWindow window;  // ids, id -> slot, ring marks, scope
                                                                    // holds, in-order retirement
    detail::EdgeLinker linker;                                      // producer selection, staged edges, flush
    detail::HeapRing heap;                                          // runtime-allocated buffers
    detail::AllocLayout alloc_layout;         // sizes and views of the last alloc_tensors request
    detail::EdgeTableHolds edge_table_holds;  // template edge tables of instances with unretired tasks
    detail::RunState run;                     // the phase, who holds the run, the abort, the quiet period
    detail::RunRecorder recorder;             // the graph and the timelines, when recording

    // ---- The orchestrator's own bookkeeping of the run (plain records)
    std::int64_t run_start_ns = 0;
    std::int64_t orchestration_ns = 0;
    detail::CompletionContext orchestrator_ctx;  // completions on this thread (alloc tasks, cancellations)
    std::uint64_t orchestrator_finished_published = 0;  // of orchestrator_ctx.counters, in engine.progress
    OrchestratorStats stats;
    std::uint64_t kernel_tasks = 0;
    std::uint64_t framework_tasks = 0;
    std::uint64_t subtasks = 0;
    std::vector<std::uint32_t> edge_check_cursor;  // scratch of validate_instance_edges
    std::uint64_t run_token = 0;  // unique to this run among every runtime's runs: memo of checked plans
    // The edge tables of every plan checked in this run, held until the next run starts (every task of
    // this run has retired by then): an instance then takes no reference of its own.
    std::vector<std::shared_ptr<const InstanceEdges>> run_plan_edges;
    RunReport last_report;

    // ---- Watching the run
    std::atomic<bool> orchestrator_waiting{false};  // the orchestrator is parked inside the runtime
    detail::RunObserver observer{engine, window, schedulers, orchestrator_waiting};  // read-only
    std::unique_ptr<detail::Watchdog> watchdog;  // samples `observer` only
};

}  // namespace pto
