// What a kernel is to the runtime: a FuncId with a name, a mean duration (timed executor, virtual-time
// model) and optionally a C++ function the compute executor calls with the subtask's arguments.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "pto/runtime/ids.h"
#include "pto/runtime/tensor.h"

namespace pto {

/// KernelContext: everything one subtask sees. Kernels compute their chunk as chunk_base + block_idx, where
/// chunk_base is a scalar argument by convention, so one SPMD launch of n blocks and n launches of one block
/// run the same kernel (docs/design/machine-model.md).
struct KernelContext {
    std::span<const TensorArg> tensors;
    std::span<const std::uint64_t> scalars;
    std::uint32_t block_idx;
    std::uint32_t block_num;
    /// MIX lanes: 0 = AIC, 1 = first AIV, 2 = second AIV. Always 0 for AIC and AIV tasks.
    std::uint32_t lane;
    /// The task's core type: lets a function registered for several kinds of launch tell a MIX lane 0 from
    /// an AIC task.
    CoreType core;
    TaskId task;
    /// user: the pointer given at registration (kernel state, test hooks).
    void* user;

    /// scalar_as: scalar argument i reinterpreted as T (scalars are stored as 64-bit words).
    template <class T>
    [[nodiscard]] T scalar_as(std::size_t i) const {
        static_assert(sizeof(T) <= sizeof(std::uint64_t));
        T value;
        std::memcpy(&value, &scalars[i], sizeof(T));
        return value;
    }
};

/// KernelFn: returns 0 on success; a non-zero return or an exception marks the task failed
/// (docs/reliability.md).
using KernelFn = int (*)(const KernelContext&);

/// Longest kernel duration register_kernel accepts: one hour, in microseconds.
inline constexpr double kMaxKernelDurationUs = 3.6e9;

/// KernelInfo: one row of the kernel table.
struct KernelInfo {
    std::string name;
    /// Mean duration of one subtask on the device, in microseconds (timed executor, virtual-time model).
    /// Finite, in 0..kMaxKernelDurationUs (register_kernel throws InvalidArgument otherwise).
    double duration_us = 0.0;
    /// The CPU implementation the compute executor calls; may be null for instant and timed runs.
    KernelFn fn = nullptr;
    void* user = nullptr;
};

/// scalar_bits: packs a scalar argument into the 64-bit word tasks store.
template <class T>
[[nodiscard]] std::uint64_t scalar_bits(T value) {
    static_assert(sizeof(T) <= sizeof(std::uint64_t));
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    return bits;
}

}  // namespace pto
