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
    const Shapes& s = st.problem->shapes();
    const Tensors& t = st.problem->tensors();
    b.tensor(g.x, tile_view(s, t.x, tile)).tensor(g.x_norm, tile_view(s, t.x_norm, tile));
    const TensorView q = tile_view(s, t.q, tile), k = tile_view(s, t.k, tile), v = tile_view(s, t.v, tile);
    b.tensor(g.q, q).tensor(g.k, k);
    const std::vector<Launch>& ql = st.of(Op::QProj);
    const std::uint32_t cq = st.problem->chunk_size(Op::QProj);
    for (std::size_t i = 0; i < ql.size(); ++i)
        b.tensor(g.q_out[i], cols(q, cq, ql[i]));
    const std::vector<Launch>& kl = st.of(Op::KProj);
    const std::uint32_t ck = st.problem->chunk_size(Op::KProj), cv = st.problem->chunk_size(Op::VProj);
    for (std::size_t i = 0; i < kl.size(); ++i) {
        b.tensor(g.k_out[i], cols(k, ck, kl[i]));
        b.tensor(g.v_out[i], cols(v, cv, kl[i]));
    }
    b.tensor(g.q_normed, tile_view(s, t.q_normed, tile)).tensor(g.k_normed, tile_view(s, t.k_normed, tile));
}

void bind_g2(Bindings& b, const G2Layout& g, const DecodeGraph::State& st, std::uint32_t row) {
    const Shapes& s = st.problem->shapes();
    const Tensors& t = st.problem->tensors();
    const std::uint32_t len = st.problem->context_len(row), pos = len - 1, nb = st.problem->kv_blocks(row);
    const TensorView k_cache = row_view(t.k_cache, row), v_cache = row_view(t.v_cache, row);
    const TensorView q_rope = row_view(t.q_rope, row);
    b.tensor(g.q_normed, row_view(t.q_normed, row))
        .tensor(g.k_normed, row_view(t.k_normed, row))
        .tensor(g.v, row_view(t.v, row))
        .tensor(g.q_rope, q_rope)
        .tensor(g.k_new, narrow(k_cache, 2, pos, 1))
        .tensor(g.v_new, narrow(v_cache, 2, pos, 1))
        .scalar(g.pos, pos);

    const TensorView scores = row_view(t.scores, row), probs = row_view(t.probs, row);
    const TensorView block_max = row_view(t.block_max, row), block_sum = row_view(t.block_sum, row);
    const TensorView o_part = row_view(t.o_part, row), attn = row_view(t.attn, row);
    const std::uint32_t c = st.problem->chunk_size(Op::QkMatmul), kv = kv_per_chunk(s);
    const std::vector<Launch>& att = st.of(Op::QkMatmul);
    for (std::size_t i = 0; i < att.size(); ++i) {
        const Launch l = att[i];
        const G2Layout::Attention& a = g.attention[i];
        b.tensor(a.q_rope, heads(q_rope, c, l))
            .tensor(a.k_cache, narrow(heads(k_cache, kv, l), 2, 0, len))
            .tensor(a.scores, narrow(heads(scores, c, l), 2, 0, len))
            .tensor(a.probs, narrow(heads(probs, c, l), 2, 0, len))
            .tensor(a.block_max, narrow(heads(block_max, c, l), 2, 0, nb))
            .tensor(a.block_sum, narrow(heads(block_sum, c, l), 2, 0, nb))
            .tensor(a.v_cache, narrow(heads(v_cache, kv, l), 2, 0, len))
            .tensor(a.o_part, narrow(heads(o_part, c, l), 2, 0, nb))
            .tensor(a.attn, cols(attn, c * s.head_dim, l));
    }
}

void bind_g3(Bindings& b, const G3Layout& g, const DecodeGraph::State& st, std::uint32_t tile) {
    const Shapes& s = st.problem->shapes();
    const Tensors& t = st.problem->tensors();
    const TensorView x = tile_view(s, t.x, tile), h1 = tile_view(s, t.h1, tile);
    const TensorView act = tile_view(s, t.act, tile), down = tile_view(s, t.down, tile);
    const TensorView out = tile_view(s, t.out, tile);
    b.tensor(g.attn, tile_view(s, t.attn, tile)).tensor(g.h1, h1);
    b.tensor(g.h1_norm, tile_view(s, t.h1_norm, tile)).tensor(g.act, act);

    const std::vector<Launch>& outs = st.of(Op::OutProjResidual);
    const std::uint32_t c_out = st.problem->chunk_size(Op::OutProjResidual);
    for (std::size_t j = 0; j < outs.size(); ++j) {
        b.tensor(g.x_cols[j], cols(x, c_out, outs[j]));
        b.tensor(g.h1_cols[j], cols(h1, c_out, outs[j]));
        b.tensor(g.down_cols[j], cols(down, c_out, outs[j]));
        b.tensor(g.out_cols[j], cols(out, c_out, outs[j]));
    }
    const TensorView gate = tile_view(s, t.gate, tile), up = tile_view(s, t.up, tile);
    const std::vector<Launch>& mlp = st.of(Op::GateProj);
    const std::uint32_t c_mlp = st.problem->chunk_size(Op::GateProj);
    for (std::size_t i = 0; i < mlp.size(); ++i) {
        b.tensor(g.gate_cols[i], cols(gate, c_mlp, mlp[i]));
        b.tensor(g.up_cols[i], cols(up, c_mlp, mlp[i]));
        b.tensor(g.act_cols[i], cols(act, c_mlp, mlp[i]));
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
