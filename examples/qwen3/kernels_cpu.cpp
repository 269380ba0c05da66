// CPU kernels of the 17 operators (float32). Each subtask computes chunk chunk_base + block_idx of its
// launch; the views it gets start at the launch's first chunk, so its own part is at block_idx inside
// them, while whole-matrix weights are indexed by the absolute chunk. Arguments: launch_args.h.
#include "kernels_cpu.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace pto::examples::qwen3::detail {
namespace {

/// Largest head_dim online_softmax accumulates on its stack (Qwen3 uses 128).
constexpr std::uint32_t kMaxHeadDim = 512;

/// M: element access to a float view by index, through its strides.
struct M {
    float* p;
    const std::int64_t* s;
    float& operator()(std::int64_t i) const { return p[i * s[0]]; }
    float& operator()(std::int64_t i, std::int64_t j) const { return p[i * s[0] + j * s[1]]; }
    float& operator()(std::int64_t i, std::int64_t j, std::int64_t k) const {
        return p[i * s[0] + j * s[1] + k * s[2]];
    }
    float& operator()(std::int64_t i, std::int64_t j, std::int64_t k, std::int64_t l) const {
        return p[i * s[0] + j * s[1] + k * s[2] + l * s[3]];
    }
};

const TensorView& view(const KernelContext& c, std::size_t i) {
    return c.tensors[i].view;
}
M at(const KernelContext& c, std::size_t i) {
    return M{view(c, i).data<float>(), view(c, i).strides};
}

void expect_args(const KernelContext& c, std::size_t tensors, std::size_t scalars, const char* kernel) {
    if (c.tensors.size() != tensors || c.scalars.size() < scalars)
        throw std::invalid_argument(std::string(kernel) + ": expected " + std::to_string(tensors) +
                                    " tensors and " + std::to_string(scalars) + " scalars, got " +
                                    std::to_string(c.tensors.size()) + " and " +
                                    std::to_string(c.scalars.size()));
}

std::uint32_t chunk_of(const KernelContext& c) {
    return static_cast<std::uint32_t>(c.scalars[0]) + c.block_idx;
}

/// rms_norm_rows: y[r] = x[r] / sqrt(mean(x[r]^2) + eps) * w over `cols` columns.
void rms_norm_rows(const M& x, const M& w, const M& y, std::uint32_t rows, std::uint32_t cols) {
    for (std::uint32_t r = 0; r < rows; ++r) {
        float sum = 0.0f;
        for (std::uint32_t j = 0; j < cols; ++j)
            sum += x(r, j) * x(r, j);
        const float inv = 1.0f / std::sqrt(sum / static_cast<float>(cols) + static_cast<float>(kRmsEps));
        for (std::uint32_t j = 0; j < cols; ++j)
            y(r, j) = x(r, j) * inv * w(j);
    }
}

/// matmul_cols: out(r, out_col + j) = sum_k in(r, k) w(k, w_col + j), j < width, for the given rows.
template <class RowFilter>
void matmul_cols(const M& in, std::uint32_t rows, std::uint32_t depth, const M& w, std::uint32_t w_col,
                 const M& out, std::uint32_t out_col, std::uint32_t width, RowFilter&& take_row,
                 const M* residual = nullptr) {
    constexpr std::uint32_t kStrip = 64;  // accumulate a strip of columns in registers / L1
    float acc[kStrip];
    for (std::uint32_t r = 0; r < rows; ++r) {
        if (!take_row(r)) continue;
        for (std::uint32_t j0 = 0; j0 < width; j0 += kStrip) {
            const std::uint32_t n = std::min(kStrip, width - j0);
            std::fill_n(acc, n, 0.0f);
            for (std::uint32_t k = 0; k < depth; ++k) {
                const float a = in(r, k);
                const float* wrow = &w(k, w_col + j0);
                for (std::uint32_t j = 0; j < n; ++j)
                    acc[j] += a * wrow[j];
            }
            for (std::uint32_t j = 0; j < n; ++j)
                out(r, out_col + j0 + j) = acc[j] + (residual ? (*residual)(r, out_col + j0 + j) : 0.0f);
        }
    }
}

// ---- Scope 1 -------------------------------------------------------------------------------------------

int rmsnorm(const KernelContext& c) {
    expect_args(c, 3, 1, "rmsnorm");
    rms_norm_rows(at(c, 0), at(c, 1), at(c, 2), view(c, 0).shape[0], view(c, 0).shape[1]);
    return 0;
}

/// projection: q/k/v/gate/up/down. tensors: in [rows, depth], weight [depth, n], out [rows, w*c].
int projection(const KernelContext& c) {
    expect_args(c, 3, 2, "projection");
    const auto width = static_cast<std::uint32_t>(c.scalars[1]);
    matmul_cols(at(c, 0), view(c, 0).shape[0], view(c, 0).shape[1], at(c, 1), chunk_of(c) * width, at(c, 2),
                c.block_idx * width, width, [](std::uint32_t) { return true; });
    return 0;
}

/// qk_norm: RMS norm over head_dim of every head of q and k (Qwen3's per-head q/k norm).
int qk_norm(const KernelContext& c) {
    expect_args(c, 6, 1, "qk_norm");
    const std::uint32_t rows = view(c, 0).shape[0], d = view(c, 2).shape[0];
    for (std::size_t t = 0; t < 2; ++t) {
        const M x = at(c, t), w = at(c, 2 + t), y = at(c, 4 + t);
        const std::uint32_t heads = view(c, t).shape[1] / d;
        for (std::uint32_t h = 0; h < heads; ++h) {
            // A head is a contiguous run of d columns: view it as rows x d starting at column h*d.
            const M xh{&x(0, h * d), x.s}, yh{&y(0, h * d), y.s};
            rms_norm_rows(xh, w, yh, rows, d);
        }
    }
    return 0;
}

// ---- Scope 2 -------------------------------------------------------------------------------------------

/// rope_kv_cache: rotates q and k of one row at position pos (pairs i, i + d/2), writes q_rope and the
/// new K and V entries of the cache.
int rope_kv_cache(const KernelContext& c) {
    expect_args(c, 8, 2, "rope_kv_cache");
    const auto pos = static_cast<std::uint32_t>(c.scalars[1]);
    const M q = at(c, 0), k = at(c, 1), v = at(c, 2), cos = at(c, 3), sin = at(c, 4);
    const M q_out = at(c, 5), k_cache = at(c, 6), v_cache = at(c, 7);
    const std::uint32_t q_heads = view(c, 5).shape[1], d = view(c, 5).shape[2],
                        kv_heads = view(c, 6).shape[1];
    const std::uint32_t half = d / 2;
    for (std::uint32_t h = 0; h < q_heads + kv_heads; ++h) {
        const bool is_q = h < q_heads;
        const std::uint32_t head = is_q ? h : h - q_heads;
        for (std::uint32_t i = 0; i < half; ++i) {
            const float x1 = is_q ? q(0, head * d + i) : k(0, head * d + i);
            const float x2 = is_q ? q(0, head * d + i + half) : k(0, head * d + i + half);
            const float co = cos(pos, i), si = sin(pos, i);
            float& y1 = is_q ? q_out(0, head, i) : k_cache(0, head, 0, i);
            float& y2 = is_q ? q_out(0, head, i + half) : k_cache(0, head, 0, i + half);
            y1 = x1 * co - x2 * si;
            y2 = x2 * co + x1 * si;
        }
    }
    for (std::uint32_t h = 0; h < kv_heads; ++h)
        for (std::uint32_t i = 0; i < d; ++i)
            v_cache(0, h, 0, i) = v(0, h * d + i);
    return 0;
}

/// HeadRange: the query heads of this subtask inside the launch's views, and their KV heads.
struct HeadRange {
    std::uint32_t first, count, kv_first, group;
};
HeadRange head_range(const KernelContext& c, std::uint32_t launch_heads, std::uint32_t launch_kv_heads) {
    const std::uint32_t per_chunk = launch_heads / c.block_num;
    const std::uint32_t kv_per_chunk = launch_kv_heads / c.block_num;
    return HeadRange{c.block_idx * per_chunk, per_chunk, c.block_idx * kv_per_chunk,
                     per_chunk / kv_per_chunk};
}

int qk_matmul(const KernelContext& c) {
    expect_args(c, 3, 1, "qk_matmul");
    const M q = at(c, 0), k = at(c, 1), s = at(c, 2);
    const std::uint32_t d = view(c, 0).shape[2], len = view(c, 1).shape[2];
    const HeadRange hr = head_range(c, view(c, 0).shape[1], view(c, 1).shape[1]);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    for (std::uint32_t h = hr.first; h < hr.first + hr.count; ++h) {
        const std::uint32_t kvh = hr.kv_first + (h - hr.first) / hr.group;
        for (std::uint32_t p = 0; p < len; ++p) {
            float dot = 0.0f;
            for (std::uint32_t i = 0; i < d; ++i)
                dot += q(0, h, i) * k(0, kvh, p, i);
            s(0, h, p) = dot * scale;
        }
    }
    return 0;
}

/// softmax: per KV block j of each head: m_j = max s, p = exp(s - m_j), l_j = sum p (block-local).
int softmax(const KernelContext& c) {
    expect_args(c, 4, 2, "softmax");
    const M s = at(c, 0), p = at(c, 1), m = at(c, 2), l = at(c, 3);
    const auto block = static_cast<std::uint32_t>(c.scalars[1]);
    const std::uint32_t heads = view(c, 0).shape[1], len = view(c, 0).shape[2], nb = view(c, 2).shape[2];
    const HeadRange hr = head_range(c, heads, heads);
    for (std::uint32_t h = hr.first; h < hr.first + hr.count; ++h)
        for (std::uint32_t j = 0; j < nb; ++j) {
            const std::uint32_t lo = j * block, hi = std::min(len, lo + block);
            float mx = -std::numeric_limits<float>::infinity();
            for (std::uint32_t i = lo; i < hi; ++i)
                mx = std::max(mx, s(0, h, i));
            float sum = 0.0f;
            for (std::uint32_t i = lo; i < hi; ++i)
                sum += (p(0, h, i) = std::exp(s(0, h, i) - mx));
            m(0, h, j) = mx;
            l(0, h, j) = sum;
        }
    return 0;
}

/// sv_matmul: o_j = sum over block j of p(pos) v(pos), unnormalised.
int sv_matmul(const KernelContext& c) {
    expect_args(c, 3, 2, "sv_matmul");
    const M p = at(c, 0), v = at(c, 1), o = at(c, 2);
    const auto block = static_cast<std::uint32_t>(c.scalars[1]);
    const std::uint32_t len = view(c, 0).shape[2], d = view(c, 1).shape[3], nb = view(c, 2).shape[2];
    const HeadRange hr = head_range(c, view(c, 0).shape[1], view(c, 1).shape[1]);
    for (std::uint32_t h = hr.first; h < hr.first + hr.count; ++h) {
        const std::uint32_t kvh = hr.kv_first + (h - hr.first) / hr.group;
        for (std::uint32_t j = 0; j < nb; ++j) {
            const std::uint32_t lo = j * block, hi = std::min(len, lo + block);
            for (std::uint32_t i = 0; i < d; ++i) {
                float acc = 0.0f;
                for (std::uint32_t t = lo; t < hi; ++t)
                    acc += p(0, h, t) * v(0, kvh, t, i);
                o(0, h, j, i) = acc;
            }
        }
    }
    return 0;
}

/// online_softmax: combines the blocks: M = max m_j, out = sum_j e^(m_j - M) o_j / sum_j e^(m_j - M) l_j.
int online_softmax(const KernelContext& c) {
    expect_args(c, 4, 1, "online_softmax");
    const M o = at(c, 0), m = at(c, 1), l = at(c, 2), out = at(c, 3);
    const std::uint32_t heads = view(c, 0).shape[1], nb = view(c, 0).shape[2], d = view(c, 0).shape[3];
    if (d > kMaxHeadDim)
        throw std::invalid_argument("online_softmax: head_dim above " + std::to_string(kMaxHeadDim));
    const HeadRange hr = head_range(c, heads, heads);
    for (std::uint32_t h = hr.first; h < hr.first + hr.count; ++h) {
        // Running form, one block at a time, as the device kernel folds blocks into its accumulator.
        float run_max = -std::numeric_limits<float>::infinity(), run_sum = 0.0f;
        float acc[kMaxHeadDim];
        std::fill_n(acc, d, 0.0f);
        for (std::uint32_t j = 0; j < nb; ++j) {
            const float new_max = std::max(run_max, m(0, h, j));
            const float old_scale = std::exp(run_max - new_max), blk_scale = std::exp(m(0, h, j) - new_max);
            run_sum = run_sum * old_scale + l(0, h, j) * blk_scale;
            for (std::uint32_t i = 0; i < d; ++i)
                acc[i] = acc[i] * old_scale + o(0, h, j, i) * blk_scale;
            run_max = new_max;
        }
        for (std::uint32_t i = 0; i < d; ++i)
            out(0, h * d + i) = acc[i] / run_sum;
    }
    return 0;
}

// ---- Scope 3 -------------------------------------------------------------------------------------------

/// out_proj_residual (MIX): h1 = x + attn @ wo for this chunk's columns. The three lanes of a block run
/// at once with no way to wait for each other, so each takes a disjoint third of the rows (row % 3 ==
/// lane) and does matmul and residual for them: the result does not depend on the lanes' order.
int out_proj_residual(const KernelContext& c) {
    expect_args(c, 4, 2, "out_proj_residual");
    const auto width = static_cast<std::uint32_t>(c.scalars[1]);
    const M residual = at(c, 2);
    const std::uint32_t lane = c.lane;
    matmul_cols(
        at(c, 0), view(c, 0).shape[0], view(c, 0).shape[1], at(c, 1), chunk_of(c) * width, at(c, 3),
        c.block_idx * width, width, [lane](std::uint32_t r) { return r % 3 == lane; }, &residual);
    return 0;
}

int post_rmsnorm(const KernelContext& c) {
    expect_args(c, 3, 1, "post_rmsnorm");
    rms_norm_rows(at(c, 0), at(c, 1), at(c, 2), view(c, 0).shape[0], view(c, 0).shape[1]);
    return 0;
}

/// silu: act = silu(gate) * up, silu(g) = g / (1 + e^-g), over this chunk's columns.
int silu(const KernelContext& c) {
    expect_args(c, 3, 2, "silu");
    const M g = at(c, 0), u = at(c, 1), a = at(c, 2);
    const auto width = static_cast<std::uint32_t>(c.scalars[1]);
    const std::uint32_t rows = view(c, 0).shape[0], col = c.block_idx * width;
    for (std::uint32_t r = 0; r < rows; ++r)
        for (std::uint32_t j = col; j < col + width; ++j)
            a(r, j) = g(r, j) / (1.0f + std::exp(-g(r, j))) * u(r, j);
    return 0;
}

/// down_proj_residual: out = h1 + down over this chunk's columns.
int down_proj_residual(const KernelContext& c) {
    expect_args(c, 3, 2, "down_proj_residual");
    const M down = at(c, 0), h1 = at(c, 1), out = at(c, 2);
    const auto width = static_cast<std::uint32_t>(c.scalars[1]);
    const std::uint32_t rows = view(c, 0).shape[0], col = c.block_idx * width;
    for (std::uint32_t r = 0; r < rows; ++r)
        for (std::uint32_t j = col; j < col + width; ++j)
            out(r, j) = h1(r, j) + down(r, j);
    return 0;
}

}  // namespace

KernelFn cpu_kernel(Op op) {
    switch (op) {
        case Op::RmsNorm:
            return &rmsnorm;
        case Op::QProj:
        case Op::KProj:
        case Op::VProj:
        case Op::GateProj:
        case Op::UpProj:
        case Op::DownProj:
            return &projection;
        case Op::QkNorm:
            return &qk_norm;
        case Op::RopeKvCache:
            return &rope_kv_cache;
        case Op::QkMatmul:
            return &qk_matmul;
        case Op::Softmax:
            return &softmax;
        case Op::SvMatmul:
            return &sv_matmul;
        case Op::OnlineSoftmax:
            return &online_softmax;
        case Op::OutProjResidual:
            return &out_proj_residual;
        case Op::PostRmsNorm:
            return &post_rmsnorm;
        case Op::Silu:
            return &silu;
        case Op::DownProjResidual:
            return &down_proj_residual;
    }
    return nullptr;
}

}  // namespace pto::examples::qwen3::detail
