// Scheduler: one scheduler thread (a simulated AICPU thread). It runs the shared scheduler pass
// (scheduler_pass.h) over its clusters with a back end of wall-clock time, the lock-free ready queues and
// the executor, and spins, yields or parks between passes that found nothing to do.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>
#include <memory>
#include <span>
#include <vector>

#include "compute_pool.h"
#include "core_table.h"
#include "engine.h"
#include "scheduler_pass.h"
#include "pto/runtime/graph.h"
#include "pto/runtime/stats.h"

namespace pto::detail {

/// RunSettings: per-run values every scheduler reads, fixed by the orchestrator before dispatch starts.
struct RunSettings {
    std::int64_t start_ns = 0;  // steady clock at begin_run
    bool record_subtasks = false;
    bool profile = false;
    std::vector<std::int64_t> duration_ns;  // timed executor: scaled mean duration per FuncId
};

class Scheduler {
  public:
    Scheduler(Engine& engine, const RunSettings& settings, ComputePool* compute, std::uint32_t index);
    ~Scheduler();
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    /// reset_for_run: clears statistics and records (orchestrator thread, while dispatch is disabled).
    void reset_for_run();

    // Read by the orchestrator after the run drained and this thread acknowledged the quiesce (it writes
    // them no more until dispatch is enabled again, parked or lingering for the next run).
    [[nodiscard]] const SchedulerStats& stats() const { return stats_; }
    [[nodiscard]] const CompletionCounters& counters() const { return ctx_.counters; }
    [[nodiscard]] const std::vector<SubtaskRecord>& records() const { return records_; }
    [[nodiscard]] const std::vector<AicpuRecord>& aicpu_records() const { return aicpu_records_; }

    /// busy_cores: cores with a running subtask, published each pass (relaxed) for the watchdog.
    [[nodiscard]] std::uint32_t busy_cores() const { return busy_cores_.load(std::memory_order_relaxed); }
    /// acknowledged_epoch: the last DispatchControl::quiesce_epoch this thread saw with dispatch disabled.
    /// Once it equals the current epoch the thread runs no pass until dispatch is enabled again, so its
    /// statistics are stable (acquire pairs with the thread's release store).
    [[nodiscard]] std::uint64_t acknowledged_epoch() const {
        return acked_epoch_.load(std::memory_order_acquire);
    }
    /// oldest_running: task id and start time of the longest-running subtask, for stall reports.
    [[nodiscard]] std::uint64_t oldest_running_task() const {
        return oldest_task_.load(std::memory_order_relaxed);
    }
    [[nodiscard]] std::int64_t oldest_running_start_ns() const {
        return oldest_start_ns_.load(std::memory_order_relaxed);
    }

    /// is_waiting_for_batch: the thread idles in wait_for_batch now (a hint: it may leave at any moment).
    [[nodiscard]] bool is_waiting_for_batch() const {
        return waiting_for_batch_.load(std::memory_order_relaxed);
    }

    /// help_until_drained: runs this scheduler's passes on the calling thread, which holds the seat it
    /// borrowed from the sleeping thread (WakeUps::try_borrow_seat), until the run drains (true), or
    /// dispatch stops, or passes have found nothing to do for a while (false). Instant executor only.
    bool help_until_drained();

    /// has_unfinished_cores: a core holds a running subtask. This thread, or the orchestrator once the
    /// thread acknowledged a quiesce epoch (the stall path uses it to tell stuck kernels from lost tasks).
    [[nodiscard]] bool has_unfinished_cores() const;

  private:
    /// wait_for_batch: an idle instant-executor pass waits for the orchestrator to publish more.
    void wait_for_batch();
    /// stand_aside: an awake instant scheduler waits while the orchestrator runs a sleeping scheduler's
    /// passes (help_until_drained), until it stops, dispatch is disabled or the runtime shuts down.
    void stand_aside();
    /// wait_for_next_run: after acknowledging the end of a run, spins until dispatch is enabled again, a
    /// new quiesce begins or the runtime shuts down (true), or RuntimeConfig::scheduler_linger_us pass
    /// (false: park).
    bool wait_for_next_run();
    /// Backend: the pass's hooks for executor E (scheduler.cpp).
    template <Executor E>
    class Backend;

