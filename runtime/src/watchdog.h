// Watchdog: a thread that notices a run making no progress for RuntimeConfig::stall_timeout_ms and
// classifies the stall (docs/reliability.md) with the stuck task ids, instead of letting the orchestrator
// hang.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "parker.h"
#include "pto/runtime/stats.h"
#include "run_observer.h"

namespace pto::detail {

/// StallFacts: what the classifier looks at, sampled from the runtime's published state. Separate from
/// the sampling so tests can check every class of the decision table directly.
struct StallFacts {
    std::uint32_t busy_cores = 0;           // cores with a running subtask (all scheduler threads)
    std::vector<std::uint64_t> running;     // the oldest running task of each scheduler thread that has one
    std::int64_t oldest_running_ns = 0;     // how long the oldest running subtask has been running
    bool ready_queued = false;              // a ready queue holds a task
    bool dispatch_enabled = true;           // false in serial mode until the orchestration function returns
    bool orchestrator_waiting = false;      // the orchestrator is parked inside the runtime
    std::uint64_t submitted = 0;            // tasks submitted this run
    std::uint64_t finished = 0;             // tasks completed, failed or cancelled this run
    std::uint64_t oldest_unretired = 0;     // retirement watermark (task id)
    std::vector<std::uint64_t> unfinished;  // oldest unfinished task ids (at most kMaxStuckIds)
    std::uint32_t timeout_ms = 0;
};

inline constexpr std::size_t kMaxStuckIds = 16;

/// kDeadlockCauses: what a dependency deadlock report suggests, the user-side causes the runtime can see or
/// suspect first, a runtime bug last.
inline constexpr const char* kDeadlockCauses =
    "Likely causes, most likely first: a static Template (or its Bindings) destroyed while instances of it "
    "were still in flight; producer and consumer offset tables given to Runtime::submit_instance that "
    "disagree (a node waiting for a producer that never names it as a consumer); a kernel or another "
    "thread that called the task-level API of this runtime (refused since, but raw Runtime::Impl use "
    "bypasses it); only if none applies, a runtime bug (report it with the stuck task ids)";
inline constexpr std::size_t kMaxStallReports = 16;

/// classify_stall: the stall class and report for `facts` (no progress for facts.timeout_ms). Decision
/// table, first match wins:
///   a core is busy                                          -> KernelTooLong (the running tasks)
///   tasks queued, and dispatch enabled or the orchestrator  -> ReadyNotDispatched (the unfinished tasks)
///     waits inside the runtime
///   the orchestrator is in user code (the orchestration     -> OrchestratorStarvation (serial mode waiting
///     function), so whatever waits may wait for it             for it, unlinked consumers, or all finished)
///   the orchestrator waits, unfinished tasks neither        -> DependencyDeadlock (the unfinished tasks)
///     queued nor running
///   the orchestrator waits, all finished                    -> DependencyDeadlock (the oldest
///                                                              unretired task)
[[nodiscard]] StallReport classify_stall(const StallFacts& facts);

class Watchdog {
  public:
    /// Watches the run through `run` (read-only) and wakes the orchestrator through `orchestrator` when a
    /// stall needs it; no thread when `timeout_ms` is 0.
    Watchdog(const RunObserver& run, Parker& orchestrator, std::uint32_t timeout_ms);
    ~Watchdog();
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

    /// arm: watch the run that started at `run_start_ns` with task `run_first_id` from now on (orchestrator
    /// thread). `new_run` clears the reports of the previous run; false resumes watching an aborted run
    /// that is still draining.
    void arm(bool new_run, std::int64_t run_start_ns, std::uint64_t run_first_id);
    /// disarm: stop watching (orchestrator thread).
    void disarm();
    /// stalled: a stall the orchestrator must act on is ongoing: diagnosed as a class other than
    /// starvation, and no progress since (any thread; acquire).
    [[nodiscard]] bool stalled() const { return stalled_.load(std::memory_order_acquire); }
    /// latest: the newest diagnosis of the ongoing stall (orchestrator thread, after stalled()).
    [[nodiscard]] StallReport latest();
    /// mark_aborted: the orchestrator aborted the run because of the ongoing stall; the report that
    /// caused it says so, and further diagnoses of the same class are not filed again.
    void mark_aborted();
    /// file_proven: files a diagnosis the orchestrator proved itself (a deadlock seen with the schedulers
    /// quiesced), without waiting for a timeout: logged, reported, and stalled() from now on, as if the
    /// watchdog thread had classified it (orchestrator thread; works with stall_timeout_ms = 0 too).
    void file_proven(StallReport report);
    /// take_reports: the reports filed since the run was armed, oldest first (orchestrator thread).
    [[nodiscard]] std::vector<StallReport> take_reports();
    /// wakeups: how often the thread woke so far (its periodic samples, and shutdown); arming and
    /// disarming never wake it (any thread).
    [[nodiscard]] std::uint64_t wakeups();

  private:
    void thread_main();
    /// Progress: counters any of which changes when the run moves: a scheduler pass that ended or
    /// dispatched something, a submit, a retirement.
    struct Progress {
        std::uint64_t epoch = 0;
        std::uint64_t submits = 0;
        std::uint64_t retired = 0;
        bool operator==(const Progress&) const = default;
    };
    [[nodiscard]] Progress progress() const;
    [[nodiscard]] StallFacts sample() const;  // with mutex_ held
    void end_episode();                       // with mutex_ held

    const RunObserver& run_;
    Parker& orchestrator_;
    const std::uint32_t timeout_ms_;
    std::mutex mutex_;
    std::condition_variable cv_;
    // All guarded by mutex_.
    bool armed_ = false;
    bool rebase_ = false;  // armed anew: the next sample starts a fresh no-progress interval
    bool stopping_ = false;
    std::uint64_t wakeups_ = 0;
    bool aborted_ = false;                   // the run was aborted (mark_aborted)
    std::optional<StallKind> aborted_kind_;  // the class that caused the abort
    std::int64_t run_start_ns_ = 0;
    std::uint64_t run_first_id_ = 0;
    std::optional<StallReport> latest_;         // the ongoing stall's newest diagnosis
    std::optional<StallKind> episode_kind_;     // class of the ongoing stall, if one is ongoing
    std::optional<std::size_t> episode_filed_;  // index in reports_ of the ongoing stall's filed report
    std::vector<StallReport> reports_;
    std::atomic<bool> stalled_{false};
    std::thread thread_;
};

}  // namespace pto::detail
