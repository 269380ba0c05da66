// CPU kernels of the MoE layer (F32 data, I32 indices). Each reads its arguments in the order its launch
// function in graph_args.h appends them; views are row-major slices, addressed through their strides.
// Block b of a launch computes chunk chunk_base + b (scalar 0), as in Qwen3.
#include "kernels_cpu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace pto::examples::moe::detail {
namespace {

template <class T>
T& at(const TensorView& v, std::uint32_t r, std::uint32_t c) {
    return v
        .data<T>()[static_cast<std::int64_t>(r) * v.strides[0] + static_cast<std::int64_t>(c) * v.strides[1]];
}
/// at3: element (e, r, c) of a rank-3 view (an expert's weight matrix).
float at3(const TensorView& v, std::uint32_t e, std::uint32_t r, std::uint32_t c) {
    return v.data<float>()[static_cast<std::int64_t>(e) * v.strides[0] +
                           static_cast<std::int64_t>(r) * v.strides[1] +
                           static_cast<std::int64_t>(c) * v.strides[2]];
}

/// Rows of block b of a launch over token tiles: [b * tile, min(rows, (b + 1) * tile)) of the view.
struct RowRange {
    std::uint32_t begin, end;
};
RowRange tile_rows(const KernelContext& ctx, const TensorView& v, std::uint32_t tile) {
    const std::uint32_t begin = ctx.block_idx * tile;
    return {begin, std::min(v.shape[0], begin + tile)};
}

// router: in x[rows of the launch], in w_router [H, E]; out topk_idx, topk_w [rows, K]; scalars chunk_base,
// tile_rows. Top-k by logit (ties to the lower expert), weights = softmax over the chosen logits.
int router(const KernelContext& ctx) {
    const TensorView& x = ctx.tensors[0].view;
    const TensorView& w = ctx.tensors[1].view;
    const TensorView& idx = ctx.tensors[2].view;
    const TensorView& wt = ctx.tensors[3].view;
    const std::uint32_t H = x.shape[1], E = w.shape[1], K = idx.shape[1];
    const RowRange rows = tile_rows(ctx, x, ctx.scalar_as<std::uint32_t>(1));
    std::vector<float> logits(E);
    std::vector<std::uint32_t> order(E);
    for (std::uint32_t r = rows.begin; r < rows.end; ++r) {
        for (std::uint32_t e = 0; e < E; ++e) {
            float s = 0.0f;
            for (std::uint32_t h = 0; h < H; ++h)
                s += at<float>(x, r, h) * at<float>(w, h, e);
            logits[e] = s;
            order[e] = e;
        }
        std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return logits[a] > logits[b]; });
        float sum = 0.0f;
        for (std::uint32_t k = 0; k < K; ++k)
            sum += std::exp(logits[order[k]] - logits[order[0]]);
        for (std::uint32_t k = 0; k < K; ++k) {
            at<std::int32_t>(idx, r, k) = static_cast<std::int32_t>(order[k]);
            at<float>(wt, r, k) = std::exp(logits[order[k]] - logits[order[0]]) / sum;
        }
    }
    return 0;
}

// route: in topk_idx [T, K]; out expert_count [E], assign_token [A], assign_row [T, K]. Packed rows: experts
// in order, each expert's (token, choice) pairs in token order.
int route(const KernelContext& ctx) {
    const TensorView& idx = ctx.tensors[0].view;
    const TensorView& count = ctx.tensors[1].view;
    const TensorView& token = ctx.tensors[2].view;
    const TensorView& row = ctx.tensors[3].view;
    const std::uint32_t T = idx.shape[0], K = idx.shape[1], E = count.shape[0];
    std::int32_t next = 0;
    for (std::uint32_t e = 0; e < E; ++e) {
        std::int32_t n = 0;
        for (std::uint32_t t = 0; t < T; ++t)
            for (std::uint32_t k = 0; k < K; ++k)
                if (at<std::int32_t>(idx, t, k) == static_cast<std::int32_t>(e)) {
                    token.data<std::int32_t>()[next * token.strides[0]] = static_cast<std::int32_t>(t);
                    at<std::int32_t>(row, t, k) = next++;
                    ++n;
                }
        count.data<std::int32_t>()[e * count.strides[0]] = n;
    }
    if (next != static_cast<std::int32_t>(T * K))
        throw std::runtime_error("route: an expert index out of range");
    return 0;
}