    void thread_main();
    template <Executor E>
    void loop();
    /// start_running: hands the core's running subtask to the timed or compute executor at `now`.
    template <Executor E>
    void start_running(CoreState& core, std::int64_t now);
    /// block_finished: one block of task `slot` ended; counted at the next flush. Inline: once per block.
    void block_finished(std::uint32_t slot, bool failed) {
        // Blocks of one task finishing in one pass are counted with one RMW (flush_finished_blocks): an SPMD
        // launch of n blocks costs one atomic per pass instead of n.
        if (finished_count_ != 0 && finished_blocks_[finished_count_ - 1].slot == slot) {
            FinishedBlocks& batch = finished_blocks_[finished_count_ - 1];
            ++batch.count;
            batch.failed |= failed;
            return;
        }
        // A flush point comes before more blocks end than a pass's writes or polls can produce; flushing
        // early would only split a batch.
        if (finished_count_ == finished_capacity_) [[unlikely]]
            flush_finished_blocks();
        // Read while this block is still uncounted: once another thread finishes the last block, the task
        // may retire and its slot be reused at any moment.
        finished_blocks_[finished_count_++] = FinishedBlocks{slot, 1, engine_.tasks[slot].block_num, failed};
    }
    void flush_finished_blocks();
    /// record_pass: the pass's completion [t0, t1) and dispatch [t1, t2) phases as AicpuRecords (recording).
    void record_pass(std::int64_t t0, std::int64_t t1, std::int64_t t2, std::uint64_t finished,
                     std::uint32_t placed, std::uint64_t framework_completed);
    void drop_unstarted(CoreState& core);
    void publish_idle_cores();
    std::int64_t earliest_end_ns() const;
    void park(bool timed_cores_busy);
    /// sleep_in_seat: offers the thread's seat, runs `sleep` (a park with its sleep accounting), then takes
    /// the seat back, first waiting for the orchestrator to return it if it borrowed it meanwhile.
    template <class Sleep>
    void sleep_in_seat(Sleep&& sleep);
    /// sleep_until: parks on this thread's parker until check() holds, an unpark or `deadline`, counted
    /// asleep meanwhile (WakeUps::enter_sleep / leave_sleep).
    template <class Check>
    void sleep_until(Check&& check, Parker::Clock::time_point deadline);
    [[nodiscard]] std::int64_t now_ns() const;
    [[nodiscard]] std::span<ClusterState> clusters() const { return {clusters_.get(), cluster_count_}; }
    std::uint64_t next_random();
    /// draw_unit: the next draw in [0, 1) of the thread's seeded sequence (timed and compute jitter).
    double draw_unit();
    /// scaled_duration_ns: the timed executor's duration of `func` (0 for a kernel without one).
    [[nodiscard]] std::int64_t scaled_duration_ns(FuncId func) const;

    Engine& engine_;
    const RunSettings& settings_;
    ComputePool* compute_;
    const std::uint32_t index_;
    // Stable addresses: compute jobs point at their CoreState.
    std::unique_ptr<ClusterState[]> clusters_;
    std::uint32_t cluster_count_ = 0;
    PassState<SubtaskRef> pass_;
    /// FinishedBlocks: blocks of one task that ended in this pass, counted at the pass's flush points.
    struct FinishedBlocks {
        std::uint32_t slot;
        std::uint32_t count;
        std::uint32_t block_num;
        bool failed;
    };
    // Ended blocks not yet counted, batched per task: a fixed array, since no pass ends more blocks
    // between two flush points than it writes or polls (a vector's growth path cost every block a call).
    std::unique_ptr<FinishedBlocks[]> finished_blocks_;
    std::uint32_t finished_count_ = 0;
    std::uint32_t finished_capacity_ = 0;
    LocalReady local_ready_;  // empty between passes (local_ready.h)
    ReleaseBatch releases_;   // empty outside flush_finished_blocks (release_batch.h)
    CompletionContext ctx_;
    SchedulerStats stats_;
    std::vector<SubtaskRecord> records_;
    std::vector<AicpuRecord> aicpu_records_;
    std::uint64_t rng_state_;
    std::int64_t linger_ns_ = 0;      // wait_for_next_run's spin; 0: park at once
    std::uint32_t linger_limit_ = 1;  // schedulers that may linger at once

    // Own line: written around every batch wait, read by the orchestrator once per run.
    alignas(kFalseSharingRange) std::atomic<bool> waiting_for_batch_{false};
    alignas(kFalseSharingRange) std::atomic<std::uint32_t> busy_cores_{0};
    std::atomic<std::uint64_t> acked_epoch_{0};
    std::atomic<std::uint64_t> oldest_task_{~0ull};
    std::atomic<std::int64_t> oldest_start_ns_{0};
    std::thread thread_;
};

}  // namespace pto::detail
