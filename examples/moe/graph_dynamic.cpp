// MoeGraph::submit: the data-dependent orchestration. Router and route first; then a wait for the route
// task, whose counts decide the expert tiles; per expert tile the dynamic submits of schemes A and B (or a
// template instance, graph_static.cpp); then the combine.
#include "graph_state.h"
#include "pto/runtime/detail/throw.h"
#include "pto/scope/orchestration.h"

namespace pto::examples::moe {

using detail::ExpertTile;

MoeGraph::State::State(const Problem& p, SpmdTier t, std::uint16_t f)
    : problem(p),
      tier(t),
      first(f),
      token_launches(launches(p.shapes().token_tiles(), t)),
      gate_launches(launches(kGateChunks, t)),
      down_launches(launches(kDownChunks, t)) {
    const Shapes& s = p.shapes();
    router_ids.resize(token_launches.size());
    gate_ids.resize(gate_launches.size());
    up_ids.resize(gate_launches.size());
    silu_ids.resize(gate_launches.size());
    // At most one partial tile per expert beyond the full ones.
    down_ids.reserve((s.experts + s.assignments() / s.tile_rows + 1) * down_launches.size());
    manual = build_expert_template(*this, BoundaryMode::Manual);
    tensormap = build_expert_template(*this, BoundaryMode::Tensormap);
}

MoeGraph::MoeGraph(const Problem& problem, SpmdTier tier, std::uint16_t first_func)
    : state_(std::make_unique<State>(problem, tier, first_func)) {}
MoeGraph::~MoeGraph() = default;

bool supports(Scheme) {
    return true;
}

void MoeGraph::State::expert_tile_dynamic(const ExpertTile& e, bool is_manual, TaskId route) {
    const Shapes& s = problem.shapes();
    const Tensors& t = problem.tensors();
    Args ga;
    detail::gather_args(ga, t, e);
    if (is_manual) ga.set_dependencies(&route, 1);
    const TaskId gather = submit_aiv(f(Op::Gather), ga).task_id();
    const TaskId* after_gather = is_manual ? &gather : nullptr;
    const std::uint32_t n = is_manual ? 1 : 0;
    for (std::size_t i = 0; i < gate_launches.size(); ++i) {
        Args a;
        detail::proj_args(a, s, t.w_gate, t.gate, t, e, gate_launches[i]).set_dependencies(after_gather, n);
        gate_ids[i] = submit_aic(f(Op::GateProj), a).task_id();
    }
    for (std::size_t i = 0; i < gate_launches.size(); ++i) {
        Args a;
        detail::proj_args(a, s, t.w_up, t.up, t, e, gate_launches[i]).set_dependencies(after_gather, n);
        up_ids[i] = submit_aic(f(Op::UpProj), a).task_id();
    }
    for (std::size_t i = 0; i < gate_launches.size(); ++i) {
        const TaskId both[] = {gate_ids[i], up_ids[i]};
        Args a;
        detail::silu_args(a, s, t, e, gate_launches[i]).set_dependencies(both, is_manual ? 2 : 0);
        silu_ids[i] = submit_aiv(f(Op::SiluMul), a).task_id();
    }
    for (const Launch& l : down_launches) {
        Args a;
        detail::down_args(a, s, t, e, l)
            .set_dependencies(silu_ids.data(), is_manual ? static_cast<std::uint32_t>(silu_ids.size()) : 0);
        down_ids.push_back(submit_aic(f(Op::DownProj), a).task_id());
    }
}

void MoeGraph::submit(Scheme scheme) {
    State& st = *state_;
    const Shapes& s = st.problem.shapes();
    const Tensors& t = st.problem.tensors();
    const bool is_manual = scheme == Scheme::Manual || scheme == Scheme::StaticManual;
    const bool is_static = scheme == Scheme::StaticManual || scheme == Scheme::StaticTensormap;
    const ScopeMode mode = is_manual ? ScopeMode::Manual : ScopeMode::Auto;
    TaskId route;
    {
        ScopeGuard scope(mode);
        for (std::size_t i = 0; i < st.token_launches.size(); ++i) {
            Args a;
            st.router_ids[i] =
                submit_aiv(st.f(Op::Router), detail::router_args(a, s, t, st.token_launches[i])).task_id();
        }
        Args a;
        detail::route_args(a, t).set_dependencies(
            st.router_ids.data(), is_manual ? static_cast<std::uint32_t>(st.router_ids.size()) : 0);
        route = submit_aiv(st.f(Op::Route), a).task_id();
    }
    // The data-dependent step: the expert tiles follow the routing, so wait until route has written it.
    pto::wait(route);
    const Routing routing = st.problem.routing();
    st.down_ids.clear();
    for (std::uint32_t e = 0; e < s.experts; ++e) {
        for (std::uint32_t j = 0; j < routing.tiles(e, s.tile_rows); ++j) {
            const std::uint32_t done = j * s.tile_rows;
            const ExpertTile tile{e, routing.offset[e] + done,
                                  std::min(s.tile_rows, routing.count[e] - done)};
            ScopeGuard scope(mode);
            if (is_static)
                st.expert_tile_static(tile, is_manual, route);
            else
                st.expert_tile_dynamic(tile, is_manual, route);
        }
    }
    ScopeGuard scope(mode);
    // MANUAL: one join instead of (expert tiles x down launches) x combine launches edges.
    TaskId join;
    if (is_manual) join = submit_dependency_only(Args().set_dependencies(st.down_ids)).task_id();
    for (const Launch& l : st.token_launches) {
        Args a;
        detail::combine_args(a, s, t, l).set_dependencies(&join, is_manual ? 1 : 0);
        submit_aiv(st.f(Op::Combine), a);
    }
}

}  // namespace pto::examples::moe
