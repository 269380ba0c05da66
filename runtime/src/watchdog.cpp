// Watchdog thread: samples progress counters every quarter of the timeout; after a full timeout without
// change it classifies the stall from what the schedulers and the orchestrator publish, and wakes the
// orchestrator so it can abort the run instead of waiting forever.
#include "watchdog.h"

#include <algorithm>
#include <chrono>

#include "runtime_impl.h"

namespace pto::detail {

const char* to_string(StallKind kind) {
    switch (kind) {
        case StallKind::KernelTooLong: return "kernel running too long";
        case StallKind::ReadyNotDispatched: return "ready but not dispatched";
        case StallKind::DependencyDeadlock: return "dependency deadlock";
        case StallKind::OrchestratorStarvation: return "orchestrator starvation";
    }
    return "?";
}

Watchdog::Watchdog(Runtime::Impl& runtime) : runtime_(runtime) {
    if (runtime_.config.stall_timeout_ms != 0) thread_ = std::thread([this] { thread_main(); });
}

Watchdog::~Watchdog() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void Watchdog::arm() {
    {
        std::lock_guard lock(mutex_);
        armed_ = true;
        report_.reset();
        reported_.store(false, std::memory_order_release);
    }
    cv_.notify_all();
}

void Watchdog::disarm() {
    std::lock_guard lock(mutex_);
    armed_ = false;
}

std::optional<StallReport> Watchdog::take_report() {
    std::lock_guard lock(mutex_);
    std::optional<StallReport> r = std::move(report_);
    report_.reset();
    reported_.store(false, std::memory_order_release);
    return r;
}

std::uint64_t Watchdog::progress_signature() const {
    // Any change of either counter is progress: a task ended, or the orchestrator submitted one.
    return runtime_.engine.progress_epoch.load(std::memory_order_relaxed) * 0x9E3779B97F4A7C15ull ^
           runtime_.submits_published.load(std::memory_order_relaxed);
}

void Watchdog::thread_main() {
    using namespace std::chrono;
    const auto timeout = milliseconds(runtime_.config.stall_timeout_ms);
    const auto period = std::max(milliseconds(1), timeout / 4);
    std::unique_lock lock(mutex_);
    std::uint64_t last = 0;
    auto last_change = steady_clock::now();
    while (!stopping_) {
        cv_.wait_for(lock, period);
        if (stopping_) break;
        if (!armed_ || report_) {
            last_change = steady_clock::now();
            continue;
        }
        const std::uint64_t now_sig = progress_signature();
        const auto now = steady_clock::now();
        if (now_sig != last) {
            last = now_sig;
            last_change = now;
            continue;
        }
        if (now - last_change < timeout) continue;
        report_ = diagnose();
        reported_.store(true, std::memory_order_release);
        last_change = now;
        lock.unlock();
        runtime_.engine.orchestrator_parker.unpark();
        lock.lock();
    }
}

StallReport Watchdog::diagnose() {
    Engine& engine = runtime_.engine;
    StallReport r;
    const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count();
    std::uint32_t busy = 0;
    for (const auto& s : runtime_.schedulers) {
        busy += s->busy_cores();
        if (s->oldest_running_task() != ~0ull) r.tasks.push_back(s->oldest_running_task());
    }
    const std::uint64_t finished = engine.finished_tasks.load(std::memory_order_relaxed);
    const std::uint64_t submitted = runtime_.submits_published.load(std::memory_order_relaxed);
    const bool orchestrator_waiting = runtime_.orchestrator_waiting.load(std::memory_order_relaxed);
    std::string detail;
    if (busy > 0) {
        r.kind = StallKind::KernelTooLong;
        std::int64_t oldest = now;
        for (const auto& s : runtime_.schedulers)
            if (s->oldest_running_task() != ~0ull) oldest = std::min(oldest, s->oldest_running_start_ns());
        detail = std::to_string(busy) + " core(s) busy, the oldest subtask running for " +
                 std::to_string((now - oldest) / 1'000'000) + " ms";
    } else if (!engine.ready.all_empty()) {
        r.kind = StallKind::ReadyNotDispatched;
        detail = "ready queues hold tasks but no core took one";
    } else if (finished < submitted || orchestrator_waiting) {
        r.kind = StallKind::DependencyDeadlock;
        r.tasks.push_back(runtime_.retired_published.load(std::memory_order_relaxed));
        detail = std::to_string(submitted - std::min(submitted, finished)) +
                 " task(s) neither ready nor running; the oldest unretired task is listed";
    } else {
        r.kind = StallKind::OrchestratorStarvation;
        detail = "all " + std::to_string(submitted) +
                 " submitted task(s) finished and the orchestration function submitted nothing new";
    }
    // Appended piecewise: GCC 12 reports a false -Wrestrict on chains of operator+ here.
    r.message = "stall: ";
    r.message += to_string(r.kind);
    r.message += " after ";
    r.message += std::to_string(runtime_.config.stall_timeout_ms);
    r.message += " ms without progress (RuntimeConfig::stall_timeout_ms): ";
    r.message += detail;
    if (!r.tasks.empty()) {
        r.message += "; stuck task ids:";
        for (std::uint64_t id : r.tasks) {
            r.message += ' ';
            r.message += std::to_string(id);
        }
    }
    return r;
}

}  // namespace pto::detail
