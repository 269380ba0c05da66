// Schemes A and B of the Qwen3 decode layer (docs/design/reference-graphs.md): the same submission loop, once
// with PTO2_SCOPE(MANUAL) and the rule's explicit edges, once with PTO2_SCOPE() and edges discovered from the
// tensors of launch_args.h. Scope 1 per tile, Scope 2 per batch row, Scope 3 per tile, in that order.
// Also DecodeGraph itself (construction, scheme dispatch); C and D live in graph_static.cpp.
//
//   Scope 1, tile t              Scope 2, row b of tile t = b / 16       Scope 3, tile t
//   rmsnorm                      rope_kv_cache <- qk_norm(t), all v(t)   out_proj[j] <- online of t's rows
//   q_proj[i] <- rmsnorm         for each attention launch i:            post_rmsnorm <- all out_proj
//   k_proj[i] <- rmsnorm           qk[i] <- rope                         gate[i], up[i] <- post_rmsnorm
//   v_proj[i] <- rmsnorm           softmax[i] <- qk[i]                   silu[i] <- gate[i], up[i]
//   qk_norm <- all q, all k        sv[i] <- rope, softmax[i]             down[j] <- all silu
//                                  online[i] <- sv[i], softmax[i]        down_res[j] <- down[j], out_proj[j]
#include <span>
#include <string>
#include <vector>

#include "decode_graph_state.h"
#include "launch_args.h"
#include "pto/examples/qwen3.h"
#include "pto/runtime/detail/throw.h"
#include "pto/scope/orchestration.h"

