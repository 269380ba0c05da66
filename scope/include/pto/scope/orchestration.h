// The orchestration API graph authors write against (docs/api.md): pto::run, PTO2_SCOPE / PTO2_SCOPE(MANUAL),
// submit calls per core type, dependency-only tasks, alloc_tensors, and the TaskHandle they return.
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "pto/runtime/runtime.h"
#include "pto/scope/args.h"

namespace pto {

class TaskHandle;

namespace detail {
struct OrchestratorState;  // the per-thread state of a run (scope stack, tensormap); private to pto::scope

/// make_handle: the handle of task `id` whose kept tensor arguments are `tensors`, `outputs` of them
/// allocated by its submit (what the submit calls return).
TaskHandle make_handle(TaskId id, std::span<const TensorArg> tensors, std::uint32_t outputs,
                       const std::atomic<std::uint64_t>* retired);
}  // namespace detail

/// ScopeMode: how tasks submitted in a scope get their dependencies.
enum class ScopeMode : std::uint8_t {
    Auto,    ///< discovered from tensor arguments by the tensormap, plus explicit ones (PTO2_SCOPE())
    Manual,  ///< explicit only; the tensormap is never touched (PTO2_SCOPE(MANUAL))
};

/// The tokens PTO2_SCOPE accepts: PTO2_SCOPE(), PTO2_SCOPE(AUTO), PTO2_SCOPE(MANUAL).
namespace scope_tokens {
inline constexpr ScopeMode AUTO = ScopeMode::Auto;
inline constexpr ScopeMode MANUAL = ScopeMode::Manual;
}  // namespace scope_tokens

/// TaskHandle: what a submit returns: the task's id and a reference to the tensors the runtime allocated for
/// it, which stay where the runtime keeps the task's arguments. A handle is a small value (pass it around,
/// store it, name it in Args::after); its outputs can be read until the task retires, which an open scope
/// prevents, so read them in the scope that submitted the task (a TensorView copied out stays valid as
/// metadata; its buffer lives as long as the creator task, see alloc_tensors).
class TaskHandle {
  public:
    TaskHandle() = default;

    /// task_id: the submitted task's id (for Args::after and set_dependencies of later tasks).
    [[nodiscard]] TaskId task_id() const { return id_; }
    /// output: the i-th tensor allocated by this submit (create-info outputs in argument order, or the
    /// alloc_tensors results). Throws InvalidArgument if i >= output_count() or the task retired already.
    [[nodiscard]] TensorView output(std::uint32_t i) const { return output_ref(i); }
    /// output_ref: output(i) without the copy: the view where the runtime keeps the task's arguments. It
    /// stays valid until the task retires, which the open scope that submitted it prevents; after that the
    /// storage serves later tasks, so keep a reference only within that scope (and copy what must outlive
    /// it). A scope that passes its scratch to many tasks reads each view from here at no cost.
    [[nodiscard]] const TensorView& output_ref(std::uint32_t i) const {
        // Inline for the common handle (alloc_tensors: every argument is an output) read while its task
        // lives; everything else, errors included, is out of line.
        if (i < output_count_ && output_count_ == tensor_count_ &&
            retired_->load(std::memory_order_relaxed) <= id_.value) [[likely]]
            return tensors_[i].view;
        return find_output(i);
    }
    [[nodiscard]] std::uint32_t output_count() const { return output_count_; }

  private:
    /// find_output: output_ref(i) of a submit whose arguments mix outputs it allocated with others, and
    /// the errors (i out of range, the task retired).
    [[nodiscard]] const TensorView& find_output(std::uint32_t i) const;

    friend TaskHandle detail::make_handle(TaskId, std::span<const TensorArg>, std::uint32_t,
                                          const std::atomic<std::uint64_t>*);

