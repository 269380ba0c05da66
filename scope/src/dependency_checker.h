// DependencyChecker: the shadow discovery behind RuntimeConfig::check_dependencies. It keeps its own
// tensormap of every task's tracked accesses (whatever the scope mode), finds the hazards each new task
// has with earlier ones, and checks that the task's declared producers order every one of them, directly
// or through a chain of declared edges. Cold by design: it allocates per task and is built only when on.
#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <vector>

#include "pto/runtime/config.h"
#include "pto/runtime/runtime.h"
#include "pto/runtime/stats.h"
#include "pto/tensormap/tensormap.h"

namespace pto::detail {

class DependencyChecker {
  public:
    DependencyChecker(const Runtime& runtime, DependencyCheck mode);

    [[nodiscard]] DependencyCheck mode() const { return mode_; }

    /// begin_run: forgets the previous run's tasks and findings.
    void begin_run(TaskId first);

    /// horizon: tasks below it have retired before `next` could be submitted (the window holds at most
    /// window_tasks unretired tasks), so they can never race with it and are not checked.
    [[nodiscard]] TaskId horizon(TaskId next) const;

    /// check: the hazards task `id` (not yet submitted) has with earlier tasks, against `producers`,
    /// every edge it will get. `declared` are the producers the author named (for unexplained-edge
    /// findings). Findings are added to the run's list; returns how many missing edges were found.
    /// `origin` says where the task was submitted (scope, or template node); `is_template_node` picks the
    /// advice of the message.
    std::uint32_t check(TaskId id, const TaskSpec& spec, std::span<const TaskId> producers,
                        std::span<const TaskId> declared, std::string origin, bool is_template_node);
    /// record: task `id`, checked just before, was submitted: its accesses enter the shadow map.
    void record(TaskId id, std::span<const TensorArg> tensors);

    /// Mark: the findings so far, to throw or discard what one submit added.
    struct Mark {
        std::size_t findings;
        std::uint64_t missing;
        std::uint64_t unexplained;
    };
    [[nodiscard]] Mark mark() const { return {findings_.size(), missing_, unexplained_}; }
    /// throw_first_missing: throws MissingDependency with the first missing-edge finding since `from`.
    [[noreturn]] void throw_first_missing(const Mark& from) const;
    /// reject: the same for a submit that is refused: its findings are discarded first.
    [[noreturn]] void reject(const Mark& from);
    /// discard_since: forgets the findings of a submit that did not happen (Error mode, or a rejected call).
    void discard_since(const Mark& from);

    /// add_to: moves the run's findings into `report` (counts, and the first kMaxFindings findings).
    void add_to(RunReport& report);

    static constexpr std::size_t kMaxFindings = 256;

  private:
    struct TaskRecord {
        TaskId id;
        TaskKind kind = TaskKind::Kernel;
        FuncId func;
        std::string origin;
        bool is_template_node = false;
        std::vector<TaskId> producers;
        std::vector<TensorArg> tensors;
        std::uint64_t visit = 0;  // last search that reached it
    };

    TaskRecord* find(TaskId id);
    bool is_ordered(TaskId producer, std::span<const TaskId> producers, TaskId consumer);
    void add_finding(DependencyFinding finding);
    std::string describe(const TaskRecord& r) const;
    std::string first_missing_message(const Mark& from) const;
    bool explain(const TaskRecord& producer, const TensorArg& access, HazardKind& kind,
                 TensorArg& producer_access) const;

    const Runtime& runtime_;
    const DependencyCheck mode_;
    TaskId first_;  // of the current run
    TensorMap shadow_;
    std::deque<TaskRecord> records_;  // consecutive ids from records_.front().id
    TaskRecord pending_;              // the task between check and record
    std::vector<TaskId> hazards_;     // distinct hazard producers of the task being checked
    std::vector<TaskId> found_;       // one access's lookup
    std::vector<TaskId> stack_;
    std::uint64_t search_ = 0;
    std::vector<DependencyFinding> findings_;
    std::uint64_t missing_ = 0;
    std::uint64_t unexplained_ = 0;
    std::uint64_t logged_ = 0;
};

}  // namespace pto::detail