namespace pto::examples::qwen3 {

TaskId DecodeGraph::State::submit_op(Op op, Args& a, std::span<const TaskId> deps) const {
    if (manual && !deps.empty()) a.set_dependencies(deps);
    const FuncId f = funcs[func_id(op).value];
    switch (op_info(op).core) {
        case CoreType::AIC:
            return submit_aic(f, a).task_id();
        case CoreType::AIV:
            return submit_aiv(f, a).task_id();
        default:
            return submit_mix(f, funcs[func_id(op, 1).value], funcs[func_id(op, 2).value], a).task_id();
    }
}

namespace {

/// in_scope: runs `body` in a manual or an AUTO scope; the body is the same for both schemes.
template <class Body>
void in_scope(bool manual, Body&& body) {
    if (manual) {
        PTO2_SCOPE(MANUAL) {
            body();
        }
    } else {
        PTO2_SCOPE() {
            body();
        }
    }
}

}  // namespace

void DecodeGraph::State::scope1_tile(std::uint32_t tile) {
    const Problem& p = *problem;
    Args rms;
    rmsnorm_args(p, tile, rms);
    const TaskId norm = submit_op(Op::RmsNorm, rms, {});

    std::size_t n = 0;
    for (const Launch& l : of(Op::QProj)) {
        Args a;
        projection_args(Op::QProj, p, tile, l, a);
        qk_deps[n++] = submit_op(Op::QProj, a, {norm});
    }
    // k and v launches interleaved (docs/design/reference-graphs.md emission order); both split kv_hidden
    // into the same chunks.
    TaskId* v_ids = rope_deps.data() + tile * rope_stride() + 1;
    std::size_t v = 0;
    for (const Launch& l : of(Op::KProj)) {
        Args ka;
        projection_args(Op::KProj, p, tile, l, ka);
        qk_deps[n++] = submit_op(Op::KProj, ka, {norm});
        Args va;
        projection_args(Op::VProj, p, tile, l, va);
        v_ids[v++] = submit_op(Op::VProj, va, {norm});
    }
    Args qk;
    qk_norm_args(p, tile, qk);
    rope_deps[tile * rope_stride()] = submit_op(Op::QkNorm, qk, std::span<const TaskId>(qk_deps.data(), n));
}

void DecodeGraph::State::scope2_row(std::uint32_t row) {
    const Problem& p = *problem;
    const std::uint32_t tile = row / p.shapes().tile_rows;
    Args ra;
    rope_kv_cache_args(p, row, ra);
    const TaskId rope = submit_op(Op::RopeKvCache, ra, tile_rope_deps(tile));

    const std::vector<Launch>& att = of(Op::QkMatmul);
    TaskId* online_ids = online.data() + static_cast<std::size_t>(row) * att.size();
    for (std::size_t i = 0; i < att.size(); ++i) {
        Args qa;
        qk_matmul_args(p, row, att[i], qa);
        const TaskId qk = submit_op(Op::QkMatmul, qa, {rope});
        Args sa;
        softmax_args(p, row, att[i], sa);
        const TaskId sm = submit_op(Op::Softmax, sa, {qk});
        Args va;
        sv_matmul_args(p, row, att[i], va);
        const TaskId sv = submit_op(Op::SvMatmul, va, {rope, sm});
        Args oa;
        online_softmax_args(p, row, att[i], oa);
        online_ids[i] = submit_op(Op::OnlineSoftmax, oa, {sv, sm});
    }
}

void DecodeGraph::State::scope3_tile(std::uint32_t tile) {
    const Problem& p = *problem;
    // Every online_softmax launch of every valid row of the tile: contiguous in `online`.
    const std::span<const TaskId> attention = tile_online(tile);

    const std::vector<Launch>& outs = of(Op::OutProjResidual);
    for (std::size_t j = 0; j < outs.size(); ++j) {
        Args a;
        out_proj_residual_args(p, tile, outs[j], a);
        out_proj[j] = submit_op(Op::OutProjResidual, a, attention);
    }
    Args pa;
    post_rmsnorm_args(p, tile, pa);
    const TaskId post = submit_op(Op::PostRmsNorm, pa, std::span<const TaskId>(out_proj.data(), outs.size()));

    // gate, up and silu interleaved per launch index (all three split intermediate alike).
    const std::vector<Launch>& mlp = of(Op::GateProj);
    for (std::size_t i = 0; i < mlp.size(); ++i) {
        Args ga;
        projection_args(Op::GateProj, p, tile, mlp[i], ga);
        const TaskId gate = submit_op(Op::GateProj, ga, {post});
        Args ua;
        projection_args(Op::UpProj, p, tile, mlp[i], ua);
        const TaskId up = submit_op(Op::UpProj, ua, {post});
        Args sa;
        silu_args(p, tile, mlp[i], sa);
        silu[i] = submit_op(Op::Silu, sa, {gate, up});
    }
    // down and down_residual interleaved; down_residual j adds the h1 columns out_proj launch j wrote.
    const std::vector<Launch>& downs = of(Op::DownProj);
    for (std::size_t j = 0; j < downs.size(); ++j) {
        Args da;
        projection_args(Op::DownProj, p, tile, downs[j], da);
        const TaskId down = submit_op(Op::DownProj, da, std::span<const TaskId>(silu.data(), mlp.size()));
        Args ra;
        down_proj_residual_args(p, tile, downs[j], ra);
        (void)submit_op(Op::DownProjResidual, ra, {down, out_proj[j]});
    }
}

DecodeGraph::DecodeGraph(const Problem& problem, SpmdTier tier, std::uint16_t first_func)
    : state_(std::make_unique<State>()) {
    State& st = *state_;
    st.problem = &problem;
    st.tier = tier;
    for (std::uint16_t i = 0; i < kFuncIdCount; ++i)
        st.funcs[i] = FuncId{static_cast<std::uint16_t>(first_func + i)};
    for (std::uint32_t i = 0; i < kOpCount; ++i)
        st.launches[i] = launches(op_info(static_cast<Op>(i)).chunks, tier);
    const Shapes& s = problem.shapes();
    st.qk_deps.resize(st.of(Op::QProj).size() + st.of(Op::KProj).size());
    st.rope_deps.resize(s.tiles() * st.rope_stride());
    st.online.resize(static_cast<std::size_t>(s.batch_padded()) * st.of(Op::OnlineSoftmax).size());
    st.out_proj.resize(st.of(Op::OutProjResidual).size());
    st.silu.resize(st.of(Op::Silu).size());
    // The pairings the emission order relies on: same-index launches cover the same chunks.
    PTO_ASSERT(st.of(Op::KProj).size() == st.of(Op::VProj).size(), "k and v launches pair up");
    PTO_ASSERT(st.of(Op::OutProjResidual).size() == st.of(Op::DownProjResidual).size(), "out/down pair up");
    st.bodies = make_static_bodies(st);
}

DecodeGraph::~DecodeGraph() = default;

void DecodeGraph::submit(Scheme scheme) {
    State& st = *state_;
    // Fake addresses are PROT_NONE: the first compute kernel would crash instead of failing cleanly.
    if (current_runtime().config().executor == Executor::Compute && !st.problem->has_memory())
        detail::throw_error(
            ErrorCode::InvalidArgument,
            "qwen3 DecodeGraph::submit: the compute executor runs the kernels on the tensors, but "
            "this problem has fake addresses; use Problem::with_memory (e.g. Shapes::reduced())");
    st.manual = scheme == Scheme::Manual || scheme == Scheme::StaticManual;
    if (scheme == Scheme::StaticManual || scheme == Scheme::StaticTensormap) {
        submit_static(st, st.manual);
        return;
    }
    const Shapes& s = st.problem->shapes();
    // One scope per tile / row and none around them: a scope's tasks cannot retire before it ends, so
    // the largest scope (Scope 3 at non-spmd, 223 launches) bounds the window the graph needs.
    for (std::uint32_t t = 0; t < s.tiles(); ++t)
        in_scope(st.manual, [&] { st.scope1_tile(t); });
    for (std::uint32_t b = 0; b < s.batch; ++b)
        in_scope(st.manual, [&] { st.scope2_row(b); });
    for (std::uint32_t t = 0; t < s.tiles(); ++t)
        in_scope(st.manual, [&] { st.scope3_tile(t); });
}

SpmdTier DecodeGraph::tier() const {
    return state_->tier;
}
const Problem& DecodeGraph::problem() const {
    return *state_->problem;
}
LaunchCounts DecodeGraph::counts() const {
    return expected_launches(state_->problem->shapes(), state_->tier);
}

bool supports(Scheme scheme) {
    switch (scheme) {
        case Scheme::Manual:
        case Scheme::Tensormap:
        case Scheme::StaticManual:
        case Scheme::StaticTensormap:
            return true;
    }
    return false;
}

void build(const Problem& problem, Scheme scheme, SpmdTier tier, std::uint16_t first_func) {
    // A temporary graph dies before the run ends, while static instances still point at its templates.
    if (scheme == Scheme::StaticManual || scheme == Scheme::StaticTensormap)
        detail::throw_error(ErrorCode::InvalidArgument,
                            "qwen3 build: scheme " + std::string(1, letter(scheme)) + " (" +
                                std::string(to_string(scheme)) +
                                ") instantiates templates that must outlive the run; construct a DecodeGraph "
                                "before pto::run and call DecodeGraph::submit");
    DecodeGraph(problem, tier, first_func).submit(scheme);
}

}  // namespace pto::examples::qwen3
