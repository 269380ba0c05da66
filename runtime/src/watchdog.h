// Watchdog: a thread that notices a run making no progress for RuntimeConfig::stall_timeout_ms and
// classifies the stall (SPEC §10) with the stuck task ids, instead of letting the orchestrator hang.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "pto/runtime/runtime.h"

namespace pto::detail {

enum class StallKind : std::uint8_t {
    KernelTooLong,           ///< a subtask has been running longer than the timeout
    ReadyNotDispatched,      ///< ready tasks are queued but no scheduler dispatches them
    DependencyDeadlock,      ///< unfinished tasks are neither ready nor running
    OrchestratorStarvation,  ///< every submitted task finished; the orchestration function submits nothing
};

[[nodiscard]] const char* to_string(StallKind kind);

struct StallReport {
    StallKind kind;
    std::vector<std::uint64_t> tasks;  // stuck task ids
    std::string message;
};

class Watchdog {
public:
    explicit Watchdog(Runtime::Impl& runtime);
    ~Watchdog();
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

    /// arm / disarm: watch the run between begin_run and end_run (orchestrator thread).
    void arm();
    void disarm();
    /// has_report: a stall was diagnosed and not yet taken (any thread; relaxed flag, then the lock).
    [[nodiscard]] bool has_report() const { return reported_.load(std::memory_order_acquire); }
    std::optional<StallReport> take_report();

private:
    void thread_main();
    [[nodiscard]] std::uint64_t progress_signature() const;
    StallReport diagnose();

    Runtime::Impl& runtime_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool armed_ = false;          // guarded by mutex_
    bool stopping_ = false;       // guarded by mutex_
    std::optional<StallReport> report_;  // guarded by mutex_
    std::atomic<bool> reported_{false};
    std::thread thread_;
};

}  // namespace pto::detail
