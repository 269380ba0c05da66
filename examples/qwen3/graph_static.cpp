// Schemes C and D of the Qwen3 decode layer (docs/design/static-graph.md, docs/design/reference-graphs.md):
// per tile of Scope 1, row of Scope 2 and tile of Scope 3, bind the instance's views (the same ones
// launch_args.cpp builds) and instantiate the body's template in its own scope. C (MANUAL scopes) names the
// boundary producers from the ids earlier instances returned, exactly as scheme A does; D (AUTO scopes) lets
// the tensormap find them at the declared boundaries only.
//
//   G1(t) ──qk_norm, v_proj[*]──► G2(b) for b in tile t ──online[*] of t's valid rows──► G3(t)
#include "launch_args.h"
#include "pto/scope/orchestration.h"
#include "static_bodies.h"

namespace pto::examples::qwen3 {
namespace {

void bind_g1(Bindings& b, const G1Layout& g, const DecodeGraph::State& st, std::uint32_t tile) {
    const Tensors& t = st.problem->tensors();
    const Slice rows = tile_rows(st.problem->shapes(), tile);
    b.tensor(g.x, t.x, rows).tensor(g.x_norm, t.x_norm, rows);
    b.tensor(g.q, t.q, rows).tensor(g.k, t.k, rows);
    const std::vector<Launch>& ql = st.of(Op::QProj);
    const std::uint32_t cq = st.problem->chunk_size(Op::QProj);
    for (std::size_t i = 0; i < ql.size(); ++i)
        b.tensor(g.q_out[i], t.q, rows, launch_range(cq, ql[i]));
    const std::vector<Launch>& kl = st.of(Op::KProj);
    const std::uint32_t ck = st.problem->chunk_size(Op::KProj), cv = st.problem->chunk_size(Op::VProj);
    for (std::size_t i = 0; i < kl.size(); ++i) {
        b.tensor(g.k_out[i], t.k, rows, launch_range(ck, kl[i]));
        b.tensor(g.v_out[i], t.v, rows, launch_range(cv, kl[i]));
    }
    b.tensor(g.q_normed, t.q_normed, rows).tensor(g.k_normed, t.k_normed, rows);
}

void bind_g2(Bindings& b, const G2Layout& g, const DecodeGraph::State& st, std::uint32_t row) {
    const Shapes& s = st.problem->shapes();
    const Tensors& t = st.problem->tensors();
    const std::uint32_t len = st.problem->context_len(row), pos = len - 1;
    const Slice r = batch_row(row), at_pos{2, pos, 1};
    b.tensor(g.q_normed, t.q_normed, r)
        .tensor(g.k_normed, t.k_normed, r)
        .tensor(g.v, t.v, r)
        .tensor(g.q_rope, t.q_rope, r)
        .tensor(g.k_new, t.k_cache, r, at_pos)
        .tensor(g.v_new, t.v_cache, r, at_pos)
        .scalar(g.pos, pos);

    const Slice context = leading(2, len), blocks = leading(2, st.problem->kv_blocks(row));
    const std::uint32_t c = st.problem->chunk_size(Op::QkMatmul), kv = kv_per_chunk(s);
    const std::vector<Launch>& att = st.of(Op::QkMatmul);
    for (std::size_t i = 0; i < att.size(); ++i) {
        const Launch l = att[i];
        const Slice heads = launch_range(c, l), kv_heads = launch_range(kv, l);
        const G2Layout::Attention& a = g.attention[i];
        b.tensor(a.q_rope, t.q_rope, r, heads)
            .tensor(a.k_cache, t.k_cache, r, kv_heads, context)
            .tensor(a.scores, t.scores, r, heads, context)
            .tensor(a.probs, t.probs, r, heads, context)
            .tensor(a.block_max, t.block_max, r, heads, blocks)
            .tensor(a.block_sum, t.block_sum, r, heads, blocks)
            .tensor(a.v_cache, t.v_cache, r, kv_heads, context)
            .tensor(a.o_part, t.o_part, r, heads, blocks)
            .tensor(a.attn, t.attn, r, launch_range(c * s.head_dim, l));
    }
}

void bind_g3(Bindings& b, const G3Layout& g, const DecodeGraph::State& st, std::uint32_t tile) {
    const Tensors& t = st.problem->tensors();
    const Slice rows = tile_rows(st.problem->shapes(), tile);
    b.tensor(g.attn, t.attn, rows).tensor(g.h1, t.h1, rows);
    b.tensor(g.h1_norm, t.h1_norm, rows).tensor(g.act, t.act, rows);

    const std::vector<Launch>& outs = st.of(Op::OutProjResidual);
    const std::uint32_t c_out = st.problem->chunk_size(Op::OutProjResidual);
    for (std::size_t j = 0; j < outs.size(); ++j) {
        const Slice columns = launch_range(c_out, outs[j]);
        b.tensor(g.x_cols[j], t.x, rows, columns);
        b.tensor(g.h1_cols[j], t.h1, rows, columns);
        b.tensor(g.down_cols[j], t.down, rows, columns);
        b.tensor(g.out_cols[j], t.out, rows, columns);
    }
    const std::vector<Launch>& mlp = st.of(Op::GateProj);
    const std::uint32_t c_mlp = st.problem->chunk_size(Op::GateProj);
    for (std::size_t i = 0; i < mlp.size(); ++i) {
        const Slice columns = launch_range(c_mlp, mlp[i]);
        b.tensor(g.gate_cols[i], t.gate, rows, columns);
        b.tensor(g.up_cols[i], t.up, rows, columns);
        b.tensor(g.act_cols[i], t.act, rows, columns);
    }
}

/// Scheme C: MANUAL scopes; each boundary node gets scheme A's producers by hand, from the ids earlier
/// instances returned (kept in the State's arrays, laid out as scheme A keeps its own).
void submit_manual(DecodeGraph::State& st, StaticBodies& sb) {
    const Shapes& s = st.problem->shapes();
    Bindings& g1 = *sb.manual[0].bindings;
    Bindings& g2 = *sb.manual[1].bindings;
    Bindings& g3 = *sb.manual[2].bindings;
    const std::size_t stride = st.rope_stride();
    for (std::uint32_t t = 0; t < s.tiles(); ++t) {
        PTO2_SCOPE(MANUAL) {
            bind_g1(g1, sb.g1, st, t);
            const Instance inst = instantiate(g1);
            TaskId* rope_deps = st.rope_deps.data() + t * stride;
            rope_deps[0] = inst.node(sb.g1.qk_norm_node);
            for (std::size_t i = 0; i < sb.g1.v_nodes.size(); ++i)
                rope_deps[1 + i] = inst.node(sb.g1.v_nodes[i]);
        }
    }
    const std::size_t per_row = sb.g2.attention.size();
    for (std::uint32_t b = 0; b < s.batch; ++b) {
        PTO2_SCOPE(MANUAL) {
            bind_g2(g2, sb.g2, st, b);
            g2.depend(0, st.tile_rope_deps(b / s.tile_rows));  // rope is node 0
            const Instance inst = instantiate(g2);
            TaskId* online = st.online.data() + static_cast<std::size_t>(b) * per_row;
            for (std::size_t i = 0; i < per_row; ++i)
                online[i] = inst.node(sb.g2.attention[i].online_node);
        }
    }
    for (std::uint32_t t = 0; t < s.tiles(); ++t) {
        PTO2_SCOPE(MANUAL) {
            bind_g3(g3, sb.g3, st, t);
            // Every out_proj launch waits for all attention launches of the tile (the last tile names its
            // 10 valid rows' launches: the template body is the same). One list for all of them.
            g3.depend(sb.g3.out_proj_nodes, st.tile_online(t));
            (void)instantiate(g3);
        }
    }
}

/// Scheme D: AUTO scopes; the tensormap links the declared boundary inputs to the recorded boundary
/// outputs of earlier instances. Nothing inside an instance is looked up or recorded.
void submit_tensormap(DecodeGraph::State& st, StaticBodies& sb) {
    const Shapes& s = st.problem->shapes();
    Bindings& g1 = *sb.tensormap[0].bindings;
    Bindings& g2 = *sb.tensormap[1].bindings;
    Bindings& g3 = *sb.tensormap[2].bindings;
    for (std::uint32_t t = 0; t < s.tiles(); ++t) {
        PTO2_SCOPE() {
            bind_g1(g1, sb.g1, st, t);
            (void)instantiate(g1);
        }
    }
    for (std::uint32_t b = 0; b < s.batch; ++b) {
        PTO2_SCOPE() {
            bind_g2(g2, sb.g2, st, b);
            (void)instantiate(g2);
        }
    }
    for (std::uint32_t t = 0; t < s.tiles(); ++t) {
        PTO2_SCOPE() {
            bind_g3(g3, sb.g3, st, t);
            (void)instantiate(g3);
        }
    }
}

}  // namespace

void submit_static(DecodeGraph::State& st, bool manual) {
    // One scope per instance and none around them, as in schemes A and B: the largest instance (G3 at
    // non-spmd, 223 nodes) bounds the window the graph needs.
    try {
        if (manual)
            submit_manual(st, *st.bodies);
        else
            submit_tensormap(st, *st.bodies);
    } catch (...) {
        // A rejected instantiate keeps its bindings and boundary producers (ids of this run): drop them,
        // so the next submit starts clean.
        for (Body& body : st.bodies->manual)
            body.bindings->clear();
        for (Body& body : st.bodies->tensormap)
            body.bindings->clear();
        throw;
    }
}

}  // namespace pto::examples::qwen3
