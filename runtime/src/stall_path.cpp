// The stall path: what the orchestrator does once the watchdog flags a stall or it proves a deadlock:
// abort the run, give running kernels a grace period, reap what can never run, or leave the run draining
// for the next begin_run; and quiescing the schedulers, which the stall path and the deadlock proof need.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "logging.h"
#include "pto/runtime/detail/throw.h"
#include "runtime_impl.h"

namespace pto {

// ---- The stall path
//
// The watchdog flags a stall (Watchdog::stalled) when nothing moved for stall_timeout_ms and the class is
// not orchestrator starvation. The orchestrator acts on it only where it waits on the stuck work: in
// end_run (settle_run) or under back-pressure (wait_for_retirement -> throw_stall_while_waiting). Acting
// means aborting the run (abort_run): from then on no task starts, whatever was queued is cancelled
// (here, in case the schedulers are the stuck part, and by the schedulers), tasks becoming ready are
// cancelled, pre-loaded blocks are dropped and simulated (timed) kernels are cut short. Running compute
// kernels cannot be interrupted, so settle_run gives them a grace period of max(stall_timeout_ms, 100 ms).
// After it:
//   - nothing runs any more (the schedulers are quiesced to know for sure): every task still unfinished
//     waits for a release that will never come (dependency deadlock), so it is cancelled here
//     (reap_if_idle), and the run ends normally with its report, then end_run throws Stall;
//   - a kernel still runs: end_run throws Stall at once and the run stays `draining`: the schedulers
//     keep collecting returning kernels and cancelling what depends on them; the next begin_run waits
//     for the rest (recover_aborted_run) while the watchdog keeps watching, and throws Stall again if it
//     sees no progress for another timeout. The destructor waits for running kernels in any case.

void Runtime::Impl::settle_run(bool recovering) {
    using Clock = std::chrono::steady_clock;
    const auto grace = std::chrono::milliseconds(std::max<std::uint32_t>(config.stall_timeout_ms, 100));
    auto grace_end = run.aborted() && !recovering ? Clock::now() + grace : Clock::time_point::max();
    // Published for the whole wait, not per park, so the watchdog never samples a gap between parks and
    // mistakes this wait for an orchestration function gone quiet.
    orchestrator_waiting.store(true, std::memory_order_relaxed);
    struct WaitingFlag {
        std::atomic<bool>& flag;
        ~WaitingFlag() { flag.store(false, std::memory_order_relaxed); }
    } waiting{orchestrator_waiting};
    if (!recovering && schedule_in_a_sleeping_place()) return;
    if (!run.aborted() &&
        detail::Parker::spin_until([&] { return engine.progress.is_drained(); }, end_of_run_polls))
        return;
    for (;;) {
        if (engine.progress.is_drained()) return;
        if (!run.aborted() && !recovering && prove_deadlock("end_run")) {
            // Proven with the schedulers quiesced: nothing runs, so there is nothing to give a grace period.
            abort_run();
            if (reap_if_idle()) return;
            grace_end = Clock::now() + grace;
            continue;
        }
        if (!run.aborted() && watchdog->stalled()) {
            abort_run();
            grace_end = Clock::now() + grace;
            continue;
        }
        // Aborted and nothing runs any more: the grace period is for running kernels, so reap at once.
        if (run.aborted() && should_check_deadlock() && reap_if_idle()) return;
        if (run.aborted() && (Clock::now() >= grace_end || (recovering && watchdog->stalled()))) {
            if (reap_if_idle()) return;
            // A kernel still runs: leave the run draining (see above) and report now.
            watchdog->disarm();
            const detail::RunningCores cores = observer.running_cores();
            RunReport partial;
            partial.submitted = window.submitted();
            partial.kernel_tasks = kernel_tasks;
            partial.framework_tasks = framework_tasks;
            partial.subtasks = subtasks;
            partial.orchestration_ns = orchestration_ns;
            partial.aborted = true;
            run.keep_stalls(watchdog->take_reports());
            partial.stalls = run.kept_stalls();
            last_report = std::move(partial);
            std::string text =
                run.abort_report().message + "; the run was aborted, but " + std::to_string(cores.busy) +
                (recovering ? " subtask(s) still run after another stall_timeout_ms without progress"
                            : " subtask(s) still run after the grace period") +
                " (oldest task ids:";
            for (std::uint64_t id : cores.oldest)
                text += " " + std::to_string(id);
            text +=
                "): the next begin_run finishes the aborted run once they return (it throws Stall again if "
                "they still do not), and the destructor waits for them";
            run.release(detail::RunPhase::Draining);
            detail::throw_error(ErrorCode::Stall, std::move(text));
        }
        engine.wake.orchestrator().park_until(
            [&] { return engine.progress.is_drained() || watchdog->stalled(); },
            std::min(grace_end, Clock::now() + std::chrono::milliseconds(10)));
    }
}

void Runtime::Impl::abort_run() {
    if (run.aborted()) return;
    // The abort allows a deadlock look at once (RunState::abort), so a run whose stuck tasks nothing runs
    // for is reaped now instead of after the grace period.
    watchdog->mark_aborted();
    run.abort(watchdog->latest());
    detail::logger().warn("aborting the run of tasks {}..{}: every task not yet started is cancelled",
                          window.run_first_id(), window.next_id() - 1);
    // Every thread that makes a task ready after this sees the flag (Engine::make_ready).
    engine.control.request_abort();
    engine.wake.wake_all_schedulers();
    // The schedulers cancel what they pop from now on; cancelling the queues here too ends the run even
    // when the schedulers are what stalled (ready but not dispatched).
    engine.cancel_queued(orchestrator_ctx);
    finish_orchestrator_completions();
}

bool Runtime::Impl::schedule_in_a_sleeping_place() {
    // end_run raised its hint when the orchestrator should take the end of the run; the awake schedulers
    // stand aside while it is up (Scheduler::stand_aside), so it comes down on every way out: once the
    // seat is back, at once if the run was aborted meanwhile (the schedulers cancel what is queued) or if
    // no scheduler sleeps (the host has a CPU for each).
    if (!engine.progress.orchestrator_scheduling()) return false;
    struct Lowered {
        detail::RunProgress& progress;
        ~Lowered() { progress.set_orchestrator_scheduling(false); }
    } lowered{engine.progress};
    if (run.aborted()) return false;
    for (std::uint32_t i = 0; i < schedulers.size(); ++i) {
        if (!engine.wake.try_borrow_seat(i)) continue;
        struct Lent {
            detail::WakeUps& wake;
            std::uint32_t index;
            ~Lent() { wake.return_seat(index); }
        } lent{engine.wake, i};
        return schedulers[i]->help_until_drained();
    }
    return false;
}

void Runtime::Impl::quiesce_schedulers() {
    // The schedulers acknowledge the epoch only while dispatch is disabled (see
    // Scheduler::acknowledged_epoch); after that their private state (statistics, cores) is stable and
    // visible here.
    const std::uint64_t epoch = engine.control.quiesce();
    // A scheduler asleep in a park needs no wake-up: it re-checks the dispatch switch before any pass
    // (Scheduler::loop), and what it wrote before parking is visible here (Parker::is_asleep). Waking it
    // would cost every run a context switch per scheduler on a host with fewer cores than threads. Not
    // when profiling: a scheduler adds its idle time to its statistics as it wakes.
    const bool asleep_is_quiet = !settings.profile;
    for (std::size_t i = 0; i < schedulers.size(); ++i) {
        const auto index = static_cast<std::uint32_t>(i);
        // A scheduler that read the old epoch just before it saw dispatch disabled acknowledges that one and
        // parks; waking it again lets it acknowledge this one without waiting out its park limit. The
        // orchestrator parks meanwhile rather than yielding: on a loaded host a yield sends it behind every
        // runnable thread for a time slice, while the scheduler's acknowledgement wakes it (Scheduler::loop).
        const auto acknowledged = [&] { return schedulers[i]->acknowledged_epoch() == epoch; };
        while (!acknowledged()) {
            if (asleep_is_quiet && engine.wake.scheduler_parker(index).is_asleep()) break;
            engine.wake.wake_scheduler(index);
            if (detail::Parker::spin_until(acknowledged, end_of_run_polls)) break;
            engine.wake.orchestrator().park_until(
                acknowledged, detail::Parker::Clock::now() + std::chrono::milliseconds(1));
        }
    }
}

void Runtime::Impl::resume_dispatch() {
    engine.control.enable_dispatch();
    engine.wake.wake_for_dispatch();
}

bool Runtime::Impl::reap_if_idle() {
    quiesce_schedulers();
    for (auto& s : schedulers) {
        if (s->has_unfinished_cores()) {
            resume_dispatch();  // to collect the kernels when they return
            return false;
        }
    }
    // Nothing runs and nothing can start (aborted): an unfinished task now waits for a release that will
    // never come. Cancel them in id order; producers come first, so consumers they release are cancelled
    // on the way (and skipped below, as closed).
    engine.cancel_queued(orchestrator_ctx);
    std::uint64_t reaped = 0;
    for (std::uint64_t id = window.retired_before(); id < window.next_id(); ++id) {
        const std::uint32_t slot = window.slot_of(id);
        if (detail::link_is_closed(engine.tasks[slot].link.load(std::memory_order_acquire))) continue;
        engine.complete_task(slot, detail::Outcome::Cancelled, orchestrator_ctx);
        ++reaped;
    }
    finish_orchestrator_completions();
    if (reaped != 0)
        detail::logger().warn("cancelled {} task(s) that could never become ready after the abort", reaped);
    PTO_ASSERT(engine.progress.is_drained(), "every task ended once the stuck ones were cancelled");
    return true;
}

void Runtime::Impl::recover_aborted_run() {
    // The schedulers kept running with abort_requested set since end_run threw; wait for the rest.
    watchdog->arm(/*new_run=*/false, run_start_ns, window.run_first_id());
    settle_run(/*recovering=*/true);  // on failure: back to Draining, and throws
    detail::logger().warn("the aborted run of tasks {}..{} finished draining", window.run_first_id(),
                          window.next_id() - 1);
    (void)finish_run(/*throw_if_aborted=*/false, /*release=*/false);  // end_run reported the stall already
}

[[noreturn]] void Runtime::Impl::throw_stall_while_waiting(std::string_view knob) {
    abort_run();
    detail::throw_error(ErrorCode::Stall, run.abort_report().message + " (while waiting for RuntimeConfig::" +
                                              std::string(knob) + "); the run was aborted");
}

}  // namespace pto
