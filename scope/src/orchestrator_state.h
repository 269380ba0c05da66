// detail::OrchestratorState: what one orchestrator thread keeps between submits: the runtime, the scope
// stack, the tensormap (created on first AUTO use) and scratch for dependency lists and prepared accesses.
// Installed in a thread-local pointer for the duration of a run so the free submit functions and
// PTO2_SCOPE can find it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dependency_checker.h"
#include "pto/runtime/detail/task_port.h"
#include "pto/scope/orchestration.h"
#include "pto/tensormap/tensormap.h"

namespace pto {

struct detail::OrchestratorState {
    explicit OrchestratorState(Runtime& rt);

    /// ScopeFrame: one open scope: its mode and the id of the first task submitted in it.
    struct ScopeFrame {
        ScopeMode mode;
        TaskId begin;
    };

    Runtime& runtime;
    detail::TaskPort port;                         // the runtime's task-level plumbing
    const std::atomic<std::uint64_t>* retirement;  // port.retirement_counter(), for the handles
    OrchestratorStats* stats = nullptr;            // the current run's counters (Runtime::orchestrator_stats)
    std::unique_ptr<TensorMap> map;                // created on first AUTO submit
    std::vector<ScopeFrame> scopes;
    std::vector<TaskId> declared;  // set_dependencies + after() of the task being submitted, when both
    std::vector<TaskId> deps;      // declared + discovered producers of the task being submitted
    // The task being submitted: its tensor arguments as the tensormap normalised them for the lookup, so
    // recording them after Runtime::submit does not normalise them again; bit i of prepared_mask marks
    // argument i as looked up (tracked, not allocated by this submit) and so to be recorded.
    std::array<TensorMap::Access, kMaxTensorArgs> accesses;
    std::uint32_t prepared_mask = 0;
    std::uint32_t prepared_count = 0;
    /// run_serial: this thread's run counter when the current run began (ScopeGuard checks that the scope
    /// it closes belongs to this run).
    std::uint64_t run_serial = 0;
    bool is_profiling = false;  // RuntimeConfig::profile_orchestrator of the current run
    /// The dependency checker of the current run; null when it is off, so the submit path pays one
    /// predictable branch.
    std::unique_ptr<detail::DependencyChecker> checker;

    TensorMap& tensormap() {
        if (!map) [[unlikely]]
            create_tensormap();
        return *map;
    }
    /// create_tensormap: the first AUTO submit's; InvalidConfig naming tensormap_entries if it cannot be
    /// allocated.
    void create_tensormap();
    [[nodiscard]] bool is_discovering() const {
        return scopes.empty() || scopes.back().mode == ScopeMode::Auto;
    }
    /// map_watermark: what the tensormap treats as retired. Normally the runtime's retirement; with the
    /// checker on, only tasks below the checker's horizon count as gone, so what the tensormap finds does
    /// not depend on how far retirement happened to get (edges to producers that already retired are then
    /// skipped by the runtime, or cancel the consumer if the producer failed).
    [[nodiscard]] RetiredTasks map_watermark() const {
        RetiredTasks retired = port.retired();
        if (checker != nullptr) [[unlikely]]
            retired.before = checker->horizon(port.next_task_id());
        return retired;
    }
    /// describe_scope: "MANUAL scope at depth 2", for the checker's messages.
    [[nodiscard]] std::string describe_scope() const;
};

namespace detail {

/// current_state: the orchestrator state of the run open on this thread, or null.
detail::OrchestratorState* current_state();
/// require_state: the same, or throws NoActiveRun naming `call`.
detail::OrchestratorState& require_state(const char* call);

}  // namespace detail
}  // namespace pto
