// Watchdog thread: samples progress counters every quarter of the timeout; after a full timeout without
// change it classifies the stall from what the schedulers and the orchestrator publish, files a report,
// and, unless the orchestration function itself is the slow part, wakes the orchestrator so it can abort
// the run instead of waiting forever (stall_path.cpp).
#include "watchdog.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "clock.h"
#include "logging.h"

namespace pto {

const char* to_string(StallKind kind) {
    switch (kind) {
        case StallKind::KernelTooLong:
            return "kernel running too long";
        case StallKind::ReadyNotDispatched:
            return "ready but not dispatched";
        case StallKind::DependencyDeadlock:
            return "dependency deadlock";
        case StallKind::OrchestratorStarvation:
            return "orchestrator starvation";
    }
    return "?";
}

namespace detail {
namespace {

std::vector<TaskId> to_task_ids(const std::vector<std::uint64_t>& ids) {
    std::vector<TaskId> out;
    for (std::uint64_t id : ids)
        out.push_back(TaskId{id});
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    if (out.size() > kMaxStuckIds) out.resize(kMaxStuckIds);
    return out;
}

}  // namespace

StallReport classify_stall(const StallFacts& f) {
    StallReport r;
    std::string detail;
    const std::uint64_t unfinished = f.submitted - std::min(f.submitted, f.finished);
    if (f.busy_cores > 0) {
        r.kind = StallKind::KernelTooLong;
        r.tasks = to_task_ids(f.running);
        detail = std::to_string(f.busy_cores) + " core(s) busy, the oldest subtask running for " +
                 std::to_string(f.oldest_running_ns / 1'000'000) +
                 " ms; the listed tasks are the oldest running on each scheduler thread";
    } else if (f.ready_queued && (f.dispatch_enabled || f.orchestrator_waiting)) {
        r.kind = StallKind::ReadyNotDispatched;
        r.tasks = to_task_ids(f.unfinished);
        detail = "ready tasks are queued, no core is busy, and no scheduler thread dispatched one (" +
                 std::to_string(unfinished) + " task(s) unfinished; the oldest are listed)";
    } else if (!f.orchestrator_waiting) {
        // The orchestration function is running user code. Whatever waits may wait for it: serial mode starts
        // dispatch when it returns, and it may still hold consumers it has not linked yet.
        r.kind = StallKind::OrchestratorStarvation;
        if (f.ready_queued)
            detail = "serial mode: " + std::to_string(unfinished) +
                     " submitted task(s) wait for the orchestration function to return";
        else if (unfinished > 0)
            detail = std::to_string(unfinished) + " submitted task(s) unfinished, none ready or running";
        else
            detail = "all " + std::to_string(f.submitted) + " submitted task(s) finished";
        detail +=
            ", and the orchestration function has submitted nothing since; the runtime cannot act on user "
            "code, so it only reports this";
    } else if (unfinished > 0) {
        r.kind = StallKind::DependencyDeadlock;
        r.tasks = to_task_ids(f.unfinished);
        detail = std::to_string(unfinished) +
                 " task(s) unfinished but neither ready nor running while the orchestrator waits: a "
                 "dependency that can never be released. " +
                 std::string(kDeadlockCauses);
    } else {
        r.kind = StallKind::DependencyDeadlock;
        r.tasks = {TaskId{f.oldest_unretired}};
        detail = "every submitted task finished, but task " + std::to_string(f.oldest_unretired) +
                 " does not retire while the orchestrator waits for it (a reference never dropped). " +
                 std::string(kDeadlockCauses);
    }
    // Appended piecewise: GCC 12 reports a false -Wrestrict on chains of operator+ here.
    r.message = "stall: ";
    r.message += to_string(r.kind);
    r.message += " after ";
    r.message += std::to_string(f.timeout_ms);
    r.message += " ms without progress (RuntimeConfig::stall_timeout_ms): ";
    r.message += detail;
    if (!r.tasks.empty()) {
        r.message += "; stuck task ids:";
        for (TaskId id : r.tasks) {
            r.message += ' ';
            r.message += std::to_string(id.value);
        }
    }
    return r;
}

Watchdog::Watchdog(const RunObserver& run, Parker& orchestrator, std::uint32_t timeout_ms)
    : run_(run), orchestrator_(orchestrator), timeout_ms_(timeout_ms) {
    if (timeout_ms_ != 0) thread_ = std::thread([this] { thread_main(); });
}

Watchdog::~Watchdog() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void Watchdog::arm(bool new_run, std::int64_t run_start_ns, std::uint64_t run_first_id) {
    {
        std::lock_guard lock(mutex_);
        armed_ = true;
        rebase_ = true;
        run_start_ns_ = run_start_ns;
        run_first_id_ = run_first_id;
        if (new_run) {
            reports_.clear();
            aborted_ = false;
            aborted_kind_.reset();
        }
        end_episode();
    }
    // No notify: the thread rebases at its next periodic sample (at most a quarter of the timeout away,
    // which only delays a first diagnosis by as much). Waking it here cost every run a futex call on the
    // orchestrator and a thread switch on a CPU a scheduler spins on: most of a short run's fixed cost
    // (docs/benchmarks.md, "The fixed cost of a run").
}

std::uint64_t Watchdog::wakeups() {
    std::lock_guard lock(mutex_);
    return wakeups_;
}

void Watchdog::disarm() {
    std::lock_guard lock(mutex_);
    armed_ = false;
    end_episode();
}

void Watchdog::end_episode() {
    latest_.reset();
    episode_kind_.reset();
    episode_filed_.reset();
    stalled_.store(false, std::memory_order_release);
}

StallReport Watchdog::latest() {
    std::lock_guard lock(mutex_);
    return latest_.value_or(StallReport{});
}

void Watchdog::mark_aborted() {
    std::lock_guard lock(mutex_);
    aborted_ = true;
    aborted_kind_ = episode_kind_;
    if (latest_) latest_->aborted_run = true;
    if (episode_filed_) reports_[*episode_filed_].aborted_run = true;
}

void Watchdog::file_proven(StallReport r) {
    std::lock_guard lock(mutex_);
    r.at_ns = steady_ns() - run_start_ns_;
    logger().warn("{}", r.message);
    episode_kind_ = r.kind;
    episode_filed_.reset();
    if (reports_.size() < kMaxStallReports) {
        episode_filed_ = reports_.size();
        reports_.push_back(r);
    }
    latest_ = std::move(r);
    stalled_.store(true, std::memory_order_release);
}

std::vector<StallReport> Watchdog::take_reports() {
    std::lock_guard lock(mutex_);
    std::vector<StallReport> out = std::move(reports_);
    reports_.clear();
    return out;
}

Watchdog::Progress Watchdog::progress() const {
    // Relaxed: any change is progress; the values are never used to reach other data.
    return Progress{run_.progress_epoch(), run_.submitted(), run_.retired_before()};
}

StallFacts Watchdog::sample() const {
    StallFacts f;
    f.timeout_ms = timeout_ms_;
    const RunningCores cores = run_.running_cores();
    f.busy_cores = cores.busy;
    f.running = cores.oldest;
    f.oldest_running_ns = cores.oldest.empty() ? 0 : steady_ns() - cores.oldest_start_ns;
    f.ready_queued = run_.ready_queued();
    f.dispatch_enabled = run_.dispatch_enabled();
    f.orchestrator_waiting = run_.orchestrator_waiting();
    f.submitted = run_.submitted();
    f.finished = run_.finished();
    f.oldest_unretired = run_.retired_before();
    // Unfinished tasks: those whose link word is not closed, oldest first. Only atomics are read, so a
    // slot the orchestrator reuses meanwhile costs at most a wrong id in a report.
    const std::uint64_t end = run_first_id_ + f.submitted;
    for (std::uint64_t id = f.oldest_unretired; id < end && f.unfinished.size() < kMaxStuckIds; ++id)
        if (!run_.is_finished(id)) f.unfinished.push_back(id);
    return f;
}

void Watchdog::thread_main() {
    using Clock = std::chrono::steady_clock;
    const auto timeout = std::chrono::milliseconds(timeout_ms_);
    const auto period = std::max<Clock::duration>(std::chrono::milliseconds(1), timeout / 4);
    std::unique_lock lock(mutex_);
    Progress last;
    auto last_change = Clock::now();
    auto last_diagnosis = last_change;
    while (!stopping_) {
        cv_.wait_for(lock, period);
        ++wakeups_;
        if (stopping_) break;
        if (!armed_) continue;
        const auto now = Clock::now();
        const Progress p = progress();
        if (rebase_ || !(p == last)) {
            rebase_ = false;
            last = p;
            last_change = now;
            if (episode_kind_) end_episode();
            continue;
        }
        if (now - last_change < timeout) continue;
        // No progress for a whole timeout: diagnose, and again every timeout while it lasts (the class may
        // change, e.g. when the orchestrator starts waiting); a report is filed when the class changes.
        if (episode_kind_ && now - last_diagnosis < timeout) continue;
        last_diagnosis = now;
        StallReport r = classify_stall(sample());
        r.at_ns = steady_ns() - run_start_ns_;
        const bool new_class = !episode_kind_ || *episode_kind_ != r.kind;
        const bool already_aborted = aborted_ && aborted_kind_ == r.kind;
        episode_kind_ = r.kind;
        if (new_class) episode_filed_.reset();
        if (new_class && !already_aborted) {
            logger().warn("{}", r.message);
            if (reports_.size() < kMaxStallReports) {
                episode_filed_ = reports_.size();
                reports_.push_back(r);
            }
        }
        const bool blocking = r.kind != StallKind::OrchestratorStarvation;
        latest_ = std::move(r);
        stalled_.store(blocking, std::memory_order_release);
        if (!blocking) continue;
        lock.unlock();
        orchestrator_.unpark();
        lock.lock();
    }
}

}  // namespace detail
}  // namespace pto