    TaskId id_;
    const TensorArg* tensors_ = nullptr;                   // the task's arguments as the runtime keeps them
    const std::atomic<std::uint64_t>* retired_ = nullptr;  // the runtime's retirement watermark
    std::uint16_t tensor_count_ = 0;
    std::uint16_t output_count_ = 0;
};

inline TaskHandle detail::make_handle(TaskId id, std::span<const TensorArg> tensors, std::uint32_t outputs,
                                      const std::atomic<std::uint64_t>* retired) {
    TaskHandle h;
    h.id_ = id;
    h.tensors_ = tensors.data();
    h.retired_ = retired;
    h.tensor_count_ = static_cast<std::uint16_t>(tensors.size());
    h.output_count_ = static_cast<std::uint16_t>(outputs);
    return h;
}

/// RunOptions: how pto::run ends.
struct RunOptions {
    /// Throw Error{KernelFailed} naming the first failed task when a kernel failed. Default true; with
    /// false the returned report lists the failures instead.
    bool throw_on_kernel_failure = true;
};

/// Orchestrator: runs orchestration functions on one Runtime, owning what persists between runs (the
/// tensormap and the scope stack), so repeated runs allocate nothing. pto::run uses a temporary one.
class Orchestrator {
  public:
    explicit Orchestrator(Runtime& runtime);
    ~Orchestrator();
    Orchestrator(const Orchestrator&) = delete;
    Orchestrator& operator=(const Orchestrator&) = delete;

    /// run: calls `orchestration()` on this thread as the orchestrator of one run, then waits until every
    /// task finished. Submit calls and PTO2_SCOPE inside it (and in functions it calls) use this run.
    /// If `orchestration` throws, the run is drained and the exception propagates. Throws KernelFailed
    /// (see RunOptions), Stall, or RunInProgress if a run is open on this thread or runtime.
    template <class Fn>
    RunReport run(Fn&& orchestration, RunOptions options = {}) {
        begin();
        try {
            std::forward<Fn>(orchestration)();
        } catch (...) {
            abandon();
            throw;
        }
        return finish(options);
    }

    [[nodiscard]] Runtime& runtime() { return runtime_; }

  private:
    void begin();
    RunReport finish(const RunOptions& options);
    void abandon() noexcept;

