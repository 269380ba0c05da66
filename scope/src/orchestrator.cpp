// Orchestrator run lifecycle, the thread-local current run, and scopes (docs/api.md): AUTO/MANUAL nesting
// rules and dropping a scope's references when it ends.
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>

#include "orchestrator_state.h"
#include "pto/runtime/detail/throw.h"

namespace pto {
namespace {

thread_local detail::OrchestratorState* t_current = nullptr;
/// Runs begun on this thread, so a ScopeGuard can tell its own run from a later one.
thread_local std::uint64_t t_run_serial = 0;

/// checker_mode: RuntimeConfig::check_dependencies, unless PTO_CHECK_DEPS names another mode.
DependencyCheck checker_mode(const RuntimeConfig& config) {
    const char* env = std::getenv("PTO_CHECK_DEPS");
    if (env == nullptr || *env == '\0') return config.check_dependencies;
    if (const auto mode = parse_dependency_check(env)) return *mode;
    detail::throw_error(ErrorCode::InvalidConfig,
                        std::string("PTO_CHECK_DEPS='") + env + "': expected 0, 1, off, report or error");
}

/// forget_entries: a run's tensormap entries die with the run (its tasks all retired), so the next run
/// starts from an empty map with its whole capacity. Like the runtime's own check after every run, an entry
/// that survives the reset is a bug that would surface runs later as a false edge or a capacity error far
/// from its cause, so it stops the process at once.
void forget_entries(TensorMap* map) {
    if (map == nullptr) return;
    map->clear();
    if (map->live_entries() == 0) [[likely]]
        return;
    std::fprintf(stderr,
                 "pto internal error: %u tensormap entries survived the end of the run. Please report this "
                 "with the program that triggered it.\n",
                 map->live_entries());
    std::abort();
}

}  // namespace

namespace detail {

detail::OrchestratorState* current_state() {
    return t_current;
}

detail::OrchestratorState& require_state(const char* call) {
    if (t_current == nullptr) [[unlikely]] {
        check_not_reentrant(call);
        throw_error(ErrorCode::NoActiveRun, std::string(call) +
                                                " outside a run: call it from inside the orchestration "
                                                "function given to pto::run or Orchestrator::run");
    }
    return *t_current;
}

}  // namespace detail

std::string detail::OrchestratorState::describe_scope() const {
    if (scopes.empty()) return "outside every scope";
    return std::string(scopes.back().mode == ScopeMode::Manual ? "MANUAL" : "AUTO") + " scope at depth " +
           std::to_string(scopes.size());
}

detail::OrchestratorState::OrchestratorState(Runtime& rt)
    : runtime(rt), port(rt), retirement(&port.retirement_counter()) {
    scopes.reserve(64);
    deps.reserve(1024);
}

void detail::OrchestratorState::create_tensormap() {
    const std::uint32_t entries = runtime.config().tensormap_entries;
    try {
        map = std::make_unique<TensorMap>(entries);
    } catch (const std::bad_alloc&) {
        detail::throw_error(
            ErrorCode::InvalidConfig,
            "RuntimeConfig::tensormap_entries = " + std::to_string(entries) +
                ": the tensormap for AUTO scopes could not be allocated (std::bad_alloc); lower it");
    }
}

Orchestrator::Orchestrator(Runtime& runtime)
    : runtime_(runtime), state_(std::make_unique<detail::OrchestratorState>(runtime)) {}
Orchestrator::~Orchestrator() = default;

void Orchestrator::begin() {
    detail::check_not_reentrant("pto::run");
    if (t_current != nullptr) [[unlikely]]
        detail::throw_error(ErrorCode::RunInProgress,
                            "a run is already open on this thread; orchestration functions do not nest");
    const DependencyCheck check = checker_mode(runtime_.config());
    detail::TaskPort(runtime_).begin_run();
    if (check == DependencyCheck::Off)
        state_->checker.reset();
    else if (state_->checker == nullptr || state_->checker->mode() != check)
        state_->checker = std::make_unique<detail::DependencyChecker>(runtime_, check);
    if (state_->checker) state_->checker->begin_run(detail::TaskPort(runtime_).next_task_id());
    state_->scopes.clear();
    forget_entries(state_->map.get());
    state_->stats = &detail::TaskPort(runtime_).orchestrator_stats();
    state_->is_profiling = detail::TaskPort(runtime_).is_profiling();
    state_->run_serial = ++t_run_serial;
    t_current = state_.get();
}

RunReport Orchestrator::finish(const RunOptions& options) {
    t_current = nullptr;
    RunReport report = detail::TaskPort(runtime_).end_run();  // ends the orchestration first
    forget_entries(state_->map.get());
    if (state_->checker) state_->checker->add_to(report);
    if (options.throw_on_kernel_failure && report.failed > 0) {
        const TaskFailure& first = report.failures.front();
        detail::throw_error(ErrorCode::KernelFailed,
                            "task " + std::to_string(first.task.value) + " (kernel " + first.kernel +
                                ") failed: " + first.message + "; " + std::to_string(report.failed) +
                                " task(s) failed, " + std::to_string(report.cancelled) +
                                " dependant(s) cancelled, " + std::to_string(report.completed) + " of " +
                                std::to_string(report.submitted) +
                                " completed (Runtime::last_report() has the details)");
    }
    return report;
}

void Orchestrator::abandon() noexcept {
    t_current = nullptr;
    try {
        (void)detail::TaskPort(runtime_).end_run();  // ends the orchestration first
    } catch (...) {
        // The orchestration function's exception is the one to report; the drain's (a stall) is secondary.
    }
    forget_entries(state_->map.get());
}

Runtime& current_runtime() {
    return detail::require_state("current_runtime").runtime;
}

ScopeMode current_scope_mode() {
    const detail::OrchestratorState& s = detail::require_state("current_scope_mode");
    return s.scopes.empty() ? ScopeMode::Auto : s.scopes.back().mode;
}

std::uint32_t current_scope_depth() {
    return static_cast<std::uint32_t>(detail::require_state("current_scope_depth").scopes.size());
}

ScopeGuard::ScopeGuard(ScopeMode mode) {
    detail::OrchestratorState& s =
        detail::require_state(mode == ScopeMode::Auto ? "PTO2_SCOPE()" : "PTO2_SCOPE(MANUAL)");
    if (mode == ScopeMode::Auto && !s.scopes.empty() && s.scopes.back().mode == ScopeMode::Manual)
        [[unlikely]] {
        const auto depth = s.scopes.size();
        detail::throw_error(
            ErrorCode::ScopeNesting,
            "PTO2_SCOPE() (AUTO) opened at depth " + std::to_string(depth + 1) +
                " inside a MANUAL scope (depth " + std::to_string(depth) + ", opened before task " +
                std::to_string(s.scopes.back().begin.value) +
                "): an AUTO scope cannot nest in a MANUAL one, because the manual scope's tasks "
                "never enter the tensormap; use PTO2_SCOPE(MANUAL) here or close the outer scope");
    }
    s.scopes.push_back(detail::OrchestratorState::ScopeFrame{mode, s.port.next_task_id()});
    run_serial_ = s.run_serial;
    depth_ = static_cast<std::uint32_t>(s.scopes.size());
}

ScopeGuard::~ScopeGuard() {
    detail::OrchestratorState* s = detail::current_state();
    // A run that ended abnormally may have uninstalled the state already; nothing is held then. A guard
    // that outlived its run (leaked, or destroyed out of order) must not close a scope it did not open:
    // the run's end released its tasks already.
    if (s == nullptr || s->run_serial != run_serial_ || s->scopes.size() != depth_) [[unlikely]]
        return;
    const detail::OrchestratorState::ScopeFrame frame = s->scopes.back();
    s->scopes.pop_back();
    // Tasks of inner scopes were released when those ended; release_scope skips them.
    s->port.release_scope(frame.begin, s->port.next_task_id());
}

}  // namespace pto
