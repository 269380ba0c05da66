// Checks of a submit before anything changes, so a rejected call leaves no trace: the run is open, the
// spec is well formed, the heap can ever hold its create-infos, and its producers are earlier tasks of
// this run. Each failure is a pto::Error naming the task.
#include <algorithm>
#include <cstdlib>
#include <string>

#include "pto/runtime/detail/throw.h"
#include "runtime_impl.h"
#include "submit_sizes.h"

namespace pto {

void Runtime::Impl::check_run_open(const char* call) const {
    // One thread-local compare and one relaxed load of a line this thread wrote last.
    if (!run.is_orchestrating()) [[unlikely]]
        refuse_call(call);
}

void Runtime::Impl::refuse_call(const char* call) const {
    detail::check_not_reentrant(call);
    const detail::RunPhase p = run.phase();
    if (run.owned_here())
        detail::throw_error(ErrorCode::NoActiveRun,
                            std::string(call) + " after end_orchestration: the run (from task " +
                                std::to_string(window.run_first_id()) + ") no longer accepts tasks");
    if (p == detail::RunPhase::Starting || p == detail::RunPhase::Orchestrating ||
        p == detail::RunPhase::Ending)
        detail::throw_error(ErrorCode::RunInProgress,
                            std::string(call) +
                                " from a thread that is not the orchestrator of the run in progress on this "
                                "runtime (" +
                                std::string(to_string(p)) +
                                "): only the thread that called pto::run (or begin_run) may submit to it");
    detail::throw_error(ErrorCode::NoActiveRun,
                        std::string(call) +
                            " outside a run: call it from the orchestration function "
                            "given to pto::run (or between Runtime::begin_run and end_run)");
}

std::string Runtime::Impl::describe_task(TaskId id, const TaskSpec* spec) const {
    std::string s = "task " + std::to_string(id.value);
    if (spec == nullptr) return s;
    switch (spec->kind) {
        case TaskKind::Kernel:
            s += " (" + std::string(to_string(spec->core)) + " kernel " + engine.kernel_name(spec->funcs[0]) +
                 ")";
            break;
        case TaskKind::DependencyOnly:
            s += " (dependency-only)";
            break;
        case TaskKind::Alloc:
            s += " (alloc_tensors)";
            break;
    }
    return s;
}

void Runtime::Impl::check_registered(const TaskSpec& spec, TaskId id) const {
    const int lanes = spec.core == CoreType::MIX ? 3 : 1;
    for (int l = 0; l < lanes; ++l) {
        const KernelInfo* k = engine.kernel(spec.funcs[l]);
        const bool missing = k == nullptr || (config.executor == Executor::Compute && k->fn == nullptr);
        if (missing) [[unlikely]]
            detail::throw_error(
                ErrorCode::UnknownKernel,
                describe_task(id, &spec) + ": " + engine.kernel_name(spec.funcs[l]) +
                    (config.executor == Executor::Compute ? " has no registered compute function"
                                                          : " is not registered (its duration is needed)") +
                    "; call Runtime::register_kernel first");
    }
}

void Runtime::Impl::throw_bad_spec(const TaskSpec& spec, TaskId id) const {
    if (spec.kind == TaskKind::Kernel) {
        if (spec.core == CoreType::None)
            detail::throw_error(ErrorCode::InvalidArgument,
                                describe_task(id, &spec) + ": a kernel task needs core type AIC, AIV or MIX");
        if (spec.block_num < 1 || spec.block_num > kMaxBlockNum)
            detail::throw_error(ErrorCode::InvalidBlockNum,
                                describe_task(id, &spec) + ": block_num = " + std::to_string(spec.block_num) +
                                    "; it must be in 1.." + std::to_string(kMaxBlockNum));
        if (spec.core == CoreType::MIX && config.aiv_per_cluster < 2)
            detail::throw_error(ErrorCode::InvalidArgument,
                                describe_task(id, &spec) +
                                    ": a MIX task runs one AIC and two AIV lanes of one cluster, but "
                                    "RuntimeConfig::aiv_per_cluster = " +
                                    std::to_string(config.aiv_per_cluster));
    } else if (spec.block_num != 1) {
        detail::throw_error(ErrorCode::InvalidBlockNum, describe_task(id, &spec) +
                                                            ": framework tasks have block_num 1, not " +
                                                            std::to_string(spec.block_num));
    }
    if (spec.tensors.size() > kMaxTensorArgs || spec.scalars.size() > kMaxScalarArgs)
        detail::throw_error(ErrorCode::TooManyArguments,
                            describe_task(id, &spec) + ": " + std::to_string(spec.tensors.size()) +
                                " tensors and " + std::to_string(spec.scalars.size()) + " scalars; at most " +
                                std::to_string(kMaxTensorArgs) + " and " + std::to_string(kMaxScalarArgs));
    PTO_ASSERT(false, "called for a spec that passes every check");
    std::abort();
}

void Runtime::Impl::validate_spec(const TaskSpec& spec, TaskId id, detail::HeapNeed& heap_need) const {
    // The usual spec passes with a few compares; any failure is named by throw_bad_spec, which repeats the
    // checks one by one (out of line, so this function needs no frame for building messages).
    const bool kernel = spec.kind == TaskKind::Kernel;
    const bool bad_width = kernel ? spec.block_num < 1 || spec.block_num > kMaxBlockNum : spec.block_num != 1;
    const bool bad_core =
        kernel && (spec.core == CoreType::None || (spec.core == CoreType::MIX && config.aiv_per_cluster < 2));
    if (bad_width || bad_core || spec.tensors.size() > kMaxTensorArgs || spec.scalars.size() > kMaxScalarArgs)
        [[unlikely]]
        throw_bad_spec(spec, id);
    if (kernel && config.executor != Executor::Instant) check_registered(spec, id);
    // One pass without branches over the usual case (buffers given, ranks in range, no negative stride);
    // only a list with a create-info or a bad view is walked again, to size the one and name the other.
    bool walk = false;
    std::int64_t stride_bits = 0;  // negative when any view has a bad rank or a negative stride
    for (const TensorArg& a : spec.tensors) {
        detail::or_used_strides(a.view, stride_bits);
        walk |= a.view.base == nullptr;
    }
    if (walk || stride_bits < 0) [[unlikely]]
        validate_tensors_walk(spec, id, heap_need);
}

void Runtime::Impl::validate_tensors_walk(const TaskSpec& spec, TaskId id,
                                          detail::HeapNeed& heap_need) const {
    for (std::size_t i = 0; i < spec.tensors.size(); ++i) {
        const TensorArg& a = spec.tensors[i];
        if (a.view.ndim < 1 || a.view.ndim > kMaxTensorDims) [[unlikely]]
            throw_bad_rank(id, spec, i, a.view.ndim);
        if (a.view.base == nullptr) {
            // A create-info: its row-major strides follow from its shape, which the heap check bounds (an
            // absurd shape's strides wrap, so they are not checked for sign).
            if (a.direction != Direction::Out) [[unlikely]]
                detail::throw_error(ErrorCode::InvalidTensor,
                                    describe_task(id, &spec) + ": tensor argument " + std::to_string(i) +
                                        " is a create-info (no buffer yet) but is passed as an input; "
                                        "only outputs can be allocated by the runtime");
            heap_need.add_buffer(detail::create_info_bytes(a.view));
            continue;
        }
        if (detail::used_stride_bits(a.view) < 0) [[unlikely]]
            detail::throw_error(ErrorCode::InvalidTensor, describe_task(id, &spec) + ": tensor argument " +
                                                              std::to_string(i) +
                                                              " has a negative stride; strides are >= 0");
    }
}

void Runtime::Impl::throw_bad_producer(std::span<const TaskId> producers, TaskId id,
                                       const TaskSpec& spec) const {
    if (spec.kind == TaskKind::Alloc)
        detail::throw_error(ErrorCode::InvalidArgument,
                            describe_task(id, &spec) +
                                " cannot wait for producers: an alloc task completes when it is submitted");
    for (TaskId p : producers) {
        if (p.value >= window.run_first_id() && p.value < id.value) continue;
        std::string why;
        if (!p.is_valid())
            why = "an invalid TaskId (a handle of a call that created no task?)";
        else if (p.value >= id.value)
            why = "task " + std::to_string(p.value) + ", which has not been submitted yet";
        else
            why = "task " + std::to_string(p.value) +
                  ", which belongs to an earlier run (this run starts at task " +
                  std::to_string(window.run_first_id()) + ")";
        detail::throw_error(ErrorCode::InvalidDependency, describe_task(id, &spec) + " depends on " + why);
    }
    if (producers.size() > engine.edges.capacity())
        detail::throw_error(
            ErrorCode::CapacityExhausted,
            describe_task(id, &spec) + " names " + std::to_string(producers.size()) +
                " producers, more than the edge pool holds: raise RuntimeConfig::edge_capacity (" +
                std::to_string(config.edge_capacity) + ")");
    PTO_ASSERT(false, "called for a list with a bad producer or too many");
    std::abort();
}

void Runtime::Impl::throw_bad_rank(TaskId id, const TaskSpec& spec, std::size_t index, unsigned rank) const {
    detail::throw_error(ErrorCode::InvalidTensor, describe_task(id, &spec) + ": tensor argument " +
                                                      std::to_string(index) + " has rank " +
                                                      std::to_string(rank));
}

void Runtime::Impl::check_heap_need(std::uint64_t reserve_bytes, TaskId id, const TaskSpec* spec) const {
    if (reserve_bytes <= heap.capacity()) [[likely]]
        return;
    detail::throw_error(ErrorCode::CapacityExhausted,
                        describe_task(id, spec) + " allocates " + std::to_string(reserve_bytes) +
                            " bytes (with room for wrapping), more than the whole heap ring: raise "
                            "RuntimeConfig::heap_bytes (" +
                            std::to_string(config.heap_bytes) + ")");
}

void Runtime::Impl::validate_producers(std::span<const TaskId> producers, TaskId id,
                                       const TaskSpec& spec) const {
    // Only a bad list is walked, to name its first bad producer.
    if (!producers.empty() && (!all_precede(producers, id) || producers.size() > engine.edges.capacity() ||
                               spec.kind == TaskKind::Alloc)) [[unlikely]]
        throw_bad_producer(producers, id, spec);
}

}  // namespace pto
