// RunProgress: the counters a run publishes as it moves: tasks ended, the run's task count once its
// orchestration ended, the progress epoch the watchdog watches, the causal stamps of subtask records, and
// the slot the orchestrator waits for. Written by every thread that ends tasks; each counter says its order.
#pragma once

#include <atomic>
#include <cstdint>

#include "task_slot.h"

namespace pto::detail {

class RunProgress {
  public:
    static constexpr std::uint32_t kNoAwaitedSlot = ~0u;

    /// start_run: nothing ended, the task count unknown, stamps from 0 (orchestrator, before dispatch).
    void start_run() {
        finished_.store(0, std::memory_order_relaxed);
        uncounted_on_orchestrator_.store(0, std::memory_order_relaxed);
        record_sequence_.store(0, std::memory_order_relaxed);
        submitted_total_.store(~0ull, std::memory_order_relaxed);
        submission_ended_.store(false, std::memory_order_relaxed);
        orchestrator_scheduling_.store(false, std::memory_order_relaxed);
    }
    /// end_submission: the run's task count, once its orchestration ended (seq_cst: pairs with
    /// add_finished's check, so one of the two sees the run drained).
    void end_submission(std::uint64_t total) {
        submitted_total_.store(total, std::memory_order_seq_cst);
        submission_ended_.store(true, std::memory_order_relaxed);
    }

    /// add_finished: `n` more tasks ended (seq_cst: pairs with the orchestrator's park in end_run); returns
    /// whether the run is now drained.
    bool add_finished(std::uint64_t n) {
        finished_.fetch_add(n, std::memory_order_seq_cst);
        progress_epoch_.fetch_add(1, std::memory_order_relaxed);
        return is_drained();
    }
    /// note_progress: a pass moved subtasks without ending a task (long SPMD tasks), for the watchdog.
    void note_progress() { progress_epoch_.fetch_add(1, std::memory_order_relaxed); }
    [[nodiscard]] bool is_drained() const {
        return finished_.load(std::memory_order_seq_cst) == submitted_total_.load(std::memory_order_seq_cst);
    }
    /// set_uncounted_on_orchestrator: tasks that ended on the orchestrator and wait for its next
    /// add_finished (it counts them in batches: Runtime::Impl::FinishedCount). A plain store on a line of
    /// its own, read only by observers; set to 0 before that add, so an observer may briefly miss them but
    /// never counts them twice.
    void set_uncounted_on_orchestrator(std::uint64_t n) {
        uncounted_on_orchestrator_.store(n, std::memory_order_relaxed);
    }
    /// finished, epoch: relaxed reads for observers (compared, never used to reach other data); finished
    /// includes the tasks the orchestrator has not counted yet.
    [[nodiscard]] std::uint64_t finished() const {
        return finished_.load(std::memory_order_relaxed) +
               uncounted_on_orchestrator_.load(std::memory_order_relaxed);
    }
    [[nodiscard]] std::uint64_t epoch() const { return progress_epoch_.load(std::memory_order_relaxed); }

    /// next_record_stamp: a SubtaskRecord's causal stamp (only when recording). Relaxed RMWs suffice: RMWs
    /// of one atomic follow happens-before in its modification order, so a stamp drawn after a completion
    /// was handled is larger than the stamp drawn while handling it.
    std::uint64_t next_record_stamp() { return record_sequence_.fetch_add(1, std::memory_order_relaxed); }

    // ---- The awaited slot (TaskPort::wait_for, and back-pressure waiting for the oldest task to retire)
    //
    // Dekker handshake: the orchestrator stores the slot (seq_cst) and then re-checks the task's link word
    // (seq_cst); a completer closes the link word or drops a reference (seq_cst) and then loads the slot
    // (seq_cst). Either the completer sees the waiter, or the waiter's re-check sees the closed bit (or no
    // reference left). A stale match (a reused slot) only wakes the waiter once for nothing. Nobody else
    // wakes the orchestrator for a task's completion or its last reference.

    void await_slot(std::uint32_t slot) { awaited_slot_.store(slot, std::memory_order_seq_cst); }
    void stop_awaiting() { awaited_slot_.store(kNoAwaitedSlot, std::memory_order_relaxed); }
    [[nodiscard]] bool is_awaited(std::uint32_t slot) const {
        return awaited_slot_.load(std::memory_order_seq_cst) == slot;
    }

    /// orchestrator_stopped: the orchestrator submits nothing for now: it waits for a task or for room, or
    /// its orchestration ended. A hint (relaxed, read on a line the orchestrator writes only then): idle
    /// schedulers that batch their polls (Scheduler::wait_for_batch) stop waiting once it holds.
    [[nodiscard]] bool orchestrator_stopped() const {
        return awaited_slot_.load(std::memory_order_relaxed) != kNoAwaitedSlot ||
               submission_ended_.load(std::memory_order_relaxed);
    }

    /// orchestrator_scheduling: the orchestrator runs a sleeping scheduler's passes at the end of the run
    /// (Scheduler::help_until_drained); the awake instant schedulers stand aside meanwhile. A hint, on the
    /// same quiet line as orchestrator_stopped.
    [[nodiscard]] bool orchestrator_scheduling() const {
        return orchestrator_scheduling_.load(std::memory_order_relaxed);
    }
    void set_orchestrator_scheduling(bool on) {
        orchestrator_scheduling_.store(on, std::memory_order_relaxed);
    }

  private:
    alignas(kFalseSharingRange) std::atomic<std::uint64_t> finished_{0};
    std::atomic<std::uint64_t> submitted_total_{~0ull};
    std::atomic<std::uint64_t> record_sequence_{0};
    alignas(kFalseSharingRange) std::atomic<std::uint64_t> progress_epoch_{0};
    // Own line: every completion reads it, the orchestrator writes it (and the two flags after it) only
    // around its waits and at the end of its orchestration.
    alignas(kFalseSharingRange) std::atomic<std::uint32_t> awaited_slot_{kNoAwaitedSlot};
    std::atomic<bool> submission_ended_{false};  // end_submission was called this run
    std::atomic<bool> orchestrator_scheduling_{false};
    alignas(kFalseSharingRange) std::atomic<std::uint64_t> uncounted_on_orchestrator_{0};
};

}  // namespace pto::detail
