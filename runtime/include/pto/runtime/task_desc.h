// TaskSpec: what one submission hands the runtime (kernel, core type, block_num, arguments). Graph authors
// build it through pto/scope/args.h; the scope and static_graph layers pass it to Runtime::submit.
#pragma once

#include <cstdint>
#include <span>

#include "pto/runtime/ids.h"
#include "pto/runtime/tensor.h"

namespace pto {

/// Most tensor arguments one task may take. A submit with more throws TooManyArguments.
inline constexpr std::uint32_t kMaxTensorArgs = 16;
/// Most scalar arguments one task may take. A submit with more throws TooManyArguments.
inline constexpr std::uint32_t kMaxScalarArgs = 32;
/// Largest block_num (SPMD width) of one task.
inline constexpr std::uint32_t kMaxBlockNum = 65535;

/// TaskKind: kernels run on cores; framework tasks exist to join edges or to own buffers
/// (docs/design/machine-model.md).
enum class TaskKind : std::uint8_t {
    Kernel,          ///< runs block_num subtasks on cores of its CoreType
    DependencyOnly,  ///< no kernel; completes once its producers have, joining N+M edges instead of N*M
    Alloc,           ///< owns runtime-allocated buffers; completes at submission
};

/// TaskSpec: a task as submitted. `tensors` is mutable because outputs given as create-infos (a view whose
/// base is null) are allocated during submission and written back in place, creator set.
struct TaskSpec {
    TaskKind kind = TaskKind::Kernel;
    CoreType core = CoreType::None;
    /// AIC/AIV: funcs[0]. MIX: funcs[0] runs on the AIC lane, funcs[1] and funcs[2] on the two AIV lanes.
    FuncId funcs[3] = {};
    std::uint32_t block_num = 1;
    std::span<TensorArg> tensors;
    std::span<const std::uint64_t> scalars;
};

}  // namespace pto
