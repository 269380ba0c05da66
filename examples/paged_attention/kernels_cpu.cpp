// The four kernels of a paged-attention group as CPU functions for the compute executor (F32, one block
// each), and the kernel table with the a2a3 mean durations of docs/design/reference-graphs.md. Argument
// layouts: group_args.cpp.
#include "pto/examples/paged_attention.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace pto::examples::paged_attention {
namespace {

// Kernels report misuse by throwing: the compute executor marks the task failed with this message.
[[noreturn]] void fail(const char* kernel, const std::string& what) {
    throw std::invalid_argument(std::string(kernel) + ": " + what);
}

void expect_args(const KernelContext& ctx, const char* kernel, std::size_t tensors, std::size_t scalars) {
    if (ctx.tensors.size() != tensors || ctx.scalars.size() != scalars)
        fail(kernel, "expected " + std::to_string(tensors) + " tensors and " + std::to_string(scalars) +
                         " scalars, got " + std::to_string(ctx.tensors.size()) + " and " +
                         std::to_string(ctx.scalars.size()));
    for (const TensorArg& a : ctx.tensors)
        if (a.view.dtype != DataType::F32 && a.view.dtype != DataType::I32)
            fail(kernel, "the CPU kernels compute in F32 only");
}

/// Strided: element (i, j) of two chosen dimensions of a view whose other indices are 0.
struct Strided {
    float* base;
    std::int64_t row_stride;
    std::int64_t col_stride;
    float& operator()(std::uint32_t i, std::uint32_t j) const {
        return base[i * row_stride + j * col_stride];
    }
};
Strided matrix(const TensorView& v, int row_dim, int col_dim) {
    return Strided{v.data<float>(), v.strides[row_dim], v.strides[col_dim]};
}

/// KvRows: token rows of one KV head of the paged cache [pages, block_size, kv_heads(sliced to 1), head_dim],
/// reached through one sequence's block table row [1, max_blocks].
struct KvRows {
    const TensorView& cache;
    const TensorView& table;
    const char* kernel;

