// Engine: the state the orchestrator and the scheduler threads share during a run (task slots, cold
// arguments, edge nodes, ready queues, wake-up machinery, progress counters) and the completion protocol
// that releases consumers and producers when a task ends.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "arg_ring.h"
#include "edge_pool.h"
#include "parker.h"
#include "pto/runtime/config.h"
#include "pto/runtime/kernels.h"
#include "pto/runtime/stats.h"
#include "pto/runtime/task_desc.h"
#include "ready_queues.h"
#include "slot_map.h"
#include "task_slot.h"

namespace pto::detail {

/// SlotInfo: cold per-slot facts for reports and the compute executor.
struct SlotInfo {
    std::uint64_t task_id;
    std::uint64_t args_offset;  // of the task's ArgRecord in Engine::args, or kNoArguments
    /// args_offset of a task that keeps no arguments (a framework task without outputs to allocate).
    static constexpr std::uint64_t kNoArguments = ~std::uint64_t{0};
};

/// CompletionCounters: outcomes counted by one thread (summed when the run ends).
struct CompletionCounters {
    std::uint64_t completed = 0;
    std::uint64_t failed = 0;
    std::uint64_t cancelled = 0;
    [[nodiscard]] std::uint64_t total() const { return completed + failed + cancelled; }
};

/// CompletionContext: per-thread scratch for complete_task (cancellation worklist, counters).
struct CompletionContext {
    CompletionCounters counters;
    std::vector<std::uint32_t> cancelled_ready;  // consumers made ready while cancelled; drained iteratively
    bool pushed_ready = false;                   // pushed work a sleeping scheduler may want
};

class Engine {
  public:
    explicit Engine(const RuntimeConfig& config);

    const RuntimeConfig config;
    const SlotMap slot_map;  // a template's relative edges to slots

    std::unique_ptr<TaskSlot[]> slots;
    std::unique_ptr<SlotInfo[]> slot_info;  // written by the orchestrator before publication
    ArgRing args;                           // written by the orchestrator, read by compute workers
    EdgePool edges;
    ReadyQueues ready;
    std::vector<KernelInfo> kernels;  // indexed by FuncId; changed only between runs

    [[nodiscard]] TaskId task_id_of(std::uint32_t slot) const { return TaskId{slot_info[slot].task_id}; }
    [[nodiscard]] const ArgRecord& args_of(std::uint32_t slot) const {
        return args.record(slot_info[slot].args_offset);
    }
    [[nodiscard]] const KernelInfo* kernel(FuncId f) const {
        return f.value < kernels.size() && !kernels[f.value].name.empty() ? &kernels[f.value] : nullptr;
    }
    [[nodiscard]] std::string kernel_name(FuncId f) const;

    // ---- Completion protocol (any thread) -------------------------------------------------------------

    /// complete_task: ends task `slot` with `outcome`: closes its fanout list and releases every consumer
    /// (cancelling them if the outcome is not Ok), drops its references on its producers and its own
    /// completion reference, then counts it. Consumers cancelled on the way are completed too.
    void complete_task(std::uint32_t slot, Outcome outcome, CompletionContext& ctx);
    /// release_consumer: one producer of `consumer` is done (cancelling it first if `cancel`); the caller
    /// that takes its fanin to zero makes it ready. Completers call it per consumer; the orchestrator for
    /// consumers it links to a producer that had already completed.
    void release_consumer(std::uint32_t consumer, bool cancel, CompletionContext& ctx);
    /// make_ready: hands a task whose fanin reached zero to its ready queue (or ends it if cancelled).
    void make_ready(std::uint32_t slot, CompletionContext& ctx);
    /// drop_reference: one reference of `slot` released (scope end, consumer done, own completion).
    void drop_reference(std::uint32_t slot);
    /// cancel_queued: after an abort, ends every queued task: cancelled if none of its blocks was claimed,
    /// failed if some were (they end on their own). Any thread; returns whether it ended anything.
    bool cancel_queued(CompletionContext& ctx);
    /// record_failure: keeps the first failures for the run report (cold; takes a lock).
    void record_failure(std::uint32_t slot, std::string message);

