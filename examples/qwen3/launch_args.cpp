// Views and scalars of every launch (the table in launch_args.h). Slicing is metadata only; every view
// here is exactly the region the kernel touches, which is what makes discovered edges equal the rules.
// graph_static.cpp binds the same views from the same helpers (a test compares them launch by launch).
#include "launch_args.h"

#include <string>

#include "pto/runtime/detail/throw.h"

namespace pto::examples::qwen3 {
namespace {

TensorView tile_view(const Problem& p, const TensorView& v, std::uint32_t tile) {
    return qwen3::tile_view(p.shapes(), v, tile);
}

/// heads: row b of a [B, heads, ...] view, restricted to the launch's head range (c heads per chunk).
TensorView heads(const TensorView& v, std::uint32_t row, std::uint32_t c, Launch l) {
    return qwen3::heads(row_view(v, row), c, l);
}

}  // namespace

void rmsnorm_args(const Problem& p, std::uint32_t tile, Args& a) {
    const Tensors& t = p.tensors();
    a.input(tile_view(p, t.x, tile)).input(t.rms_weight).output(tile_view(p, t.x_norm, tile)).scalar(0u);
}

void projection_args(Op op, const Problem& p, std::uint32_t tile, Launch l, Args& a) {
    const Tensors& t = p.tensors();
    struct Operands {
        const TensorView& in;
        const TensorView& weight;
        const TensorView& out;
    };
    const Operands o = [&]() -> Operands {
        switch (op) {
            case Op::QProj:
                return {t.x_norm, t.wq, t.q};
            case Op::KProj:
                return {t.x_norm, t.wk, t.k};
            case Op::VProj:
                return {t.x_norm, t.wv, t.v};
            case Op::GateProj:
                return {t.h1_norm, t.w_gate, t.gate};
            case Op::UpProj:
                return {t.h1_norm, t.w_up, t.up};
            case Op::DownProj:
                return {t.act, t.w_down, t.down};
            default:
                detail::throw_error(
                    ErrorCode::InvalidArgument,
                    "qwen3 projection_args: " + std::string(to_string(op)) + " is not a projection");
        }
    }();
    const std::uint32_t c = p.chunk_size(op);
    a.input(tile_view(p, o.in, tile))
        .input(o.weight)
        .output(cols(tile_view(p, o.out, tile), c, l))
        .scalar(l.chunk_base)
        .scalar(c)
        .block_num(l.block_num);
}

void qk_norm_args(const Problem& p, std::uint32_t tile, Args& a) {
    const Tensors& t = p.tensors();
    a.input(tile_view(p, t.q, tile))
        .input(tile_view(p, t.k, tile))
        .input(t.q_norm_weight)
        .input(t.k_norm_weight)
        .output(tile_view(p, t.q_normed, tile))
        .output(tile_view(p, t.k_normed, tile))
        .scalar(0u);
}

void rope_kv_cache_args(const Problem& p, std::uint32_t row, Args& a) {
    const Tensors& t = p.tensors();
    const std::uint32_t pos = p.context_len(row) - 1;
    a.input(narrow(t.q_normed, 0, row, 1))
        .input(narrow(t.k_normed, 0, row, 1))
        .input(narrow(t.v, 0, row, 1))
        .input(t.rope_cos)
        .input(t.rope_sin)
        .output(narrow(t.q_rope, 0, row, 1))
        .output(narrow(narrow(t.k_cache, 0, row, 1), 2, pos, 1))
        .output(narrow(narrow(t.v_cache, 0, row, 1), 2, pos, 1))
        .scalar(0u)
        .scalar(pos);
}

void qk_matmul_args(const Problem& p, std::uint32_t row, Launch l, Args& a) {
    const Tensors& t = p.tensors();
    const Shapes& s = p.shapes();
    const std::uint32_t c = p.chunk_size(Op::QkMatmul), len = p.context_len(row);
    a.input(heads(t.q_rope, row, c, l))
        .input(narrow(heads(t.k_cache, row, kv_per_chunk(s), l), 2, 0, len))
        .output(narrow(heads(t.scores, row, c, l), 2, 0, len))
        .scalar(l.chunk_base)
        .block_num(l.block_num);
}

void softmax_args(const Problem& p, std::uint32_t row, Launch l, Args& a) {
    const Tensors& t = p.tensors();
    const Shapes& s = p.shapes();
    const std::uint32_t c = p.chunk_size(Op::Softmax), len = p.context_len(row), nb = p.kv_blocks(row);
    a.input(narrow(heads(t.scores, row, c, l), 2, 0, len))
        .output(narrow(heads(t.probs, row, c, l), 2, 0, len))
        .output(narrow(heads(t.block_max, row, c, l), 2, 0, nb))
        .output(narrow(heads(t.block_sum, row, c, l), 2, 0, nb))
        .scalar(l.chunk_base)
        .scalar(s.kv_block)
        .block_num(l.block_num);
}

void sv_matmul_args(const Problem& p, std::uint32_t row, Launch l, Args& a) {
    const Tensors& t = p.tensors();
    const Shapes& s = p.shapes();
    const std::uint32_t c = p.chunk_size(Op::SvMatmul), len = p.context_len(row), nb = p.kv_blocks(row);
    a.input(narrow(heads(t.probs, row, c, l), 2, 0, len))
        .input(narrow(heads(t.v_cache, row, kv_per_chunk(s), l), 2, 0, len))
        .output(narrow(heads(t.o_part, row, c, l), 2, 0, nb))
        .scalar(l.chunk_base)
        .scalar(s.kv_block)
        .block_num(l.block_num);
}

void online_softmax_args(const Problem& p, std::uint32_t row, Launch l, Args& a) {
    const Tensors& t = p.tensors();
    const Shapes& s = p.shapes();
    const std::uint32_t c = p.chunk_size(Op::OnlineSoftmax), nb = p.kv_blocks(row);
    a.input(narrow(heads(t.o_part, row, c, l), 2, 0, nb))
        .input(narrow(heads(t.block_max, row, c, l), 2, 0, nb))
        .input(narrow(heads(t.block_sum, row, c, l), 2, 0, nb))
        .output(cols(narrow(t.attn, 0, row, 1), c * s.head_dim, l))
        .scalar(l.chunk_base)
        .block_num(l.block_num);
}

void out_proj_residual_args(const Problem& p, std::uint32_t tile, Launch l, Args& a) {
    const Tensors& t = p.tensors();
    const std::uint32_t c = p.chunk_size(Op::OutProjResidual);
    a.input(tile_view(p, t.attn, tile))
        .input(t.wo)
        .input(cols(tile_view(p, t.x, tile), c, l))
        .output(cols(tile_view(p, t.h1, tile), c, l))
        .scalar(l.chunk_base)
        .scalar(c)
        .block_num(l.block_num);
}

void post_rmsnorm_args(const Problem& p, std::uint32_t tile, Args& a) {
    const Tensors& t = p.tensors();
    a.input(tile_view(p, t.h1, tile))
        .input(t.post_rms_weight)
        .output(tile_view(p, t.h1_norm, tile))
        .scalar(0u);
}

void silu_args(const Problem& p, std::uint32_t tile, Launch l, Args& a) {
    const Tensors& t = p.tensors();
    const std::uint32_t c = p.chunk_size(Op::Silu);
    a.input(cols(tile_view(p, t.gate, tile), c, l))
        .input(cols(tile_view(p, t.up, tile), c, l))
        .output(cols(tile_view(p, t.act, tile), c, l))
        .scalar(l.chunk_base)
        .scalar(c)
        .block_num(l.block_num);
}

void down_proj_residual_args(const Problem& p, std::uint32_t tile, Launch l, Args& a) {
    const Tensors& t = p.tensors();
    const std::uint32_t c = p.chunk_size(Op::DownProjResidual);
    a.input(cols(tile_view(p, t.down, tile), c, l))
        .input(cols(tile_view(p, t.h1, tile), c, l))
        .output(cols(tile_view(p, t.out, tile), c, l))
        .scalar(l.chunk_base)
        .scalar(c)
        .block_num(l.block_num);
}

}  // namespace pto::examples::qwen3
