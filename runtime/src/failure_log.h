// FailureLog: the first failed tasks of a run, for its report and for wait_for's message. Any thread adds
// (cold: a failure takes a lock); the orchestrator reads a copy.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "pto/runtime/stats.h"

namespace pto::detail {

class FailureLog {
  public:
    static constexpr std::size_t kMaxReported = 16;

    /// record: one more failed subtask of `task`. One entry per task, so one wide failing task cannot hide
    /// the others: a short scan of at most kMaxReported.
    void record(TaskId task, std::string kernel, std::string message) {
        std::lock_guard lock(mutex_);
        for (TaskFailure& f : failures_) {
            if (f.task == task) {
                ++f.failed_subtasks;
                return;
            }
        }
        if (failures_.size() >= kMaxReported) return;
        failures_.push_back(TaskFailure{task, std::move(kernel), std::move(message), 1});
    }
    [[nodiscard]] std::vector<TaskFailure> snapshot() const {
        std::lock_guard lock(mutex_);
        return failures_;
    }
    void clear() {
        std::lock_guard lock(mutex_);
        failures_.clear();
    }

  private:
    mutable std::mutex mutex_;
    std::vector<TaskFailure> failures_;  // guarded by mutex_
};

}  // namespace pto::detail