    /// row: the head_dim vector of token `j` of logical block `block`, and its element stride.
    const float* row(std::uint32_t block, std::uint32_t j) const {
        if (block >= table.shape[1])
            fail(kernel, "block " + std::to_string(block) + " beyond the block table");
        const std::int32_t page = table.data<std::int32_t>()[block * table.strides[1]];
        if (page < 0 || static_cast<std::uint32_t>(page) >= cache.shape[0])
            fail(kernel, "block table maps block " + std::to_string(block) + " to invalid page " +
                             std::to_string(page));
        return cache.data<float>() + page * cache.strides[0] + j * cache.strides[1];
    }
};

struct GroupRange {
    std::uint32_t first_block, block_count, valid_tokens;
};
GroupRange group_range(const KernelContext& ctx) {
    return {ctx.scalar_as<std::uint32_t>(0), ctx.scalar_as<std::uint32_t>(1),
            ctx.scalar_as<std::uint32_t>(2)};
}

// qk_matmul: sij[r, c] = q[r] . K[token c] for the group's valid tokens (columns past them are never read).
int qk_matmul(const KernelContext& ctx) {
    constexpr const char* kName = "qk_matmul";
    expect_args(ctx, kName, 4, 3);
    const TensorView& q = ctx.tensors[0].view;  // [1, q_tile, head_dim]
    const KvRows keys{ctx.tensors[1].view, ctx.tensors[2].view, kName};
    const Strided s = matrix(ctx.tensors[3].view, 1, 2);  // [1, q_tile, group_tokens]
    const Strided qm = matrix(q, 1, 2);
    const GroupRange g = group_range(ctx);
    const std::uint32_t rows = q.shape[1], dim = q.shape[2], block = keys.cache.shape[1];
    const std::int64_t kd = keys.cache.strides[3];
    for (std::uint32_t i = 0; i < g.block_count; ++i) {
        const std::uint32_t tokens = std::min(block, g.valid_tokens - i * block);
        for (std::uint32_t j = 0; j < tokens; ++j) {
            const float* k = keys.row(g.first_block + i, j);
            for (std::uint32_t r = 0; r < rows; ++r) {
                float acc = 0.0f;
                for (std::uint32_t d = 0; d < dim; ++d)
                    acc += qm(r, d) * k[d * kd];
                s(r, i * block + j) = acc;
            }
        }
    }
    return 0;
}

// softmax_prepare: two passes per row over the valid columns: mi = max(scale * sij), pij = exp(scale * sij -
// mi), li = sum(pij); the padding columns get pij = 0.
int softmax_prepare(const KernelContext& ctx) {
    constexpr const char* kName = "softmax_prepare";
    expect_args(ctx, kName, 4, 2);
    const TensorView& sv = ctx.tensors[0].view;  // [1, q_tile, group_tokens]
    const Strided s = matrix(sv, 1, 2);
    const Strided p = matrix(ctx.tensors[1].view, 1, 2);
    const Strided mi = matrix(ctx.tensors[2].view, 1, 1);  // [1, q_tile]: (r, 0)
    const Strided li = matrix(ctx.tensors[3].view, 1, 1);
    const auto valid = ctx.scalar_as<std::uint32_t>(0);
    const auto scale = ctx.scalar_as<float>(1);
    const std::uint32_t rows = sv.shape[1], width = sv.shape[2];
    if (valid == 0 || valid > width)
        fail(kName, "valid_tokens " + std::to_string(valid) + " outside 1..width");
    for (std::uint32_t r = 0; r < rows; ++r) {
        float m = -INFINITY;
        for (std::uint32_t c = 0; c < valid; ++c)
            m = std::max(m, scale * s(r, c));
        float sum = 0.0f;
        for (std::uint32_t c = 0; c < valid; ++c) {
            const float e = std::exp(scale * s(r, c) - m);
            p(r, c) = e;
            sum += e;
        }
        for (std::uint32_t c = valid; c < width; ++c)
            p(r, c) = 0.0f;
        mi(r, 0) = m;
        li(r, 0) = sum;
    }
    return 0;
}

// pv_matmul: oi_new[r] = sum over the group's valid tokens c of pij[r, c] * V[token c].
int pv_matmul(const KernelContext& ctx) {
    constexpr const char* kName = "pv_matmul";
    expect_args(ctx, kName, 4, 3);
    const Strided p = matrix(ctx.tensors[0].view, 1, 2);  // [1, q_tile, group_tokens]
    const KvRows values{ctx.tensors[1].view, ctx.tensors[2].view, kName};
    const TensorView& ov = ctx.tensors[3].view;  // [1, q_tile, head_dim]
    const Strided o = matrix(ov, 1, 2);
    const GroupRange g = group_range(ctx);
    const std::uint32_t rows = ov.shape[1], dim = ov.shape[2], block = values.cache.shape[1];
    const std::int64_t vd = values.cache.strides[3];
    for (std::uint32_t r = 0; r < rows; ++r)
        for (std::uint32_t d = 0; d < dim; ++d)
            o(r, d) = 0.0f;
    for (std::uint32_t i = 0; i < g.block_count; ++i) {
        const std::uint32_t tokens = std::min(block, g.valid_tokens - i * block);
        for (std::uint32_t j = 0; j < tokens; ++j) {
            const float* v = values.row(g.first_block + i, j);
            for (std::uint32_t r = 0; r < rows; ++r) {
                const float pr = p(r, i * block + j);
                for (std::uint32_t d = 0; d < dim; ++d)
                    o(r, d) += pr * v[d * vd];
            }
        }
    }
    return 0;
}

// online_update: merges the group's (mi, li, oi_new) into the running (m, l, o):
//   m' = max(m, mi), l' = e^(m - m') l + e^(mi - m') li, o' = e^(m - m') o + e^(mi - m') oi_new;
// the first group copies, the last writes out = o' / l'.
int online_update(const KernelContext& ctx) {
    constexpr const char* kName = "online_update";
    const bool is_first = ctx.scalars.size() == 2 && ctx.scalar_as<std::uint32_t>(0) != 0;
    const bool is_last = ctx.scalars.size() == 2 && ctx.scalar_as<std::uint32_t>(1) != 0;
    expect_args(ctx, kName, is_last ? 7 : 6, 2);
    const Strided mi = matrix(ctx.tensors[0].view, 1, 1);  // [1, q_tile]
    const Strided li = matrix(ctx.tensors[1].view, 1, 1);
    const TensorView& onv = ctx.tensors[2].view;  // [1, q_tile, head_dim]
    const Strided on = matrix(onv, 1, 2);
    const Strided m = matrix(ctx.tensors[3].view, 0, 0);  // [q_tile]: (r, 0)
    const Strided l = matrix(ctx.tensors[4].view, 0, 0);
    const Strided o = matrix(ctx.tensors[5].view, 0, 1);  // [q_tile, head_dim]
    const std::uint32_t rows = onv.shape[1], dim = onv.shape[2];
    for (std::uint32_t r = 0; r < rows; ++r) {
        if (is_first) {
            m(r, 0) = mi(r, 0);
            l(r, 0) = li(r, 0);
            for (std::uint32_t d = 0; d < dim; ++d)
                o(r, d) = on(r, d);
        } else {
            const float m_new = std::max(m(r, 0), mi(r, 0));
            const float alpha = std::exp(m(r, 0) - m_new);
            const float beta = std::exp(mi(r, 0) - m_new);
            m(r, 0) = m_new;
            l(r, 0) = alpha * l(r, 0) + beta * li(r, 0);
            for (std::uint32_t d = 0; d < dim; ++d)
                o(r, d) = alpha * o(r, d) + beta * on(r, d);
        }
    }
    if (is_last) {
        const Strided out = matrix(ctx.tensors[6].view, 1, 2);  // [1, q_tile, head_dim]
        for (std::uint32_t r = 0; r < rows; ++r) {
            const float inv = 1.0f / l(r, 0);
            for (std::uint32_t d = 0; d < dim; ++d)
                out(r, d) = o(r, d) * inv;
        }
    }
    return 0;
}

constexpr KernelSpec kKernels[] = {
    {kQkMatmul, CoreType::AIC, "qk_matmul", 51.63, &qk_matmul},
    {kSoftmaxPrepare, CoreType::AIV, "softmax_prepare", 58.82, &softmax_prepare},
    {kPvMatmul, CoreType::AIC, "pv_matmul", 52.61, &pv_matmul},
    {kOnlineUpdate, CoreType::AIV, "online_update", 2.56, &online_update},
};

}  // namespace

std::span<const KernelSpec> kernel_table() {
    return kKernels;
}

void register_kernels(Runtime& rt) {
    for (const KernelSpec& k : kKernels)
        rt.register_kernel(k.id, KernelInfo{std::string(k.name), k.duration_us, k.fn});
}

}  // namespace pto::examples::paged_attention
