// Orchestrator::State: what one orchestrator thread keeps between submits: the runtime, the scope stack,
// the tensormap (created on first AUTO use) and scratch for dependency lists. Installed in a thread-local
// pointer for the duration of a run so the free submit functions and PTO2_SCOPE can find it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "pto/scope/orchestration.h"
#include "pto/tensormap/tensormap.h"

namespace pto {

struct Orchestrator::State {
    explicit State(Runtime& rt);

    /// ScopeFrame: one open scope: its mode and the id of the first task submitted in it.
    struct ScopeFrame {
        ScopeMode mode;
        TaskId begin;
    };

    Runtime& runtime;
    OrchestratorStats* stats = nullptr;  // the current run's counters (Runtime::orchestrator_stats)
    std::unique_ptr<TensorMap> map;      // created on first AUTO submit
    std::vector<ScopeFrame> scopes;
    std::vector<TaskId> deps;            // explicit + discovered producers of the task being submitted

    TensorMap& tensormap() {
        if (!map) [[unlikely]]
            map = std::make_unique<TensorMap>(runtime.config().tensormap_entries);
        return *map;
    }
    [[nodiscard]] bool is_discovering() const { return scopes.empty() || scopes.back().mode == ScopeMode::Auto; }
};

namespace detail {

/// current_state: the orchestrator state of the run open on this thread, or null.
Orchestrator::State* current_state();
/// require_state: the same, or throws NoActiveRun naming `call`.
Orchestrator::State& require_state(const char* call);

}  // namespace detail
}  // namespace pto