// gather: in x [T, H] (whole), in assign_token[rows of the tile]; out xe[rows of the tile].
int gather(const KernelContext& ctx) {
    const TensorView& x = ctx.tensors[0].view;
    const TensorView& token = ctx.tensors[1].view;
    const TensorView& xe = ctx.tensors[2].view;
    for (std::uint32_t r = 0; r < xe.shape[0]; ++r) {
        const std::int32_t t = token.data<std::int32_t>()[r * token.strides[0]];
        if (t < 0 || static_cast<std::uint32_t>(t) >= x.shape[0])
            throw std::runtime_error("gather: bad token");
        for (std::uint32_t h = 0; h < x.shape[1]; ++h)
            at<float>(xe, r, h) = at<float>(x, static_cast<std::uint32_t>(t), h);
    }
    return 0;
}

// gate_proj / up_proj / down_proj: in a[rows, all of the reduction dim], in w[expert] [1, R, N]; out
// y[rows, columns of the launch]; scalars chunk_base, chunk columns.
int expert_matmul(const KernelContext& ctx) {
    const TensorView& a = ctx.tensors[0].view;
    const TensorView& w = ctx.tensors[1].view;
    const TensorView& y = ctx.tensors[2].view;
    const std::uint32_t base = ctx.scalar_as<std::uint32_t>(0), cs = ctx.scalar_as<std::uint32_t>(1);
    const std::uint32_t first_col = (base + ctx.block_idx) * cs;  // in the weight's columns
    const std::uint32_t local = ctx.block_idx * cs;               // in the output view's columns
    for (std::uint32_t r = 0; r < a.shape[0]; ++r)
        for (std::uint32_t c = 0; c < cs; ++c) {
            float s = 0.0f;
            for (std::uint32_t i = 0; i < a.shape[1]; ++i)
                s += at<float>(a, r, i) * at3(w, 0, i, first_col + c);
            at<float>(y, r, local + c) = s;
        }
    return 0;
}

// silu_mul: in gate, up [rows, columns of the launch]; out act [same]; scalars chunk_base, chunk columns.
int silu_mul(const KernelContext& ctx) {
    const TensorView& g = ctx.tensors[0].view;
    const TensorView& u = ctx.tensors[1].view;
    const TensorView& act = ctx.tensors[2].view;
    const std::uint32_t cs = ctx.scalar_as<std::uint32_t>(1), local = ctx.block_idx * cs;
    for (std::uint32_t r = 0; r < g.shape[0]; ++r)
        for (std::uint32_t c = local; c < local + cs; ++c) {
            const float v = at<float>(g, r, c);
            at<float>(act, r, c) = v / (1.0f + std::exp(-v)) * at<float>(u, r, c);
        }
    return 0;
}

// combine: in down [A, H] (whole), in assign_row, topk_w [rows of the launch, K]; out out[rows of the
// launch]; scalars chunk_base, tile_rows.
int combine(const KernelContext& ctx) {
    const TensorView& down = ctx.tensors[0].view;
    const TensorView& row = ctx.tensors[1].view;
    const TensorView& wt = ctx.tensors[2].view;
    const TensorView& out = ctx.tensors[3].view;
    const RowRange rows = tile_rows(ctx, out, ctx.scalar_as<std::uint32_t>(1));
    for (std::uint32_t r = rows.begin; r < rows.end; ++r)
        for (std::uint32_t h = 0; h < out.shape[1]; ++h) {
            float s = 0.0f;
            for (std::uint32_t k = 0; k < row.shape[1]; ++k) {
                const std::int32_t packed = at<std::int32_t>(row, r, k);
                // Poisoned (-1) when route has not run: fail the task instead of reading out of bounds.
                if (packed < 0 || static_cast<std::uint32_t>(packed) >= down.shape[0])
                    throw std::runtime_error("combine: bad packed row");
                s += at<float>(wt, r, k) * at<float>(down, static_cast<std::uint32_t>(packed), h);
            }
            at<float>(out, r, h) = s;
        }
    return 0;
}

}  // namespace

KernelFn cpu_kernel(Op op) {
    switch (op) {
        case Op::Router:
            return &router;
        case Op::Route:
            return &route;
        case Op::Gather:
            return &gather;
        case Op::GateProj:
        case Op::UpProj:
        case Op::DownProj:
            return &expert_matmul;
        case Op::SiluMul:
            return &silu_mul;
        case Op::Combine:
            return &combine;
    }
    return nullptr;
}

}  // namespace pto::examples::moe::detail
