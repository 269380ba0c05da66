// The plain sequential reference of the whole layer in double precision: row by row, no chunks, no KV
// blocks (one softmax over the full context), written apart from the kernels so it checks their maths too.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels_cpu.h"
#include "pto/examples/qwen3.h"
#include "pto/runtime/detail/throw.h"

namespace pto::examples::qwen3 {
namespace {

using Vec = std::vector<double>;

/// Reads element i of a contiguous tensor.
double get(const TensorView& v, std::uint64_t i) {
    return static_cast<double>(v.data<float>()[i]);
}

Vec rms_norm(const Vec& x, const TensorView& w, std::uint64_t w_offset = 0) {
    double sum = 0.0;
    for (double e : x)
        sum += e * e;
    const double inv = 1.0 / std::sqrt(sum / static_cast<double>(x.size()) + detail::kRmsEps);
    Vec y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        y[i] = x[i] * inv * get(w, w_offset + i);
    return y;
}

/// x @ w for a contiguous [x.size(), n] weight.
Vec matvec(const Vec& x, const TensorView& w, std::uint32_t n) {
    Vec y(n, 0.0);
    for (std::size_t k = 0; k < x.size(); ++k) {
        const float* row = w.data<float>() + k * n;
        for (std::uint32_t j = 0; j < n; ++j)
            y[j] += x[k] * static_cast<double>(row[j]);
    }
    return y;
}

void head_norm(Vec& x, std::uint32_t heads, std::uint32_t d, const TensorView& w) {
    for (std::uint32_t h = 0; h < heads; ++h) {
        const Vec part(x.begin() + h * d, x.begin() + (h + 1) * d);
        const Vec normed = rms_norm(part, w);
        std::copy(normed.begin(), normed.end(), x.begin() + h * d);
    }
}

void rope(Vec& x, std::uint32_t heads, std::uint32_t d, const Tensors& t, std::uint32_t pos) {
    const std::uint32_t half = d / 2;
    for (std::uint32_t h = 0; h < heads; ++h)
        for (std::uint32_t i = 0; i < half; ++i) {
            const double co = get(t.rope_cos, pos * half + i), si = get(t.rope_sin, pos * half + i);
            const double x1 = x[h * d + i], x2 = x[h * d + i + half];
            x[h * d + i] = x1 * co - x2 * si;
            x[h * d + i + half] = x2 * co + x1 * si;
        }
}

}  // namespace

Golden reference(const Problem& problem) {
    if (!problem.has_memory())
        pto::detail::throw_error(ErrorCode::InvalidArgument,
                                 "qwen3 reference: the problem has fake addresses; use Problem::with_memory");
    const Shapes& s = problem.shapes();
    const Tensors& t = problem.tensors();
    const std::uint32_t H = s.hidden(), K = s.kv_hidden(), I = s.intermediate, D = s.head_dim;
    const std::uint32_t group = s.q_heads / s.kv_heads;
    Golden g;
    g.out.resize(static_cast<std::size_t>(s.batch) * H);
    g.k_new.resize(static_cast<std::size_t>(s.batch) * K);
    g.v_new.resize(static_cast<std::size_t>(s.batch) * K);

    for (std::uint32_t b = 0; b < s.batch; ++b) {
        const std::uint32_t len = s.context_len(b), pos = len - 1;
        Vec x(H);
        for (std::uint32_t i = 0; i < H; ++i)
            x[i] = get(t.x, static_cast<std::uint64_t>(b) * H + i);

        const Vec xn = rms_norm(x, t.rms_weight);
        Vec q = matvec(xn, t.wq, H), k = matvec(xn, t.wk, K);
        const Vec v = matvec(xn, t.wv, K);
        head_norm(q, s.q_heads, D, t.q_norm_weight);
        head_norm(k, s.kv_heads, D, t.k_norm_weight);
        rope(q, s.q_heads, D, t, pos);
        rope(k, s.kv_heads, D, t, pos);
        for (std::uint32_t i = 0; i < K; ++i) {
            g.k_new[static_cast<std::size_t>(b) * K + i] = static_cast<float>(k[i]);
            g.v_new[static_cast<std::size_t>(b) * K + i] = static_cast<float>(v[i]);
        }

        // Attention over positions 0..len-1; the cache holds 0..len-2, the new token is k / v.
        Vec attn(H, 0.0);
        for (std::uint32_t h = 0; h < s.q_heads; ++h) {
            const std::uint32_t kvh = h / group;
            const auto cache_at = [&](const TensorView& cache, std::uint32_t p, std::uint32_t i) {
                return get(cache,
                           ((static_cast<std::uint64_t>(b) * s.kv_heads + kvh) * s.max_context + p) * D + i);
            };
            Vec score(len);
            double mx = -std::numeric_limits<double>::infinity();
            for (std::uint32_t p = 0; p < len; ++p) {
                double dot = 0.0;
                for (std::uint32_t i = 0; i < D; ++i)
                    dot += q[h * D + i] * (p == pos ? k[kvh * D + i] : cache_at(t.k_cache, p, i));
                score[p] = dot / std::sqrt(static_cast<double>(D));
                mx = std::max(mx, score[p]);
            }
            double sum = 0.0;
            for (double& e : score)
                sum += (e = std::exp(e - mx));
            for (std::uint32_t p = 0; p < len; ++p)
                for (std::uint32_t i = 0; i < D; ++i)
                    attn[h * D + i] +=
                        score[p] / sum * (p == pos ? v[kvh * D + i] : cache_at(t.v_cache, p, i));
        }

        Vec h1 = matvec(attn, t.wo, H);
        for (std::uint32_t i = 0; i < H; ++i)
            h1[i] += x[i];
        const Vec hn = rms_norm(h1, t.post_rms_weight);
        const Vec gate = matvec(hn, t.w_gate, I), up = matvec(hn, t.w_up, I);
        Vec act(I);
        for (std::uint32_t i = 0; i < I; ++i)
            act[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
        const Vec down = matvec(act, t.w_down, H);
        for (std::uint32_t i = 0; i < H; ++i)
            g.out[static_cast<std::size_t>(b) * H + i] = static_cast<float>(h1[i] + down[i]);
    }
    return g;
}

}  // namespace pto::examples::qwen3
