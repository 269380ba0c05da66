// Engine: the state the orchestrator and the scheduler threads share during a run, as named parts (the
// task table, the argument ring, the edge pool, the ready queues, the wake-ups, the run's progress counters,
// the dispatch switches, the failure log), and the completion protocol that releases consumers and
// producers when a task ends.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "arg_ring.h"
#include "dispatch_control.h"
#include "edge_pool.h"
#include "failure_log.h"
#include "local_ready.h"
#include "pto/runtime/config.h"
#include "pto/runtime/kernels.h"
#include "pto/runtime/stats.h"
#include "pto/runtime/task_desc.h"
#include "ready_queues.h"
#include "release_batch.h"
#include "run_progress.h"
#include "slot_map.h"
#include "task_table.h"
#include "wake_ups.h"

namespace pto::detail {

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
    // A scheduler thread's stash (local_ready.h): kernel tasks it makes ready go there first. Null on the
    // orchestrator, whose ready tasks are for the schedulers: it stages them in its feed and publishes
    // them before its call returns (ReadyQueues::stage).
    LocalReady* local_ready = nullptr;
    // Set while a scheduler thread completes one batch of tasks (Scheduler::flush_finished_blocks): the
    // batch's successful releases are summed per consumer there and applied with apply_releases.
    ReleaseBatch* releases = nullptr;
};

class Engine {
  public:
    explicit Engine(const RuntimeConfig& config);

    const RuntimeConfig config;
    const SlotMap slot_map;  // a template's relative edges to slots

    // ---- The parts
    // Who touches each: tasks (orchestrator writes a slot before publishing it; then its atomics, any
    // thread); args (orchestrator writes, compute workers read); edges (orchestrator allocates and frees,
    // completers read published nodes); ready (any thread pushes; the orchestrator through its feed;
    // schedulers pop); kernels (changed only between runs); wake, progress, control, failures: see their
    // headers.
    TaskTable tasks;
    ArgRing args;
    EdgePool edges;
    ReadyQueues ready;
    std::vector<KernelInfo> kernels;  // indexed by FuncId
    WakeUps wake;
    RunProgress progress;
    DispatchControl control;
    FailureLog failures;

    [[nodiscard]] const ArgRecord& args_of(std::uint32_t slot) const {
        return args.record(tasks.info(slot).args_offset);
    }
    [[nodiscard]] const KernelInfo* kernel(FuncId f) const {
        return f.value < kernels.size() && !kernels[f.value].name.empty() ? &kernels[f.value] : nullptr;
    }
    [[nodiscard]] std::string kernel_name(FuncId f) const;

    // ---- Completion protocol (any thread)

    /// complete_task: ends task `slot` with `outcome`: drops its references on its producers, closes its
    /// fanout list (dropping its own completion reference with the same CAS) and releases every consumer
    /// (cancelling them if the outcome is not Ok), then counts it. Consumers cancelled on the way are
    /// completed too.
    void complete_task(std::uint32_t slot, Outcome outcome, CompletionContext& ctx);
    /// release_consumer: one producer of `consumer` is done (cancelling it first if `cancel`); the caller
    /// that takes its fanin to zero makes it ready. Completers call it per consumer; the orchestrator for
    /// consumers it links to a producer that had already completed.
    void release_consumer(std::uint32_t consumer, bool cancel, CompletionContext& ctx);
    /// release_fanout: what one node of a completed producer's fanout list stands for: its consumer, or every
    /// member of a bundle (kBundleNode), released in turn. Each member node is read before its consumer is
    /// released, which keeps it valid (see end_task).
    void release_fanout(const EdgeNode& node, bool cancel, CompletionContext& ctx) {
        if ((node.consumer_slot & kBundleNode) == 0) [[likely]] {
            release_consumer(node.consumer_slot, cancel, ctx);
            return;
        }
        release_bundle(node.consumer_slot & ~kBundleNode, cancel, ctx);
    }
    /// apply_releases: applies and empties ctx.releases (each consumer's fanin lowered by its count at once),
    /// then ends what that cancelled, as complete_task does.
    void apply_releases(CompletionContext& ctx);
    /// end_cancelled: ends every task in ctx.cancelled_ready (made ready while cancelled), and those their
    /// ends cancel in turn.
    void end_cancelled(CompletionContext& ctx);
    /// make_ready: hands a task whose fanin reached zero to the caller's stash if it has one with room, else
    /// to its ready queue (or ends it if cancelled).
    void make_ready(std::uint32_t slot, CompletionContext& ctx);
    /// drop_reference: one reference of `slot` released (scope end, consumer done, own completion).
    void drop_reference(std::uint32_t slot);
    /// cancel_queued: after an abort, ends every queued task: cancelled if none of its blocks was claimed,
    /// failed if some were (they end on their own). Any thread; returns whether it ended anything.
    bool cancel_queued(CompletionContext& ctx);
    /// record_failure: keeps the first failures for the run report (cold; takes a lock).
    void record_failure(std::uint32_t slot, std::string message) {
        failures.record(tasks.task_id_of(slot), kernel_name(tasks[slot].funcs[0]), std::move(message));
    }
    /// add_finished: publishes `n` more ended tasks and wakes the orchestrator if the run is done.
    void add_finished(std::uint64_t n) {
        if (n != 0 && progress.add_finished(n)) wake.wake_orchestrator();
    }

  private:
    void end_task(std::uint32_t slot, Outcome outcome, CompletionContext& ctx);
    /// release_bundle: releases the members of the bundle whose first member node is `first` - 1.
    void release_bundle(std::uint32_t first, bool cancel, CompletionContext& ctx);
};

}  // namespace pto::detail
