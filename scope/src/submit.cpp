// The submit calls: argument checks that need the task in hand, dependency assembly (explicit deps, and in
// AUTO scopes creators plus tensormap producers), the runtime submit, then recording the task's accesses.
#include <bit>
#include <chrono>
#include <string>

#include "orchestrator_state.h"
#include "pto/runtime/detail/throw.h"

namespace pto {
namespace {

std::int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// describe_task: "task N (kernel NAME)" for the task about to be submitted, with the labels of the
/// runtime's own task descriptions, so a misuse reads the same whichever layer reports it.
std::string describe_task(const detail::OrchestratorState& s, const TaskSpec& spec) {
    std::string kind;
    switch (spec.kind) {
        case TaskKind::Kernel:
            kind = "kernel " + s.runtime.kernel_name(spec.funcs[0]);
            break;
        case TaskKind::DependencyOnly:
            kind = "dependency-only";
            break;
        case TaskKind::Alloc:
            kind = "alloc_tensors";
            break;
    }
    return "task " + std::to_string(s.port.next_task_id().value) + " (" + kind + ")";
}

[[noreturn]] void throw_args_misuse(const detail::OrchestratorState& s, const Args& args,
                                    const TaskSpec& spec) {
    const std::string task = describe_task(s, spec);
    if (args.has_null_dependencies())
        detail::throw_error(ErrorCode::InvalidDependency,
                            task + ": set_dependencies was given a null array with a non-zero count");
    if (args.null_view_index() != 0)
        detail::throw_error(ErrorCode::InvalidTensor,
                            task + ": tensor argument " + std::to_string(args.null_view_index() - 1) +
                                " is a view without a buffer (null data pointer); for an output the runtime "
                                "should allocate, pass a TensorCreateInfo to Args::output");
    if (args.has_dependencies_set_twice())
        detail::throw_error(ErrorCode::DependenciesAlreadySet,
                            task +
                                ": set_dependencies was called twice on one Args; pass every producer in one "
                                "call (n = 0 clears the list first)");
    if (args.has_too_many_after())
        detail::throw_error(ErrorCode::TooManyArguments,
                            task + ": Args::after was given more than " +
                                std::to_string(Args::kMaxAfterDependencies) +
                                " producers; pass a longer list with set_dependencies");
    detail::throw_error(ErrorCode::TooManyArguments, task + ": " + std::to_string(args.requested_tensors()) +
                                                         " tensor arguments (at most " +
                                                         std::to_string(kMaxTensorArgs) + ") or more than " +
                                                         std::to_string(kMaxScalarArgs) + " scalars");
}

/// add_creator: adds the creator of a runtime-allocated view (its buffer's first writer, found without a
/// map lookup) unless it is the one added last: the views of one alloc_tensors share a creator, and a
/// repeated producer only costs the runtime a duplicate check.
inline void add_creator(const TensorView& view, TaskId& last, std::vector<TaskId>& out) {
    if (!view.creator.is_valid() || view.creator == last) return;
    last = view.creator;
    out.push_back(last);
}

/// prepare_and_find: the AUTO lookup of one submit. Each tracked argument with a buffer is normalised once
/// into s.accesses (for record_prepared) and looked up; creators of runtime-allocated views are added
/// directly. Arguments without a buffer are allocated by this submit: nothing can precede them.
void prepare_and_find(detail::OrchestratorState& s, std::span<const TensorArg> tensors,
                      std::vector<TaskId>& out) {
    const std::int64_t t0 = s.is_profiling ? steady_ns() : 0;
    TensorMap& map = s.tensormap();
    const RetiredTasks retired = s.map_watermark();
    std::uint32_t mask = 0;
    std::uint32_t lookups = 0;
    TaskId last_creator;
    for (std::uint32_t i = 0; i < tensors.size(); ++i) {
        const TensorArg& a = tensors[i];
        if (!a.view.is_tracked || a.view.base == nullptr) continue;
        add_creator(a.view, last_creator, out);
        map.prepare_and_find(a.view, a.direction, s.accesses[i], retired, out);
        mask |= 1u << i;
        ++lookups;
    }
    s.prepared_mask = mask;
    s.prepared_count = lookups;
    s.stats->tensormap_lookups += lookups;
    if (s.is_profiling) s.stats->dep_lookup_ns += steady_ns() - t0;
}

/// record_prepared: records the accesses prepare_and_find looked up as task `id`'s. The other arguments
/// are untracked or were allocated by this submit (their creator, `id`, is found without the map).
void record_prepared(detail::OrchestratorState& s, TaskId id) {
    const std::int64_t t0 = s.is_profiling ? steady_ns() : 0;
    TensorMap& map = s.tensormap();
    // Only wait_for_retirement advances the watermark on this thread.
    RetiredTasks retired = s.map_watermark();
    for (std::uint32_t mask = map.try_record(s.accesses.data(), s.prepared_mask, id, retired); mask != 0;
         mask = map.try_record(s.accesses.data(), mask, id, retired))
        [[unlikely]] {
            ++s.stats->tensormap_waits;
            s.port.wait_for_retirement("tensormap_entries");
            retired = s.port.retired();
        }
    s.stats->tensormap_inserts += s.prepared_count;
    if (s.is_profiling) s.stats->insert_ns += steady_ns() - t0;
}

/// find_producers / record: the same for layers that submit through Runtime directly (discover_producers,
/// record_accesses), where lookups and records of one task arrive in separate calls.
void find_producers(detail::OrchestratorState& s, std::span<const TensorArg> tensors,
                    std::vector<TaskId>& out) {
    const bool profile = s.port.is_profiling();
    const std::int64_t t0 = profile ? steady_ns() : 0;
    TensorMap& map = s.tensormap();
    const RetiredTasks retired = s.map_watermark();
    TensorMap::Access access;
    TaskId last_creator;
    for (const TensorArg& a : tensors) {
        if (!a.view.is_tracked || a.view.base == nullptr) continue;
        add_creator(a.view, last_creator, out);
        map.prepare_and_find(a.view, a.direction, access, retired, out);
        ++s.stats->tensormap_lookups;
    }
    if (profile) s.stats->dep_lookup_ns += steady_ns() - t0;
}

void record(detail::OrchestratorState& s, std::span<const TensorArg> tensors, TaskId id) {
    const bool profile = s.port.is_profiling();
    const std::int64_t t0 = profile ? steady_ns() : 0;
    TensorMap& map = s.tensormap();
    TensorMap::Access access;
    for (const TensorArg& a : tensors) {
        // Buffers this task allocated are found through their creator, never through the map.
        if (!a.view.is_tracked || a.view.creator == id) continue;
        map.prepare(a.view, a.direction, access);
        // The first try keeps entries down to the checker's horizon when it is on; after a wait only
        // retirement can free entries.
        RetiredTasks watermark = s.map_watermark();
        while (!map.try_record(access, id, watermark))
            [[unlikely]] {
                ++s.stats->tensormap_waits;
                s.port.wait_for_retirement("tensormap_entries");
                watermark = s.port.retired();
            }
        ++s.stats->tensormap_inserts;
    }
    if (profile) s.stats->insert_ns += steady_ns() - t0;
}

/// both_lists: set_dependencies' list followed by after()'s, in the orchestrator's scratch list.
[[gnu::noinline]] std::span<const TaskId> both_lists(detail::OrchestratorState& s,
                                                     std::span<const TaskId> deps,
                                                     std::span<const TaskId> after) {
    s.declared.assign(deps.begin(), deps.end());
    s.declared.insert(s.declared.end(), after.begin(), after.end());
    return s.declared;
}

/// discover_producers_of: the declared producers plus those the tensormap finds for `spec` (out of line: its
/// error handling would otherwise give every submit a large frame).
[[gnu::noinline]] std::span<const TaskId> discover_producers_of(detail::OrchestratorState& s,
                                                                const TaskSpec& spec,
                                                                std::span<const TaskId> declared) {
    s.deps.assign(declared.begin(), declared.end());
    try {
        prepare_and_find(s, spec.tensors, s.deps);
    } catch (const Error& e) {
        // Discovery runs before the runtime's own checks, and the tensormap knows views, not tasks.
        detail::throw_error(e.code(), describe_task(s, spec) + ": " + std::string(e.message()));
    }
    return s.deps;
}

/// handle_of: the handle of task `id`, submitted with `args`. Only a submit that allocated outputs needs a
/// reference to the arguments the runtime kept.
TaskHandle handle_of(const detail::OrchestratorState& s, TaskId id, const Args& args) {
    if (args.created_outputs() == 0) return detail::make_handle(id, {}, 0, s.retirement);
    return detail::make_handle(id, s.port.task_tensors(id), args.created_outputs(), s.retirement);
}

/// submit_checked: the tail of submit_task with the dependency checker on: the hazards are checked before
/// the runtime sees the task (in Error mode a missing edge rejects the submit and changes nothing), and
/// recorded after it was accepted.
[[gnu::noinline]] TaskHandle submit_checked(detail::OrchestratorState& s, TaskSpec& spec, const Args& args,
                                            std::span<const TaskId> producers,
                                            std::span<const TaskId> declared, bool scoped, bool discover) {
    detail::DependencyChecker& checker = *s.checker;
    const detail::DependencyChecker::Mark mark = checker.mark();
    const TaskId next = s.port.next_task_id();
    if (checker.check(next, spec, producers, declared, s.describe_scope(), false) != 0 &&
        checker.mode() == DependencyCheck::Error)
        checker.reject(mark);
    TaskId id;
    try {
        id = s.port.submit(spec, producers, scoped);
    } catch (...) {
        checker.discard_since(mark);
        throw;
    }
    checker.record(id, spec.tensors);
    if (discover) record_prepared(s, id);
    return handle_of(s, id, args);
}

TaskHandle submit_task(const char* call, TaskKind kind, CoreType core, FuncId f0, FuncId f1, FuncId f2,
                       Args& args) {
    detail::OrchestratorState& s = detail::require_state(call);
    TaskSpec spec;
    spec.kind = kind;
    spec.core = core;
    spec.funcs[0] = f0;
    spec.funcs[1] = f1;
    spec.funcs[2] = f2;
    spec.block_num = args.block_count();
    spec.tensors = args.tensors();
    spec.scalars = args.scalars();
    if (args.is_malformed()) [[unlikely]]
        throw_args_misuse(s, args, spec);

    const bool scoped = !s.scopes.empty();
    const bool discover = s.is_discovering();
    // The declared producers: set_dependencies and after(), one list only when both were used.
    std::span<const TaskId> producers = args.dependencies();
    const std::span<const TaskId> after = args.after_dependencies();
    if (!after.empty()) producers = producers.empty() ? after : both_lists(s, producers, after);
    const std::span<const TaskId> declared = producers;
    if (discover) producers = discover_producers_of(s, spec, declared);
    detail::DependencyChecker* checker = s.checker.get();
    if (checker != nullptr) [[unlikely]]
        return submit_checked(s, spec, args, producers, declared, scoped, discover);
    const TaskId id = s.port.submit(spec, producers, scoped);
    if (discover) record_prepared(s, id);
    return handle_of(s, id, args);
}

}  // namespace

TaskHandle submit_aic(FuncId kernel, Args& args) {
    return submit_task("submit_aic", TaskKind::Kernel, CoreType::AIC, kernel, kernel, kernel, args);
}

TaskHandle submit_aiv(FuncId kernel, Args& args) {
    return submit_task("submit_aiv", TaskKind::Kernel, CoreType::AIV, kernel, kernel, kernel, args);
}

TaskHandle submit_mix(FuncId aic, FuncId aiv0, FuncId aiv1, Args& args) {
    return submit_task("submit_mix", TaskKind::Kernel, CoreType::MIX, aic, aiv0, aiv1, args);
}

TaskHandle submit_dependency_only(Args& args) {
    return submit_task("submit_dependency_only", TaskKind::DependencyOnly, CoreType::None, FuncId{}, FuncId{},
                       FuncId{}, args);
}

void discover_producers(std::span<const TensorArg> tensors, std::vector<TaskId>& out) {
    detail::OrchestratorState& s = detail::require_state("discover_producers");
    if (s.is_discovering()) find_producers(s, tensors, out);
}

void record_accesses(std::span<const TensorArg> tensors, TaskId task) {
    detail::OrchestratorState& s = detail::require_state("record_accesses");
    if (s.is_discovering()) record(s, tensors, task);
}

TaskHandle alloc_tensors(std::span<const TensorCreateInfo> infos) {
    detail::OrchestratorState& s = detail::require_state("alloc_tensors");
    // The runtime writes the views where it keeps them. An alloc task has nothing to look up, so the scope
    // mode does not matter; the checker and the too-long list take the generic path, which they know.
    if (s.checker == nullptr && infos.size() <= kMaxTensorArgs) [[likely]] {
        const TaskId id = s.port.submit_alloc(infos, !s.scopes.empty());
        return detail::make_handle(id, s.port.task_tensors(id), static_cast<std::uint32_t>(infos.size()),
                                   s.retirement);
    }
    Args args;
    for (const TensorCreateInfo& info : infos)
        args.output(info);
    return submit_task("alloc_tensors", TaskKind::Alloc, CoreType::None, FuncId{}, FuncId{}, FuncId{}, args);
}

TaskHandle alloc_tensors(std::initializer_list<TensorCreateInfo> infos) {
    return alloc_tensors(std::span<const TensorCreateInfo>(infos.begin(), infos.size()));
}

}  // namespace pto
