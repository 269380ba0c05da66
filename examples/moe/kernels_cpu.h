// The MoE layer's CPU kernels (compute executor), one per operator; argument order in kernels_cpu.cpp.
#pragma once

#include "pto/examples/moe.h"
#include "pto/runtime/kernels.h"

namespace pto::examples::moe::detail {

/// cpu_kernel: the CPU implementation of `op`.
[[nodiscard]] KernelFn cpu_kernel(Op op);

}  // namespace pto::examples::moe::detail