    // ---- Wake-ups ------------------------------------------------------------------------------------

    /// wake_schedulers: after pushing ready work, unparks sleeping schedulers (a seq_cst fence, then one
    /// load when none sleeps).
    void wake_schedulers();
    /// wake_scheduler: unparks scheduler `index` (compute workers call it when a kernel returns).
    void wake_scheduler(std::uint32_t index) { scheduler_parkers[index]->unpark(); }

    std::vector<std::unique_ptr<Parker>> scheduler_parkers;

    /// IdleCores: one scheduler thread's idle AIC / AIV cores after its last pass. Written (relaxed) by that
    /// thread only; read (relaxed) by the others as a hint for the dispatch policy, so staleness is harmless.
    struct alignas(kFalseSharingRange) IdleCores {
        std::atomic<std::uint32_t> aic{0};
        std::atomic<std::uint32_t> aiv{0};
    };
    std::unique_ptr<IdleCores[]> idle_cores;  // one per scheduler thread
    Parker orchestrator_parker;

    // ---- Run progress --------------------------------------------------------------------------------

    /// finished_tasks: tasks ended this run (completed + failed + cancelled), added once per scheduler pass
    /// (seq_cst: pairs with the orchestrator's park in end_run).
    alignas(kFalseSharingRange) std::atomic<std::uint64_t> finished_tasks{0};
    /// submitted_total: the run's task count once orchestration ended; ~0 before.
    std::atomic<std::uint64_t> submitted_total{~0ull};
    /// record_sequence: the counter SubtaskRecord's causal stamps come from (only when recording). Relaxed
    /// RMWs suffice: RMWs of one atomic follow happens-before in its modification order, so a stamp drawn
    /// after a completion was handled is larger than the stamp drawn while handling it.
    std::atomic<std::uint64_t> record_sequence{0};
    /// progress_epoch: bumped by every thread that made progress; the watchdog reads it.
    alignas(kFalseSharingRange) std::atomic<std::uint64_t> progress_epoch{0};

    // Written by the orchestrator (begin/end of run), read by schedulers each pass.
    alignas(kFalseSharingRange) std::atomic<bool> dispatch_enabled{false};
    std::atomic<bool> shutting_down{false};
    /// quiesce_epoch: bumped after dispatch is disabled; schedulers acknowledge it (Scheduler::loop).
    std::atomic<std::uint64_t> quiesce_epoch{0};
    std::atomic<std::uint32_t> sleeping_schedulers{0};
    /// abort_requested: the watchdog asks schedulers to cancel every task not yet dispatched.
    std::atomic<bool> abort_requested{false};
    /// awaited_slot: the slot whose completion the orchestrator waits for in Runtime::wait_for, or
    /// kNoAwaitedSlot. Written (seq_cst) by the orchestrator only; read (seq_cst) by every completer after
    /// its last reference drop: see end_task for the handshake.
    std::atomic<std::uint32_t> awaited_slot{kNoAwaitedSlot};
    static constexpr std::uint32_t kNoAwaitedSlot = ~0u;

    /// add_finished: publishes `n` more ended tasks and wakes the orchestrator if the run is done.
    void add_finished(std::uint64_t n);
    /// note_progress: a pass moved subtasks without ending a task (long SPMD tasks), for the watchdog.
    void note_progress() { progress_epoch.fetch_add(1, std::memory_order_relaxed); }
    [[nodiscard]] bool run_is_drained() const {
        return finished_tasks.load(std::memory_order_seq_cst) ==
               submitted_total.load(std::memory_order_seq_cst);
    }

    std::mutex failures_mutex;
    std::vector<TaskFailure> failures;  // guarded by failures_mutex
    static constexpr std::size_t kMaxReportedFailures = 16;

  private:
    void end_task(std::uint32_t slot, Outcome outcome, CompletionContext& ctx);
};

}  // namespace pto::detail
