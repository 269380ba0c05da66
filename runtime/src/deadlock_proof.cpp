// Proving a dependency deadlock without a timeout: while the orchestrator waits (end_run, or back-pressure
// in wait_for_retirement) and nothing has moved for a moment, it quiesces the schedulers and looks. If no
// core runs a subtask, no task is queued, and yet tasks are unfinished (or the oldest task does not
// retire), nothing in the runtime can ever release them: every producer is an earlier, submitted task and
// only completions release consumers or drop references. That is reported at once, whatever
// stall_timeout_ms is; the watchdog's timeout stays for what cannot be proven (a kernel running long).
#include <string>
#include <vector>

#include "clock.h"
#include "runtime_impl.h"

namespace pto {

bool Runtime::Impl::should_check_deadlock() {
    // A stale value only delays or repeats one look, which decides under quiescence.
    const std::uint64_t epoch = observer.progress_epoch() + observer.finished() + window.retired_before();
    // At most one look per quiet period (RunState::look_is_due); a slow machine could otherwise starve
    // the schedulers of passes by quiescing them over and over.
    if (!run.look_is_due(epoch, detail::steady_ns())) return false;
    return observer.running_cores().busy == 0 && !observer.ready_queued();
}

bool Runtime::Impl::prove_deadlock(std::string_view waiting_for) {
    if (run.aborted() || !should_check_deadlock()) return false;
    const bool was_dispatching = engine.control.dispatch_enabled(std::memory_order_relaxed);
    if (!was_dispatching) return false;  // serial mode before the orchestration ended: nothing could run
    quiesce_schedulers();
    bool idle = engine.ready.all_empty();
    for (auto& s : schedulers)
        idle = idle && !s->has_unfinished_cores();
    std::vector<TaskId> stuck;
    std::uint64_t unfinished = 0;
    if (idle) {
        for (std::uint64_t id = window.retired_before(); id < window.next_id(); ++id) {
            const std::uint32_t slot = window.slot_of(id);
            if (detail::link_is_closed(engine.tasks[slot].link.load(std::memory_order_acquire))) continue;
            ++unfinished;
            if (stuck.size() < detail::kMaxStuckIds) stuck.push_back(TaskId{id});
        }
    }
    // With every task finished, the oldest one that could not retire is a reference nobody will drop (only
    // completions drop them); a scope hold is diagnosed separately (CapacityDeadlock) before this. Found by
    // looking, not by retiring: a check must not change which producers later lookups still see.
    bool unretirable = false;
    std::uint64_t oldest_id = window.retired_before();
    if (idle && unfinished == 0) {
        for (; oldest_id < window.next_id() && !window.is_scope_held(oldest_id); ++oldest_id) {
            const std::uint32_t oldest = window.slot_of(oldest_id);
            if (detail::link_refs(engine.tasks[oldest].link.load(std::memory_order_acquire)) != 0) {
                unretirable = true;
                stuck.push_back(TaskId{oldest_id});
                break;
            }
        }
    }
    resume_dispatch();
    if (!idle || (unfinished == 0 && !unretirable)) return false;

    StallReport r;
    r.kind = StallKind::DependencyDeadlock;
    r.tasks = stuck;
    r.message = "dependency deadlock, proven without waiting for RuntimeConfig::stall_timeout_ms: ";
    if (unfinished > 0)
        r.message += std::to_string(unfinished) +
                     " task(s) unfinished, none ready or running, while the orchestrator waits in " +
                     std::string(waiting_for) + ": nothing can ever release them. ";
    else
        r.message += "every task finished, but task " + std::to_string(oldest_id) +
                     " holds a reference nobody will drop, while the orchestrator waits in " +
                     std::string(waiting_for) + ". ";
    r.message += detail::kDeadlockCauses;
    r.message += "; stuck task ids:";
    for (TaskId id : stuck)
        r.message += " " + std::to_string(id.value);
    watchdog->file_proven(std::move(r));
    return true;
}

}  // namespace pto