    Runtime& runtime_;
    std::unique_ptr<detail::OrchestratorState> state_;
};

/// run: one orchestration on `runtime` with a temporary Orchestrator (see Orchestrator::run).
template <class Fn>
RunReport run(Runtime& runtime, Fn&& orchestration, RunOptions options = {}) {
    Orchestrator orchestrator(runtime);
    return orchestrator.run(std::forward<Fn>(orchestration), options);
}

// ---- Submit calls: orchestrator thread, inside run. Each throws NoActiveRun outside a run. --------------

/// submit_aic / submit_aiv: one kernel launch of `args.block_count()` blocks on AIC (cube) or AIV
/// (vector) cores. Throws InvalidBlockNum, TooManyArguments, DependenciesAlreadySet, InvalidDependency,
/// InvalidTensor, UnknownKernel, CapacityDeadlock; blocks while the window is full (back-pressure).
TaskHandle submit_aic(FuncId kernel, Args& args);
TaskHandle submit_aiv(FuncId kernel, Args& args);
/// submit_mix: each block runs `aic` on a cluster's AIC core and `aiv0`, `aiv1` on its two AIV cores,
/// started together; the block ends when all three lanes have.
TaskHandle submit_mix(FuncId aic, FuncId aiv0, FuncId aiv1, Args& args);
/// submit_dependency_only: a task without a kernel that completes once its producers have: joins N
/// producers to M consumers with N + M edges. Its tensor arguments take part in discovery (AUTO).
TaskHandle submit_dependency_only(Args& args);
/// alloc_tensors: a framework task that allocates `infos` from the heap ring. The buffers live until the
/// task retires: after its scope ends and every task depending on it finished, so depending on the
/// alloc task keeps scratch buffers alive (the manual-scope idiom).
TaskHandle alloc_tensors(std::span<const TensorCreateInfo> infos);
TaskHandle alloc_tensors(std::initializer_list<TensorCreateInfo> infos);

inline TaskHandle submit_aic(FuncId kernel, Args&& args) {
    return submit_aic(kernel, args);
}
inline TaskHandle submit_aiv(FuncId kernel, Args&& args) {
    return submit_aiv(kernel, args);
}
inline TaskHandle submit_mix(FuncId aic, FuncId aiv0, FuncId aiv1, Args&& args) {
    return submit_mix(aic, aiv0, aiv1, args);
}
inline TaskHandle submit_dependency_only(Args&& args) {
    return submit_dependency_only(args);
}

// ---- Data-dependent orchestration: orchestrator thread, inside run --------------------------------------

/// wait_for: blocks until every task in `tasks` has completed, so the orchestration function can read
/// what they wrote (a router's token counts, say) and decide what to submit next. Allowed in any scope,
/// MANUAL or AUTO, and outside scopes: open scopes only hold retirement, so their tasks complete normally;
/// edges staged by open scopes are flushed first. Needs no room in the window (nothing is submitted) and
/// keeps retiring tasks while it waits. In serial mode it runs every task submitted so far and pauses the
/// schedulers again before returning. Nothing hangs: a stall or a provable deadlock aborts the run with
/// Error{Stall}. Throws KernelFailed naming the first awaited task that failed or was cancelled (its
/// outputs were never written; the run then drains as for any exception), InvalidArgument for an id that
/// is not a task this run submitted, NoActiveRun outside a run. Cost: a few checks when the tasks have
/// completed already; otherwise a flush, a park and a wake-up by the scheduler that completes the task
/// (bench/wait_cost.cpp measures both).
///
///     const TaskHandle router = submit_aiv(kRouter, args);
///     pto::wait(router);                       // router's outputs are final now
///     for (e : experts) if (count[e] > 0) submit_aic(kExpert, expert_args(e, count[e]));
///
/// Runtime-allocated outputs (TensorCreateInfo) of an awaited task live until it retires: read them while
/// its scope is still open. A later task that reads the awaited task's outputs still declares it as a
/// producer (MANUAL) or finds it through the tensormap (AUTO): the edge to a completed producer costs no
/// waiting, keeps its outputs alive and is what the dependency checker looks for.
void wait_for(std::span<const TaskId> tasks);
/// wait: wait_for one task.
void wait(TaskId task);
void wait(const TaskHandle& task);

/// discover_producers: in an AUTO scope (or outside every scope), appends to `out` the producers the
/// tensormap finds for `tensors` (and the creators of runtime-allocated views); in a MANUAL scope appends
/// nothing. For layers that submit through Runtime directly (static templates). Throws NoActiveRun.
void discover_producers(std::span<const TensorArg> tensors, std::vector<TaskId>& out);
/// record_accesses: in an AUTO scope, records that `task` accesses `tensors` (after it was submitted), so
/// later tasks find it; waits for retirement if the tensormap is full. Nothing in a MANUAL scope.
void record_accesses(std::span<const TensorArg> tensors, TaskId task);

/// current_runtime: the runtime of the run open on this thread. Throws NoActiveRun.
Runtime& current_runtime();
/// current_scope_mode: the innermost open scope's mode; Auto outside every scope.
ScopeMode current_scope_mode();
/// current_scope_depth: open scopes on this thread (0 outside every scope).
std::uint32_t current_scope_depth();

/// ScopeGuard: opens a scope on construction and ends it on destruction; what PTO2_SCOPE expands to.
/// Ending a scope never waits: it drops the scope's references so its tasks can retire.
/// Throws ScopeNesting for an AUTO scope inside a MANUAL one, NoActiveRun outside a run.
class ScopeGuard {
  public:
    explicit ScopeGuard(ScopeMode mode = ScopeMode::Auto);
    ~ScopeGuard();
    ScopeGuard(const ScopeGuard&) = delete;
    ScopeGuard& operator=(const ScopeGuard&) = delete;

    /// enter_once: true the first time, false after; lets PTO2_SCOPE be a `for` over one iteration.
    bool enter_once() { return !entered_ && (entered_ = true); }

  private:
    std::uint64_t run_serial_ = 0;  // the run (per thread) and depth of the scope this guard opened
    std::uint32_t depth_ = 0;
    bool entered_ = false;
};

}  // namespace pto

#define PTO_DETAIL_CONCAT_INNER(a, b) a##b
#define PTO_DETAIL_CONCAT(a, b) PTO_DETAIL_CONCAT_INNER(a, b)
#define PTO_DETAIL_SCOPE(name, ...) for (::pto::ScopeGuard name{__VA_ARGS__}; name.enter_once();)

/// PTO2_SCOPE() { ... } opens an AUTO scope around the block; PTO2_SCOPE(MANUAL) { ... } a manual one.
#define PTO2_SCOPE(...)                                               \
    PTO_DETAIL_SCOPE(PTO_DETAIL_CONCAT(pto_scope_guard_, __COUNTER__) \
                         __VA_OPT__(, ::pto::scope_tokens::__VA_ARGS__))
