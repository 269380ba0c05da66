// CPU implementations of the tutorial's kernels. Each reads its arguments in the order the argument
// builders (graph_dynamic.cpp) and the template (graph_static.cpp) declare them, and computes the chunk
// chunk_base + block_idx, where chunk_base is scalar 0 (the SPMD convention of docs/design/machine-model.md).
#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tutorial {
namespace {

// [snippet:at]
// Element (i, j) of a 2-D view. Strides are in elements, so a slice (a tile of rows) indexes correctly.
float& at(const pto::TensorView& v, std::uint32_t i, std::uint32_t j) {
    return v.data<float>()[i * v.strides[0] + j * v.strides[1]];
}
// [/snippet]

/// is_f32: every tensor argument holds F32; a kernel handed anything else fails its task.
bool is_f32(const pto::KernelContext& ctx) {
    return std::all_of(ctx.tensors.begin(), ctx.tensors.end(),
                       [](const pto::TensorArg& a) { return a.view.dtype == pto::DataType::F32; });
}

// [snippet:project-kernel]
// S = X W for one column chunk of S. Tensors: X [rows, kModel] in, W [kModel, kHidden] in,
// S [rows, kHidden] out. Scalars: chunk_base, chunk width in columns.
int project(const pto::KernelContext& ctx) {
    if (!is_f32(ctx)) return 1;  // non-zero: the task fails and its dependants are cancelled
    const pto::TensorView& x = ctx.tensors[0].view;
    const pto::TensorView& w = ctx.tensors[1].view;
    const pto::TensorView& s = ctx.tensors[2].view;
    const std::uint32_t width = ctx.scalar_as<std::uint32_t>(1);
    const std::uint32_t first = (ctx.scalar_as<std::uint32_t>(0) + ctx.block_idx) * width;
    for (std::uint32_t i = 0; i < x.shape[0]; ++i) {
        for (std::uint32_t j = first; j < first + width; ++j) {
            float sum = 0.0f;
            for (std::uint32_t k = 0; k < x.shape[1]; ++k)
                sum += at(x, i, k) * at(w, k, j);
            at(s, i, j) = sum;
        }
    }
    return 0;
}
// [/snippet]

// P = softmax(S) row by row, for one chunk of rows. Tensors: S in, P out. Scalars: chunk_base, rows per
// chunk.
int softmax(const pto::KernelContext& ctx) {
    if (!is_f32(ctx)) return 1;
    const pto::TensorView& s = ctx.tensors[0].view;
    const pto::TensorView& p = ctx.tensors[1].view;
    const std::uint32_t rows = ctx.scalar_as<std::uint32_t>(1);
    const std::uint32_t first = (ctx.scalar_as<std::uint32_t>(0) + ctx.block_idx) * rows;
    for (std::uint32_t i = first; i < first + rows; ++i) {
        float max = at(s, i, 0);
        for (std::uint32_t j = 1; j < s.shape[1]; ++j)
            max = std::max(max, at(s, i, j));
        float sum = 0.0f;
        for (std::uint32_t j = 0; j < s.shape[1]; ++j)
            sum += (at(p, i, j) = std::exp(at(s, i, j) - max));
        for (std::uint32_t j = 0; j < s.shape[1]; ++j)
            at(p, i, j) /= sum;
    }
    return 0;
}

// Y = P V for one column chunk of Y. Tensors: P [rows, kHidden] in, V [kHidden, kModel] in, Y [rows, kModel]
// out. Scalars: chunk_base, chunk width in columns.
int mix(const pto::KernelContext& ctx) {
    if (!is_f32(ctx)) return 1;
    const pto::TensorView& p = ctx.tensors[0].view;
    const pto::TensorView& v = ctx.tensors[1].view;
    const pto::TensorView& y = ctx.tensors[2].view;
    const std::uint32_t width = ctx.scalar_as<std::uint32_t>(1);
    const std::uint32_t first = (ctx.scalar_as<std::uint32_t>(0) + ctx.block_idx) * width;
    for (std::uint32_t i = 0; i < p.shape[0]; ++i) {
        for (std::uint32_t j = first; j < first + width; ++j) {
            float acc = 0.0f;
            for (std::uint32_t k = 0; k < p.shape[1]; ++k)
                acc += at(p, i, k) * at(v, k, j);
            at(y, i, j) = acc;
        }
    }
    return 0;
}

// m[j] = mean over i of Y[i, j]. Tensors: Y [kRows, kModel] in, m [kModel] out (1-D). One block.
int column_mean(const pto::KernelContext& ctx) {
    if (!is_f32(ctx)) return 1;
    const pto::TensorView& y = ctx.tensors[0].view;
    float* m = ctx.tensors[1].view.data<float>();
    for (std::uint32_t j = 0; j < y.shape[1]; ++j)
        m[j] = 0.0f;
    for (std::uint32_t i = 0; i < y.shape[0]; ++i)
        for (std::uint32_t j = 0; j < y.shape[1]; ++j)
            m[j] += at(y, i, j) / static_cast<float>(y.shape[0]);
    return 0;
}

}  // namespace

// [snippet:register]
void register_kernels(pto::Runtime& runtime) {
    // Name (messages, DOT, traces), device duration of one subtask in microseconds (illustrative figures
    // for the timed executor and the virtual-time model, not measurements), and the CPU function.
    runtime.register_kernel(kProject, {"project", 12.0, &project});
    runtime.register_kernel(kSoftmax, {"softmax", 6.0, &softmax});
    runtime.register_kernel(kMix, {"mix", 12.0, &mix});
    runtime.register_kernel(kColumnMean, {"column_mean", 4.0, &column_mean});
}
// [/snippet]

}  // namespace tutorial
