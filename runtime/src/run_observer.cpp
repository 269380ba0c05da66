// RunObserver: reading what the run publishes (see run_observer.h).
#include "run_observer.h"

#include <algorithm>

#include "engine.h"
#include "scheduler.h"
#include "task_window.h"

namespace pto::detail {

std::uint64_t RunObserver::progress_epoch() const {
    return engine_.progress.epoch();
}
std::uint64_t RunObserver::submitted() const {
    return window_.published_submitted();
}
std::uint64_t RunObserver::retired_before() const {
    return window_.published_retired();
}
std::uint64_t RunObserver::finished() const {
    return engine_.progress.finished();
}
bool RunObserver::ready_queued() const {
    return !engine_.ready.all_empty();
}
bool RunObserver::dispatch_enabled() const {
    return engine_.control.dispatch_enabled(std::memory_order_relaxed);
}
bool RunObserver::orchestrator_waiting() const {
    return orchestrator_waiting_.load(std::memory_order_relaxed);
}

RunningCores RunObserver::running_cores() const {
    RunningCores c;
    bool any = false;
    for (const auto& s : schedulers_) {
        c.busy += s->busy_cores();
        if (s->oldest_running_task() == ~0ull) continue;
        c.oldest.push_back(s->oldest_running_task());
        c.oldest_start_ns =
            any ? std::min(c.oldest_start_ns, s->oldest_running_start_ns()) : s->oldest_running_start_ns();
        any = true;
    }
    return c;
}

bool RunObserver::is_finished(std::uint64_t id) const {
    return link_is_closed(engine_.tasks[window_.slot_of(id)].link.load(std::memory_order_relaxed));
}

}  // namespace pto::detail
