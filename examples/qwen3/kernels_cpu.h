// The CPU implementations of the layer's operators (float32, any dimensions): what the compute executor
// runs for each FuncId. Each kernel computes chunk chunk_base + block_idx of its launch.
#pragma once

#include "pto/examples/qwen3.h"
#include "pto/runtime/kernels.h"

namespace pto::examples::qwen3::detail {

/// Epsilon of the three RMS norms (input, per-head q/k, post-attention), shared with the reference.
inline constexpr double kRmsEps = 1e-6;

/// cpu_kernel: the compute function of `op` (out_proj_residual: one function for all three lanes, which
/// split the tile's rows by KernelContext::lane).
[[nodiscard]] KernelFn cpu_kernel(Op op);

}  // namespace pto::examples::qwen3::detail
