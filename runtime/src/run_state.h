// RunState: the run state machine of one Runtime: the phase (run_phase.h) and which thread holds the run,
// whether a stall aborted the run and why, the stall reports a draining run carries over, and the quiet
// period the orchestrator waits out before it looks for a deadlock. Every phase change goes through here,
// checked against is_legal_transition.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "pto/runtime/detail/throw.h"
#include "pto/runtime/stats.h"
#include "run_phase.h"

namespace pto::detail {

class RunState {
  public:
    /// How long nothing must move before the orchestrator quiesces the schedulers to look for a deadlock:
    /// long enough that a busy run never pays for the quiesce, short enough that a deadlock is reported
    /// within the 100 ms promised in docs/reliability.md (with the orchestrator's 10 ms waits, about 20 ms
    /// plus the quiesce on an idle machine; pto-deadlock-latency measures it).
    static constexpr std::int64_t kDeadlockQuietNs = 10'000'000;

    // ---- The phase (any thread reads; the claim holder writes)

    /// phase: acquire, so a thread that sees Idle also sees what the previous holder wrote.
    [[nodiscard]] RunPhase phase() const { return phase_.load(std::memory_order_acquire); }
    /// in_run: a run is starting, orchestrating or ending (not draining).
    [[nodiscard]] bool in_run() const {
        const RunPhase p = phase();
        return p == RunPhase::Starting || p == RunPhase::Orchestrating || p == RunPhase::Ending;
    }
    /// owned_here: the calling thread holds this run (one thread-local load and compare).
    [[nodiscard]] bool owned_here() const { return t_owned_run == this; }
    /// is_orchestrating: the calling thread holds the run and its orchestration has not ended (per submit).
    [[nodiscard]] bool is_orchestrating() const {
        return owned_here() && phase_.load(std::memory_order_relaxed) == RunPhase::Orchestrating;
    }
    /// orchestrating_relaxed: the holder's own view of whether orchestration is still going on.
    [[nodiscard]] bool orchestrating_relaxed() const {
        return phase_.load(std::memory_order_relaxed) == RunPhase::Orchestrating;
    }

    /// claim_run: Idle or Draining -> Starting with an acq_rel CAS, which pairs with the release store of
    /// the previous holder's last transition, so this thread sees everything the old holder wrote; the
    /// calling thread then holds the run. False (and `seen` set) if another phase was found.
    /// `recovering` tells that the claim found a draining run, which the caller must finish first.
    bool claim_run(RunPhase& seen, bool& recovering);
    /// claim_registering: Idle -> Registering for register_kernel; false (and `seen` set) otherwise.
    bool claim_registering(RunPhase& seen) {
        seen = RunPhase::Idle;
        return phase_.compare_exchange_strong(seen, RunPhase::Registering, std::memory_order_acq_rel,
                                              std::memory_order_acquire);
    }
    /// advance: the holder moves to `next` (a release store).
    void advance(RunPhase next) {
        PTO_ASSERT(is_legal_transition(phase_.load(std::memory_order_relaxed), next),
                   "every phase change is in the RunPhase diagram");
        phase_.store(next, std::memory_order_release);
    }
    /// release: the holder lets the run go (to Idle, or Draining while kernels of an aborted run still
    /// run); nothing of the run is touched by this thread after it.
    void release(RunPhase next);

    // ---- The abort (orchestrator thread)

    /// start_run: a new run is not aborted.
    void start_run() {
        aborted_ = false;
        abort_report_ = StallReport{};
    }
    [[nodiscard]] bool aborted() const { return aborted_; }
    /// abort: records the stall that aborted the run, and restarts the quiet period: the abort changes what
    /// a deadlock look finds (nothing may start any more), so one is allowed at once.
    void abort(StallReport cause) {
        aborted_ = true;
        abort_report_ = std::move(cause);
        quiet_checked_ = false;
        quiet_since_ns_ = 0;
    }
    [[nodiscard]] const StallReport& abort_report() const { return abort_report_; }
    /// keep_stalls: stall reports of a run left draining, for its final report.
    void keep_stalls(std::vector<StallReport> reports);
    [[nodiscard]] const std::vector<StallReport>& kept_stalls() const { return pending_stalls_; }
    [[nodiscard]] std::vector<StallReport> take_kept_stalls() { return std::exchange(pending_stalls_, {}); }

    // ---- The quiet period before a deadlock look (orchestrator thread)

    /// look_is_due: whether nothing moved (`progress` unchanged) for kDeadlockQuietNs at `now_ns`, and no
    /// look was taken in this quiet period yet; taking it is recorded. A deadlock can only begin with
    /// progress (the last running task finishing), which starts a new period, so looking again without
    /// progress would only quiesce the schedulers over and over.
    bool look_is_due(std::uint64_t progress, std::int64_t now_ns);

  private:
    std::atomic<RunPhase> phase_{RunPhase::Idle};
    const void* outer_owned_run_ = nullptr;  // the thread's t_owned_run before claim_run (another runtime's)
    bool aborted_ = false;                   // a stall aborted this run: what had not started is cancelled
    StallReport abort_report_;               // the stall that aborted the run
    std::vector<StallReport> pending_stalls_;
    std::uint64_t quiet_progress_ = 0;  // progress seen last
    std::int64_t quiet_since_ns_ = 0;   // since when nothing moved
    bool quiet_checked_ = false;        // a look was taken during this quiet period
};

}  // namespace pto::detail
