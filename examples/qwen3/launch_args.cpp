// Views and scalars of every launch (the table in launch_args.h). Slicing is metadata only; every view
// here is exactly the region the kernel touches, which is what makes discovered edges equal the rules.
// graph_static.cpp binds the same views from the same helpers (a test compares them launch by launch).
#include "launch_args.h"

#include <string>

#include "pto/runtime/detail/throw.h"

namespace pto::examples::qwen3 {

void rmsnorm_args(const Problem& p, std::uint32_t tile, Args& a) {
    const Tensors& t = p.tensors();
    const Slice rows = tile_rows(p.shapes(), tile);
    a.input(sub(t.x, rows)).input(t.rms_weight).output(sub(t.x_norm, rows)).scalar(0u);
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
    const Slice rows = tile_rows(p.shapes(), tile);
    a.input(sub(o.in, rows))
        .input(o.weight)
        .output(sub(o.out, rows, launch_range(c, l)))
        .scalar(l.chunk_base)
        .scalar(c)
        .block_num(l.block_num);
}

void qk_norm_args(const Problem& p, std::uint32_t tile, Args& a) {
    const Tensors& t = p.tensors();
    const Slice rows = tile_rows(p.shapes(), tile);
    a.input(sub(t.q, rows))
        .input(sub(t.k, rows))
        .input(t.q_norm_weight)
        .input(t.k_norm_weight)
        .output(sub(t.q_normed, rows))
        .output(sub(t.k_normed, rows))
        .scalar(0u);
}

void rope_kv_cache_args(const Problem& p, std::uint32_t row, Args& a) {
    const Tensors& t = p.tensors();
    const std::uint32_t pos = p.context_len(row) - 1;
    const Slice b = batch_row(row), at_pos{2, pos, 1};
    a.input(sub(t.q_normed, b))
        .input(sub(t.k_normed, b))
        .input(sub(t.v, b))
        .input(t.rope_cos)
        .input(t.rope_sin)
        .output(sub(t.q_rope, b))
        .output(sub(t.k_cache, b, at_pos))
        .output(sub(t.v_cache, b, at_pos))
        .scalar(0u)
        .scalar(pos);
}

void qk_matmul_args(const Problem& p, std::uint32_t row, Launch l, Args& a) {
    const Tensors& t = p.tensors();
    const Shapes& s = p.shapes();
    const std::uint32_t c = p.chunk_size(Op::QkMatmul);
    const Slice b = batch_row(row), heads = launch_range(c, l), context = leading(2, p.context_len(row));
    a.input(sub(t.q_rope, b, heads))
        .input(sub(t.k_cache, b, launch_range(kv_per_chunk(s), l), context))
        .output(sub(t.scores, b, heads, context))
        .scalar(l.chunk_base)
        .block_num(l.block_num);
}

void softmax_args(const Problem& p, std::uint32_t row, Launch l, Args& a) {
    const Tensors& t = p.tensors();
    const Shapes& s = p.shapes();
    const std::uint32_t c = p.chunk_size(Op::Softmax);
    const Slice b = batch_row(row), heads = launch_range(c, l), context = leading(2, p.context_len(row));
    const Slice blocks = leading(2, p.kv_blocks(row));
    a.input(sub(t.scores, b, heads, context))
        .output(sub(t.probs, b, heads, context))
        .output(sub(t.block_max, b, heads, blocks))
        .output(sub(t.block_sum, b, heads, blocks))
        .scalar(l.chunk_base)
        .scalar(s.kv_block)
        .block_num(l.block_num);
}

void sv_matmul_args(const Problem& p, std::uint32_t row, Launch l, Args& a) {
    const Tensors& t = p.tensors();
    const Shapes& s = p.shapes();
    const std::uint32_t c = p.chunk_size(Op::SvMatmul);
    const Slice b = batch_row(row), heads = launch_range(c, l), context = leading(2, p.context_len(row));
    a.input(sub(t.probs, b, heads, context))
        .input(sub(t.v_cache, b, launch_range(kv_per_chunk(s), l), context))
        .output(sub(t.o_part, b, heads, leading(2, p.kv_blocks(row))))
        .scalar(l.chunk_base)
        .scalar(s.kv_block)
        .block_num(l.block_num);
}

void online_softmax_args(const Problem& p, std::uint32_t row, Launch l, Args& a) {
    const Tensors& t = p.tensors();
    const Shapes& s = p.shapes();
    const std::uint32_t c = p.chunk_size(Op::OnlineSoftmax);
    const Slice b = batch_row(row), heads = launch_range(c, l), blocks = leading(2, p.kv_blocks(row));
    a.input(sub(t.o_part, b, heads, blocks))
        .input(sub(t.block_max, b, heads, blocks))
        .input(sub(t.block_sum, b, heads, blocks))
        .output(sub(t.attn, b, launch_range(c * s.head_dim, l)))
        .scalar(l.chunk_base)
        .block_num(l.block_num);
}

void out_proj_residual_args(const Problem& p, std::uint32_t tile, Launch l, Args& a) {
    const Tensors& t = p.tensors();
    const std::uint32_t c = p.chunk_size(Op::OutProjResidual);
    const Slice rows = tile_rows(p.shapes(), tile), columns = launch_range(c, l);
    a.input(sub(t.attn, rows))
        .input(t.wo)
        .input(sub(t.x, rows, columns))
        .output(sub(t.h1, rows, columns))
        .scalar(l.chunk_base)
        .scalar(c)
        .block_num(l.block_num);
}

void post_rmsnorm_args(const Problem& p, std::uint32_t tile, Args& a) {
    const Tensors& t = p.tensors();
    const Slice rows = tile_rows(p.shapes(), tile);
    a.input(sub(t.h1, rows)).input(t.post_rms_weight).output(sub(t.h1_norm, rows)).scalar(0u);
}

void silu_args(const Problem& p, std::uint32_t tile, Launch l, Args& a) {
    const Tensors& t = p.tensors();
    const std::uint32_t c = p.chunk_size(Op::Silu);
    const Slice rows = tile_rows(p.shapes(), tile), columns = launch_range(c, l);
    a.input(sub(t.gate, rows, columns))
        .input(sub(t.up, rows, columns))
        .output(sub(t.act, rows, columns))
        .scalar(l.chunk_base)
        .scalar(c)
        .block_num(l.block_num);
}

void down_proj_residual_args(const Problem& p, std::uint32_t tile, Launch l, Args& a) {
    const Tensors& t = p.tensors();
    const std::uint32_t c = p.chunk_size(Op::DownProjResidual);
    const Slice rows = tile_rows(p.shapes(), tile), columns = launch_range(c, l);
    a.input(sub(t.down, rows, columns))
        .input(sub(t.h1, rows, columns))
        .output(sub(t.out, rows, columns))
        .scalar(l.chunk_base)
        .scalar(c)
        .block_num(l.block_num);
}

}  // namespace pto::examples::qwen3
