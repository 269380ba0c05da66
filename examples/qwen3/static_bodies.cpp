// Building the templates of schemes C and D (docs/design/static-graph.md): each body's nodes with the
// arguments of launch_args.h (weights and per-tier constants baked in, everything per tile / row as a slot),
// its internal edges (exactly the rules of docs/design/reference-graphs.md inside one tile / row) and its
// boundary declarations. Cold: runs once per DecodeGraph.
#include "static_bodies.h"

#include <string>

#include "pto/runtime/detail/throw.h"

namespace pto::examples::qwen3 {
namespace {

/// add_op: appends the kernel node of `op` (AIC, AIV or MIX with its three lanes).
std::uint32_t add_op(TemplateBuilder& b, const DecodeGraph::State& st, Op op, NodeArgs& a) {
    a.label(to_string(op));
    const FuncId f = st.funcs[func_id(op).value];
    switch (op_info(op).core) {
        case CoreType::AIC:
            return b.add_aic(f, a);
        case CoreType::AIV:
            return b.add_aiv(f, a);
        default:
            return b.add_mix(f, st.funcs[func_id(op, 1).value], st.funcs[func_id(op, 2).value], a);
    }
}

std::string indexed(const char* name, std::size_t i) {
    return name + std::to_string(i);
}

/// projection: the node of one q/k/v/gate/up/down launch (projection_args): reads `in` and a constant
/// weight, writes `out`; scalars chunk_base and the chunk size.
NodeArgs projection(TensorSlot in, const TensorView& weight, TensorSlot out, Launch l, std::uint32_t c) {
    NodeArgs a;
    a.input(in).input(weight).output(out).scalar_value(l.chunk_base).scalar_value(c).block_num(l.block_num);
    return a;
}

//   rmsnorm ─► q_proj[i] ────────────┐
//           ├► k_proj[i] ────────────┴► qk_norm        (boundary outputs in D: qk_norm's q_normed and
//           └► v_proj[i]                                k_normed, every v_proj's v columns)
Template build_g1(const DecodeGraph::State& st, BoundaryMode mode, G1Layout& g) {
    const Problem& p = *st.problem;
    const Tensors& t = p.tensors();
    const Shapes& s = p.shapes();
    TemplateBuilder b(mode == BoundaryMode::Manual ? "qwen3_g1_manual" : "qwen3_g1_tensormap", mode);
    g = G1Layout{};
    g.x = b.tensor_slot("x");
    g.x_norm = b.tensor_slot("x_norm");
    g.q = b.tensor_slot("q");
    g.k = b.tensor_slot("k");
    g.q_normed = b.tensor_slot("q_normed");
    g.k_normed = b.tensor_slot("k_normed");

    NodeArgs rms;
    rms.input(g.x).input(t.rms_weight).output(g.x_norm).scalar_value(0u);
    const std::uint32_t norm = add_op(b, st, Op::RmsNorm, rms);

    std::vector<std::uint32_t> qk_producers;
    const std::uint32_t cq = s.chunk_size(Op::QProj);
    for (const Launch& l : st.of(Op::QProj)) {
        g.q_out.push_back(b.tensor_slot(indexed("q_out", g.q_out.size())));
        NodeArgs a = projection(g.x_norm, t.wq, g.q_out.back(), l, cq);
        qk_producers.push_back(add_op(b, st, Op::QProj, a));
        b.edge(norm, qk_producers.back());
    }
    // k and v interleaved, as the dynamic builder emits them.
    const std::uint32_t ck = s.chunk_size(Op::KProj), cv = s.chunk_size(Op::VProj);
    const std::vector<Launch>& kv = st.of(Op::KProj);
    for (std::size_t i = 0; i < kv.size(); ++i) {
        g.k_out.push_back(b.tensor_slot(indexed("k_out", i)));
        NodeArgs ka = projection(g.x_norm, t.wk, g.k_out.back(), kv[i], ck);
        qk_producers.push_back(add_op(b, st, Op::KProj, ka));
        b.edge(norm, qk_producers.back());
        g.v_out.push_back(b.tensor_slot(indexed("v_out", i)));
        NodeArgs va = projection(g.x_norm, t.wv, g.v_out.back(), st.of(Op::VProj)[i], cv);
        g.v_nodes.push_back(add_op(b, st, Op::VProj, va));
        b.edge(norm, g.v_nodes.back());
    }

    NodeArgs qk;
    qk.input(g.q).input(g.k).input(t.q_norm_weight).input(t.k_norm_weight);
    qk.output(g.q_normed).output(g.k_normed).scalar_value(0u);
    g.qk_norm_node = add_op(b, st, Op::QkNorm, qk);
    for (std::uint32_t producer : qk_producers)
        b.edge(producer, g.qk_norm_node);

    if (mode == BoundaryMode::Tensormap) {
        b.boundary_output(g.qk_norm_node, g.q_normed).boundary_output(g.qk_norm_node, g.k_normed);
        for (std::size_t i = 0; i < g.v_nodes.size(); ++i)
            b.boundary_output(g.v_nodes[i], g.v_out[i]);
    }
    return b.finalize();
}

//   rope ─► qk[i] ─► softmax[i] ─► sv[i] ─► online[i]     rope ─► sv[i], softmax[i] ─► online[i]
//   boundary: rope <- qk_norm(t) + every v_proj(t); online[i] is what out_proj of tile t waits for
Template build_g2(const DecodeGraph::State& st, BoundaryMode mode, G2Layout& g) {
    const Problem& p = *st.problem;
    const Tensors& t = p.tensors();
    const Shapes& s = p.shapes();
    TemplateBuilder b(mode == BoundaryMode::Manual ? "qwen3_g2_manual" : "qwen3_g2_tensormap", mode);
    g = G2Layout{};
    g.q_normed = b.tensor_slot("q_normed");
    g.k_normed = b.tensor_slot("k_normed");
    g.v = b.tensor_slot("v");
    g.q_rope = b.tensor_slot("q_rope");
    g.k_new = b.tensor_slot("k_new");
    g.v_new = b.tensor_slot("v_new");
    g.pos = b.scalar_slot("pos");

    NodeArgs ra;
    ra.input(g.q_normed).input(g.k_normed).input(g.v).input(t.rope_cos).input(t.rope_sin);
    ra.output(g.q_rope).output(g.k_new).output(g.v_new).scalar_value(0u).scalar(g.pos);
    const std::uint32_t rope = add_op(b, st, Op::RopeKvCache, ra);

    const std::vector<Launch>& att = st.of(Op::QkMatmul);
    for (std::size_t i = 0; i < att.size(); ++i) {
        const Launch l = att[i];
        G2Layout::Attention a;
        a.q_rope = b.tensor_slot(indexed("q_rope_heads", i));
        a.k_cache = b.tensor_slot(indexed("k_cache", i));
        a.scores = b.tensor_slot(indexed("scores", i));
        a.probs = b.tensor_slot(indexed("probs", i));
        a.block_max = b.tensor_slot(indexed("block_max", i));
        a.block_sum = b.tensor_slot(indexed("block_sum", i));
        a.v_cache = b.tensor_slot(indexed("v_cache", i));
        a.o_part = b.tensor_slot(indexed("o_part", i));
        a.attn = b.tensor_slot(indexed("attn", i));

        NodeArgs qa;
        qa.input(a.q_rope)
            .input(a.k_cache)
            .output(a.scores)
            .scalar_value(l.chunk_base)
            .block_num(l.block_num);
        const std::uint32_t qk = add_op(b, st, Op::QkMatmul, qa);
        NodeArgs sa;
        sa.input(a.scores).output(a.probs).output(a.block_max).output(a.block_sum);
        sa.scalar_value(l.chunk_base).scalar_value(s.kv_block).block_num(l.block_num);
        const std::uint32_t sm = add_op(b, st, Op::Softmax, sa);
        NodeArgs va;
        va.input(a.probs).input(a.v_cache).output(a.o_part);
        va.scalar_value(l.chunk_base).scalar_value(s.kv_block).block_num(l.block_num);
        const std::uint32_t sv = add_op(b, st, Op::SvMatmul, va);
        NodeArgs oa;
        oa.input(a.o_part).input(a.block_max).input(a.block_sum).output(a.attn);
        oa.scalar_value(l.chunk_base).block_num(l.block_num);
        a.online_node = add_op(b, st, Op::OnlineSoftmax, oa);

        b.edge(rope, qk)
            .edge(qk, sm)
            .edge(rope, sv)
            .edge(sm, sv)
            .edge(sv, a.online_node)
            .edge(sm, a.online_node);
        if (mode == BoundaryMode::Tensormap) b.boundary_output(a.online_node, a.attn);
        g.attention.push_back(a);
    }
    if (mode == BoundaryMode::Manual)
        b.boundary_input(rope);
    else
        b.boundary_input(rope, g.q_normed).boundary_input(rope, g.k_normed).boundary_input(rope, g.v);
    return b.finalize();
}

//   out_proj[j] ─► post_rmsnorm ─► gate[i], up[i] ─► silu[i] ─► down[j] ─► down_res[j]
//        └──────────────────────────────────────────────────────────────────────┘
//   boundary: out_proj[j] <- every online_softmax of every valid row of the tile
Template build_g3(const DecodeGraph::State& st, BoundaryMode mode, G3Layout& g) {
    const Problem& p = *st.problem;
    const Tensors& t = p.tensors();
    const Shapes& s = p.shapes();
    TemplateBuilder b(mode == BoundaryMode::Manual ? "qwen3_g3_manual" : "qwen3_g3_tensormap", mode);
    g = G3Layout{};
    g.attn = b.tensor_slot("attn");
    g.h1 = b.tensor_slot("h1");
    g.h1_norm = b.tensor_slot("h1_norm");
    g.act = b.tensor_slot("act");

    // One slot per column range serves both its writer and its same-index reader: h1 columns j
    // (out_proj j, down_proj_residual j), gate / up columns i (gate i / up i, silu i), down columns j.
    const std::vector<Launch>& outs = st.of(Op::OutProjResidual);
    const std::uint32_t c_out = s.chunk_size(Op::OutProjResidual);
    std::vector<std::uint32_t>& out_nodes = g.out_proj_nodes;
    for (std::size_t j = 0; j < outs.size(); ++j) {
        g.x_cols.push_back(b.tensor_slot(indexed("x_cols", j)));
        g.h1_cols.push_back(b.tensor_slot(indexed("h1_cols", j)));
        NodeArgs a;
        a.input(g.attn).input(t.wo).input(g.x_cols.back()).output(g.h1_cols.back());
        a.scalar_value(outs[j].chunk_base).scalar_value(c_out).block_num(outs[j].block_num);
        out_nodes.push_back(add_op(b, st, Op::OutProjResidual, a));
    }
    NodeArgs pa;
    pa.input(g.h1).input(t.post_rms_weight).output(g.h1_norm).scalar_value(0u);
    const std::uint32_t post = add_op(b, st, Op::PostRmsNorm, pa);
    for (std::uint32_t o : out_nodes)
        b.edge(o, post);

    const std::vector<Launch>& mlp = st.of(Op::GateProj);
    const std::uint32_t c_mlp = s.chunk_size(Op::GateProj);
    std::vector<std::uint32_t> silu_nodes;
    for (std::size_t i = 0; i < mlp.size(); ++i) {
        g.gate_cols.push_back(b.tensor_slot(indexed("gate_cols", i)));
        g.up_cols.push_back(b.tensor_slot(indexed("up_cols", i)));
        g.act_cols.push_back(b.tensor_slot(indexed("act_cols", i)));
        NodeArgs ga = projection(g.h1_norm, t.w_gate, g.gate_cols.back(), mlp[i], c_mlp);
        const std::uint32_t gate = add_op(b, st, Op::GateProj, ga);
        NodeArgs ua = projection(g.h1_norm, t.w_up, g.up_cols.back(), mlp[i], c_mlp);
        const std::uint32_t up = add_op(b, st, Op::UpProj, ua);
        NodeArgs sa;
        sa.input(g.gate_cols.back()).input(g.up_cols.back()).output(g.act_cols.back());
        sa.scalar_value(mlp[i].chunk_base).scalar_value(c_mlp).block_num(mlp[i].block_num);
        silu_nodes.push_back(add_op(b, st, Op::Silu, sa));
        b.edge(post, gate).edge(post, up).edge(gate, silu_nodes.back()).edge(up, silu_nodes.back());
    }

    const std::vector<Launch>& downs = st.of(Op::DownProj);
    const std::uint32_t c_down = s.chunk_size(Op::DownProj);
    for (std::size_t j = 0; j < downs.size(); ++j) {
        g.down_cols.push_back(b.tensor_slot(indexed("down_cols", j)));
        g.out_cols.push_back(b.tensor_slot(indexed("out_cols", j)));
        NodeArgs da = projection(g.act, t.w_down, g.down_cols.back(), downs[j], c_down);
        const std::uint32_t down = add_op(b, st, Op::DownProj, da);
        for (std::uint32_t silu : silu_nodes)
            b.edge(silu, down);
        NodeArgs ra;
        ra.input(g.down_cols.back()).input(g.h1_cols[j]).output(g.out_cols.back());
        ra.scalar_value(downs[j].chunk_base).scalar_value(c_down).block_num(downs[j].block_num);
        const std::uint32_t res = add_op(b, st, Op::DownProjResidual, ra);
        b.edge(down, res).edge(out_nodes[j], res);
        if (mode == BoundaryMode::Tensormap) b.boundary_output(res, g.out_cols.back());
    }
    for (std::uint32_t o : out_nodes)
        if (mode == BoundaryMode::Manual)
            b.boundary_input(o);
        else
            b.boundary_input(o, g.attn);
    return b.finalize();
}

}  // namespace

void StaticBodiesDeleter::operator()(StaticBodies* bodies) const {
    delete bodies;
}

std::unique_ptr<StaticBodies, StaticBodiesDeleter> make_static_bodies(const DecodeGraph::State& st) {
    const Shapes& s = st.problem->shapes();
    // The shared slots of G3 rely on same-index launches covering the same columns
    // (docs/design/reference-graphs.md).
    if (s.chunk_size(Op::OutProjResidual) != s.chunk_size(Op::DownProjResidual) ||
        s.chunk_size(Op::DownProj) != s.chunk_size(Op::DownProjResidual) ||
        s.chunk_size(Op::GateProj) != s.chunk_size(Op::Silu) ||
        s.chunk_size(Op::UpProj) != s.chunk_size(Op::Silu))
        detail::throw_error(ErrorCode::InvalidArgument,
                            "qwen3 static templates: paired operators must split their columns alike");
    std::unique_ptr<StaticBodies, StaticBodiesDeleter> bodies(new StaticBodies);
    StaticBodies& b = *bodies;
    for (const BoundaryMode mode : {BoundaryMode::Manual, BoundaryMode::Tensormap}) {
        Body* body = mode == BoundaryMode::Manual ? b.manual : b.tensormap;
        body[0].tpl = build_g1(st, mode, b.g1);
        body[1].tpl = build_g2(st, mode, b.g2);
        body[2].tpl = build_g3(st, mode, b.g3);
        for (int i = 0; i < 3; ++i)
            body[i].bindings.emplace(body[i].tpl);
    }
    return bodies;
}

}  // namespace pto::examples::qwen3
