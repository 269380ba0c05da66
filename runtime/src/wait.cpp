// TaskPort::wait_for: the orchestrator blocks until given tasks have completed, so a data-dependent graph can
// read their outputs before deciding what to submit next. It parks like wait_for_retirement
// (back_pressure.cpp), with the same watchdog and deadlock proof, and is woken by the awaited task's
// completer (Engine::end_task).
#include <algorithm>
#include <string>

#include "aicpu_slice.h"
#include "clock.h"
#include "pto/runtime/detail/throw.h"
#include "pto/runtime/detail/task_port.h"
#include "runtime_impl.h"

namespace pto {

using detail::Outcome;

void detail::TaskPort::wait_for(std::span<const TaskId> tasks) {
    runtime_->impl_->wait_for(tasks);
}

void Runtime::Impl::wait_for(std::span<const TaskId> tasks) {
    check_run_open("wait_for");
    for (const TaskId t : tasks) {
        if (t.value < window.run_first_id() || t.value >= window.next_id()) [[unlikely]]
            detail::throw_error(
                ErrorCode::InvalidArgument,
                "wait_for(task " + std::to_string(t.value) + "): " +
                    (t.value >= window.next_id()
                         ? "not submitted yet (the next task is " + std::to_string(window.next_id()) + ")"
                         : "a task of an earlier run (this run began at task " +
                               std::to_string(window.run_first_id()) + ")") +
                    "; wait only for tasks this orchestration function submitted");
    }
    if (tasks.empty()) return;
    ++stats.waits;
    for (const TaskId t : tasks)
        recorder.wait(TaskId{window.next_id()}, t);
    const bool serial = config.orchestration == OrchestrationMode::Serial;
    if (serial || !std::all_of(tasks.begin(), tasks.end(), [&](TaskId t) { return is_complete(t); })) {
        const std::int64_t start_ns = detail::steady_ns();
        const detail::AicpuSlice traced(recorder.aicpu_sink(), AicpuActivity::TaskWait, run_start_ns,
                                        tasks.front(), static_cast<std::uint32_t>(tasks.size()));
        // Consumers staged by open scopes are not in their producers' fanout lists yet: an awaited task
        // among them would never become ready.
        flush_links();
        if (serial) {
            // Nothing runs during a serial orchestration. Run everything submitted so far, then pause the
            // schedulers again, so orchestration and execution still never overlap (docs/api.md).
            resume_dispatch();
            for (std::uint64_t id = window.retired_before(); id < window.next_id(); ++id)
                wait_for_one(TaskId{id});
            quiesce_schedulers();
        } else {
            for (const TaskId t : tasks)
                wait_for_one(t);
        }
        stats.wait_ns += detail::steady_ns() - start_ns;
    }
    // Retirement (or the slot's outcome) tells how each ended; report the first that did not succeed.
    const RetiredTasks retired = window.retired();
    for (const TaskId t : tasks) {
        const bool unsuccessful =
            t.value < window.retired_before()
                ? retired.is_unsuccessful(t)
                : engine.tasks[window.slot_of(t.value)].outcome.load(std::memory_order_relaxed) !=
                      Outcome::Ok;  // after the acquire that saw it closed
        if (unsuccessful) [[unlikely]]
            throw_awaited_unsuccessful(t);
    }
}

bool Runtime::Impl::is_complete(TaskId task) const {
    // Acquire (seq_cst): pairs with the completer's close CAS (release), so the task's outputs and outcome
    // are visible; seq_cst also for the handshake with Engine::end_task (see "The awaited slot" in
    // run_progress.h).
    return task.value < window.retired_before() ||
           detail::link_is_closed(
               engine.tasks[window.slot_of(task.value)].link.load(std::memory_order_seq_cst));
}

void Runtime::Impl::wait_for_one(TaskId task) {
    const std::uint32_t slot = window.slot_of(task.value);
    const auto is_done = [&] { return is_complete(task); };
    if (is_done()) return;
    // Published for the whole wait (not per park), so the watchdog never takes this wait for an
    // orchestration function gone quiet.
    orchestrator_waiting.store(true, std::memory_order_relaxed);
    struct Unpublish {
        Runtime::Impl& rt;
        ~Unpublish() {
            rt.engine.progress.stop_awaiting();
            rt.orchestrator_waiting.store(false, std::memory_order_relaxed);
        }
    } unpublish{*this};
    // seq_cst: the waiter's half of the handshake in Engine::end_task (store, then re-check the link word).
    engine.progress.await_slot(slot);
    while (!is_done()) {
        if (watchdog->stalled() || prove_deadlock("wait_for (task " + std::to_string(task.value) + ")"))
            [[unlikely]] {
            abort_run();
            detail::throw_error(ErrorCode::Stall, run.abort_report().message +
                                                      " (while the orchestration function waited for task " +
                                                      std::to_string(task.value) + "); the run was aborted");
        }
        engine.wake.orchestrator().park_until([&] { return is_done() || watchdog->stalled(); },
                                              detail::Parker::Clock::now() + std::chrono::milliseconds(10));
    }
}

void Runtime::Impl::throw_awaited_unsuccessful(TaskId task) {
    const bool is_retired = task.value < window.retired_before();
    const std::uint32_t slot = window.slot_of(task.value);
    std::string text = "wait_for: task " + std::to_string(task.value);
    if (!is_retired && engine.tasks[slot].kind == TaskKind::Kernel)
        text += " (kernel " + engine.kernel_name(engine.tasks[slot].funcs[0]) + ")";
    // The task's own failure message, or (cancelled) the first failure of the run, which caused it or
    // happened first; engine.failures keeps the first 16 failed tasks.
    std::string own_message, first_failure;
    {
        for (const TaskFailure& f : engine.failures.snapshot()) {
            if (f.task == task) own_message = f.message;
            if (first_failure.empty())
                first_failure =
                    "task " + std::to_string(f.task.value) + " (kernel " + f.kernel + "): " + f.message;
        }
    }
    if (is_retired && own_message.empty()) {
        // Retired: only the failure list (first 16) tells a failed task from a cancelled one.
        text += " failed or was cancelled" +
                (first_failure.empty() ? std::string() : " (first failure: " + first_failure + ")");
    } else if (!own_message.empty() ||
               engine.tasks[slot].outcome.load(std::memory_order_relaxed) == Outcome::Failed) {
        text += " failed" + (own_message.empty() ? std::string() : ": " + own_message);
    } else {
        text += " was cancelled because a task it depends on failed" +
                (first_failure.empty() ? std::string() : " (first failure: " + first_failure + ")");
    }
    text += "; its outputs were never written, so the orchestration function stops here and the run drains";
    detail::throw_error(ErrorCode::KernelFailed, std::move(text));
}

}  // namespace pto
