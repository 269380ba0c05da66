// RunObserver: the read-only view of a run that the watchdog and the diagnoses sample from another thread
// (or without stopping anything): the counters the run publishes and the facts of one slot. Every method
// is const and reads only atomics (relaxed: the values are compared or reported, never used to reach other
// data), so a reader can tell from this header that observing a run changes nothing in it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace pto::detail {

class Engine;
class Scheduler;
class TaskWindow;

/// RunningCores: what the scheduler threads publish about their cores.
struct RunningCores {
    std::uint32_t busy = 0;             // cores with a running subtask (all scheduler threads)
    std::vector<std::uint64_t> oldest;  // the oldest running task of each scheduler thread that has one
    std::int64_t oldest_start_ns = 0;   // start of the oldest running subtask (steady clock), if any
};

class RunObserver {
  public:
    RunObserver(const Engine& engine, const TaskWindow& window,
                const std::vector<std::unique_ptr<Scheduler>>& schedulers,
                const std::atomic<bool>& orchestrator_waiting)
        : engine_(engine),
          window_(window),
          schedulers_(schedulers),
          orchestrator_waiting_(orchestrator_waiting) {}

    // ---- Progress: any change of these means the run moved

    /// progress_epoch: bumped by every scheduler pass that ended or dispatched something.
    [[nodiscard]] std::uint64_t progress_epoch() const;
    /// submitted: tasks this run submitted, as published after each submit.
    [[nodiscard]] std::uint64_t submitted() const;
    /// retired_before: the retirement watermark, as published after each retirement.
    [[nodiscard]] std::uint64_t retired_before() const;
    /// finished: tasks of this run that completed, failed or were cancelled.
    [[nodiscard]] std::uint64_t finished() const;

    // ---- Where the run stands

    [[nodiscard]] bool ready_queued() const;
    /// dispatch_enabled: false in serial mode until the orchestration function returns, and while quiesced.
    [[nodiscard]] bool dispatch_enabled() const;
    /// orchestrator_waiting: the orchestrator is parked inside the runtime (not in user code).
    [[nodiscard]] bool orchestrator_waiting() const;
    [[nodiscard]] RunningCores running_cores() const;
    /// is_finished: task `id` completed, failed or was cancelled (its link word is closed). Reading a slot
    /// the orchestrator reuses meanwhile costs at most a wrong id in a report.
    [[nodiscard]] bool is_finished(std::uint64_t id) const;

  private:
    const Engine& engine_;
    const TaskWindow& window_;
    const std::vector<std::unique_ptr<Scheduler>>& schedulers_;
    const std::atomic<bool>& orchestrator_waiting_;
};

}  // namespace pto::detail
