// Problem: lays out every tensor of the layer (one buffer each) either in host memory, filled with
// deterministic inputs, or at fake addresses; reset() poisons everything the layer writes with NaN.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "pto/examples/qwen3.h"
#include "pto/runtime/detail/throw.h"

namespace pto::examples::qwen3 {
namespace {

/// Role: who writes a tensor, which decides tracking, initial values and what reset() poisons.
enum class Role : std::uint8_t { Input, Weight, KvCache, Written };

struct TensorDesc {
    TensorView Tensors::*member;
    Role role;
    std::vector<std::uint32_t> dims;
};

/// layout: the one table of the layer's tensors; every other function walks it.
std::vector<TensorDesc> layout(const Shapes& s) {
    const std::uint32_t B = s.batch_padded(), H = s.hidden(), K = s.kv_hidden(), I = s.intermediate;
    const std::uint32_t D = s.head_dim, NQ = s.q_heads, NKV = s.kv_heads, T = s.max_context,
                        NB = s.max_blocks();
    return {
        {&Tensors::x, Role::Input, {B, H}},
        {&Tensors::rms_weight, Role::Weight, {H}},
        {&Tensors::wq, Role::Weight, {H, H}},
        {&Tensors::wk, Role::Weight, {H, K}},
        {&Tensors::wv, Role::Weight, {H, K}},
        {&Tensors::q_norm_weight, Role::Weight, {D}},
        {&Tensors::k_norm_weight, Role::Weight, {D}},
        {&Tensors::rope_cos, Role::Weight, {T, D / 2}},
        {&Tensors::rope_sin, Role::Weight, {T, D / 2}},
        {&Tensors::wo, Role::Weight, {H, H}},
        {&Tensors::post_rms_weight, Role::Weight, {H}},
        {&Tensors::w_gate, Role::Weight, {H, I}},
        {&Tensors::w_up, Role::Weight, {H, I}},
        {&Tensors::w_down, Role::Weight, {I, H}},
        {&Tensors::k_cache, Role::KvCache, {B, NKV, T, D}},
        {&Tensors::v_cache, Role::KvCache, {B, NKV, T, D}},
        {&Tensors::x_norm, Role::Written, {B, H}},
        {&Tensors::q, Role::Written, {B, H}},
        {&Tensors::k, Role::Written, {B, K}},
        {&Tensors::v, Role::Written, {B, K}},
        {&Tensors::q_normed, Role::Written, {B, H}},
        {&Tensors::k_normed, Role::Written, {B, K}},
        {&Tensors::q_rope, Role::Written, {B, NQ, D}},
        {&Tensors::scores, Role::Written, {B, NQ, T}},
        {&Tensors::probs, Role::Written, {B, NQ, T}},
        {&Tensors::block_max, Role::Written, {B, NQ, NB}},
        {&Tensors::block_sum, Role::Written, {B, NQ, NB}},
        {&Tensors::o_part, Role::Written, {B, NQ, NB, D}},
        {&Tensors::attn, Role::Written, {B, H}},
        {&Tensors::h1, Role::Written, {B, H}},
        {&Tensors::h1_norm, Role::Written, {B, H}},
        {&Tensors::gate, Role::Written, {B, I}},
        {&Tensors::up, Role::Written, {B, I}},
        {&Tensors::act, Role::Written, {B, I}},
        {&Tensors::down, Role::Written, {B, H}},
        {&Tensors::out, Role::Written, {B, H}},
    };
}

std::uint64_t elements(const TensorDesc& d) {
    std::uint64_t n = 1;
    for (std::uint32_t x : d.dims)
        n *= x;
    return n;
}

/// Round each buffer up to 16 floats (64 bytes) so buffers start on cache lines.
std::uint64_t padded(std::uint64_t n) {
    return (n + 15) & ~std::uint64_t{15};
}

TensorView make_view(void* base, const TensorDesc& d) {
    TensorView v = TensorView::contiguous(base, DataType::F32, std::span<const std::uint32_t>(d.dims));
    return d.role == Role::Weight ? v.untracked() : v;
}

/// SplitMix64: a tiny deterministic generator, identical on every platform (std distributions are not).
struct Random {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    /// uniform: in [-1, 1).
    float uniform() { return static_cast<float>(static_cast<double>(next() >> 11) * 0x1.0p-52 - 1.0); }
};

void fill(const TensorView& v, Random& rng, float scale, float offset) {
    float* p = v.data<float>();
    const std::uint64_t n = v.element_count();
    for (std::uint64_t i = 0; i < n; ++i)
        p[i] = offset + scale * rng.uniform();
}

}  // namespace

Problem::Problem(const Shapes& shapes) : shapes_(shapes) {
    shapes.validate();
    for (std::uint32_t op = 0; op < kOpCount; ++op)
        chunk_sizes_[op] = shapes.chunk_size(static_cast<Op>(op));
    rows_.resize(shapes.batch_padded());
    for (std::uint32_t row = 0; row < rows_.size(); ++row) {
        const std::uint32_t len = shapes.context_len(row);
        rows_[row] = Row{len, (len + shapes.kv_block - 1) / shapes.kv_block};
    }
}

Problem::Problem(Problem&&) noexcept = default;
Problem& Problem::operator=(Problem&&) noexcept = default;
Problem::~Problem() = default;

Problem Problem::with_fake_addresses(const Shapes& shapes) {
    Problem p(shapes);
    p.fake_ = std::make_unique<VirtualAddressSpace>();
    for (const TensorDesc& d : layout(shapes))
        p.tensors_.*d.member = make_view(p.fake_->reserve(elements(d) * sizeof(float)), d);
    return p;
}

Problem Problem::with_memory(const Shapes& shapes, std::uint64_t seed) {
    shapes.validate();
    const std::vector<TensorDesc> descs = layout(shapes);
    std::uint64_t total = 0;
    for (const TensorDesc& d : descs)
        total += padded(elements(d));
    if (total > (1ull << 30))
        detail::throw_error(ErrorCode::InvalidArgument,
                            "qwen3 Problem::with_memory: " + std::to_string(total) +
                                " float elements exceed the 2^30 limit; use Shapes::reduced() or "
                                "Problem::with_fake_addresses for full-size graphs");
    Problem p(shapes);
    p.storage_.assign(total, 0.0f);
    std::uint64_t at = 0;
    for (const TensorDesc& d : descs) {
        p.tensors_.*d.member = make_view(p.storage_.data() + at, d);
        at += padded(elements(d));
    }

    // Scales keep activations near 1: a projection over n inputs of variance ~1 with weights uniform in
    // [-a, a] has output variance n a^2 / 3, so a = sqrt(3 / n).
    const Shapes& s = shapes;
    const Tensors& t = p.tensors_;
    Random rng{seed};
    const auto proj_scale = [](std::uint32_t n) { return static_cast<float>(std::sqrt(3.0 / n)); };
    fill(t.x, rng, 1.0f, 0.0f);
    fill(t.rms_weight, rng, 0.1f, 1.0f);
    fill(t.wq, rng, proj_scale(s.hidden()), 0.0f);
    fill(t.wk, rng, proj_scale(s.hidden()), 0.0f);
    fill(t.wv, rng, proj_scale(s.hidden()), 0.0f);
    fill(t.q_norm_weight, rng, 0.1f, 1.0f);
    fill(t.k_norm_weight, rng, 0.1f, 1.0f);
    fill(t.wo, rng, proj_scale(s.hidden()), 0.0f);
    fill(t.post_rms_weight, rng, 0.1f, 1.0f);
    fill(t.w_gate, rng, proj_scale(s.hidden()), 0.0f);
    fill(t.w_up, rng, proj_scale(s.hidden()), 0.0f);
    fill(t.w_down, rng, proj_scale(s.intermediate), 0.0f);
    fill(t.k_cache, rng, 1.0f, 0.0f);
    fill(t.v_cache, rng, 1.0f, 0.0f);
    // Rotary tables of Qwen3 (theta 1e6): angle(pos, i) = pos * theta^(-2i / head_dim).
    const std::uint32_t half = s.head_dim / 2;
    for (std::uint32_t pos = 0; pos < s.max_context; ++pos)
        for (std::uint32_t i = 0; i < half; ++i) {
            const double angle = pos * std::pow(1.0e6, -2.0 * i / s.head_dim);
            t.rope_cos.data<float>()[pos * half + i] = static_cast<float>(std::cos(angle));
            t.rope_sin.data<float>()[pos * half + i] = static_cast<float>(std::sin(angle));
        }
    p.reset();
    return p;
}

void Problem::reset() {
    if (!has_memory()) return;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (const TensorDesc& d : layout(shapes_)) {
        if (d.role != Role::Written) continue;
        const TensorView& v = tensors_.*d.member;
        std::fill_n(v.data<float>(), v.element_count(), nan);
    }
    // The positions rope_kv_cache writes: a qk/sv that ran before it would read NaN.
    const Shapes& s = shapes_;
    for (std::uint32_t b = 0; b < s.batch; ++b) {
        const std::uint32_t pos = s.context_len(b) - 1;
        for (std::uint32_t h = 0; h < s.kv_heads; ++h) {
            const std::uint64_t at =
                ((static_cast<std::uint64_t>(b) * s.kv_heads + h) * s.max_context + pos) * s.head_dim;
            std::fill_n(tensors_.k_cache.data<float>() + at, s.head_dim, nan);
            std::fill_n(tensors_.v_cache.data<float>() + at, s.head_dim, nan);
        }
    }
}

}  // namespace pto::examples::qwen3
