// RunPhase: where a Runtime is in its run lifecycle, kept in one atomic so that "one run at a time" is a
// single transition, and the thread-local marks that tell the API which thread may call what.
#pragma once

#include <cstdint>
#include <string_view>

namespace pto::detail {

/// RunPhase: the lifecycle of a Runtime's runs. Every legal transition, and who performs it:
///
///     Idle ──begin_run (CAS)──> Starting ──reset done──> Orchestrating ──end_orchestration──> Ending
///     Ending ──finish_run──> Idle
///     Orchestrating / Ending ──stall, kernels still running after the grace period──> Draining
///     Draining ──begin_run (CAS)──> Starting (waits for the aborted run first; back to Draining if that
///                                   throws Stall)
///     Idle ──register_kernel (CAS)──> Registering ──> Idle
///
/// Only the CASes from Idle or Draining claim the runtime; every other transition is made by the
/// thread holding the claim (the orchestrator thread of the run, or the registering thread), with a
/// release store. A second thread calling begin_run, pto::run or register_kernel meanwhile fails its CAS
/// and gets RunInProgress at once, without touching anything the first thread owns.
enum class RunPhase : std::uint8_t { Idle, Registering, Starting, Orchestrating, Ending, Draining };

/// is_legal_transition: the diagram above as code; RunState checks every transition against it.
[[nodiscard]] constexpr bool is_legal_transition(RunPhase from, RunPhase to) {
    switch (from) {
        case RunPhase::Idle:
            return to == RunPhase::Starting || to == RunPhase::Registering;
        case RunPhase::Registering:
            return to == RunPhase::Idle;
        case RunPhase::Starting:
            // Idle: a start that threw; Draining: recovering an aborted run that is still draining.
            return to == RunPhase::Orchestrating || to == RunPhase::Idle || to == RunPhase::Draining;
        case RunPhase::Orchestrating:
            return to == RunPhase::Ending || to == RunPhase::Draining;
        case RunPhase::Ending:
            return to == RunPhase::Idle || to == RunPhase::Draining;
        case RunPhase::Draining:
            return to == RunPhase::Starting;
    }
    return false;
}

[[nodiscard]] constexpr std::string_view to_string(RunPhase p) {
    switch (p) {
        case RunPhase::Idle:
            return "idle";
        case RunPhase::Registering:
            return "registering a kernel";
        case RunPhase::Starting:
            return "starting a run";
        case RunPhase::Orchestrating:
            return "running an orchestration function";
        case RunPhase::Ending:
            return "waiting for a run's tasks to end";
        case RunPhase::Draining:
            return "draining an aborted run";
    }
    return "?";
}

/// t_owned_run: the Runtime::Impl whose run the calling thread orchestrates (null: none). Set by
/// begin_run on its thread and cleared when the run ends, so the per-submit check that the caller is the
/// run's orchestrator is one thread-local load and compare.
inline thread_local const void* t_owned_run = nullptr;

/// t_runtime_thread: non-null while the calling thread runs inside the runtime: a scheduler thread, or a
/// compute worker calling a kernel. It names the role for messages. Task-level calls made from such a
/// thread (a kernel calling submit, end_run, pto::run...) are refused with ReentrantCall: they would
/// deadlock or corrupt the run that is calling the kernel.
inline thread_local const char* t_runtime_thread = nullptr;

/// RuntimeThreadMark: marks the calling thread as a runtime thread for its lifetime (restoring what it
/// replaced, so nested marks are harmless).
class RuntimeThreadMark {
  public:
    explicit RuntimeThreadMark(const char* role) : previous_(t_runtime_thread) { t_runtime_thread = role; }
    ~RuntimeThreadMark() { t_runtime_thread = previous_; }
    RuntimeThreadMark(const RuntimeThreadMark&) = delete;
    RuntimeThreadMark& operator=(const RuntimeThreadMark&) = delete;

  private:
    const char* previous_;
};

}  // namespace pto::detail
