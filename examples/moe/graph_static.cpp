// Schemes C and D: one expert tile is a template (gather, gate/up/silu launches, down launches) stamped out
// per tile of the routing. Its views differ per tile (rows, expert weights), so they are slots; chunk
// positions are constants. C: MANUAL scope, boundary gather <- route by hand. D: AUTO scope, gather's
// token rows are the boundary input (the tensormap finds route) and every down_proj output a boundary
// output (so the dynamic combine finds them).
#include <string>

#include "graph_state.h"

namespace pto::examples::moe {

using detail::ExpertTile;

ExpertTemplate build_expert_template(const MoeGraph::State& st, BoundaryMode mode) {
    const Shapes& s = st.problem.shapes();
    ExpertTemplate et;
    TemplateBuilder b(
        mode == BoundaryMode::Manual ? "moe expert tile (manual)" : "moe expert tile (tensormap)", mode);
    et.x = b.tensor_slot("x");
    et.tokens = b.tensor_slot("assign_token rows");
    et.xe = b.tensor_slot("xe rows");
    et.act = b.tensor_slot("act rows");
    et.w_gate = b.tensor_slot("w_gate[e]");
    et.w_up = b.tensor_slot("w_up[e]");
    et.w_down = b.tensor_slot("w_down[e]");
    const std::size_t g = st.gate_launches.size();
    for (std::size_t i = 0; i < g; ++i) {
        et.gate.push_back(b.tensor_slot("gate cols " + std::to_string(i)));
        et.up.push_back(b.tensor_slot("up cols " + std::to_string(i)));
        et.act_cols.push_back(b.tensor_slot("act cols " + std::to_string(i)));
    }
    for (std::size_t j = 0; j < st.down_launches.size(); ++j)
        et.down.push_back(b.tensor_slot("down cols " + std::to_string(j)));

    // Argument order as graph_args.h.
    const std::uint32_t gather =
        b.add_aiv(st.f(Op::Gather), NodeArgs().input(et.x).input(et.tokens).output(et.xe));
    const auto proj = [&](Op op, TensorSlot w, const std::vector<TensorSlot>& y, std::size_t i) {
        const Launch& l = st.gate_launches[i];
        return b.add_aic(st.f(op), NodeArgs()
                                       .input(et.xe)
                                       .input(w)
                                       .output(y[i])
                                       .scalar_value(l.chunk_base)
                                       .scalar_value(s.gate_chunk())
                                       .block_num(l.block_num));
    };
    std::vector<std::uint32_t> gate(g), up(g), silu(g);
    for (std::size_t i = 0; i < g; ++i)
        gate[i] = proj(Op::GateProj, et.w_gate, et.gate, i);
    for (std::size_t i = 0; i < g; ++i)
        up[i] = proj(Op::UpProj, et.w_up, et.up, i);
    for (std::size_t i = 0; i < g; ++i) {
        const Launch& l = st.gate_launches[i];
        silu[i] = b.add_aiv(st.f(Op::SiluMul), NodeArgs()
                                                   .input(et.gate[i])
                                                   .input(et.up[i])
                                                   .output(et.act_cols[i])
                                                   .scalar_value(l.chunk_base)
                                                   .scalar_value(s.gate_chunk())
                                                   .block_num(l.block_num));
    }
    for (std::size_t j = 0; j < st.down_launches.size(); ++j) {
        const Launch& l = st.down_launches[j];
        et.down_nodes.push_back(b.add_aic(st.f(Op::DownProj), NodeArgs()
                                                                  .input(et.act)
                                                                  .input(et.w_down)
                                                                  .output(et.down[j])
                                                                  .scalar_value(l.chunk_base)
                                                                  .scalar_value(s.down_chunk())
                                                                  .block_num(l.block_num)));
    }
    for (std::size_t i = 0; i < g; ++i) {
        b.edge(gather, gate[i]).edge(gather, up[i]).edge(gate[i], silu[i]).edge(up[i], silu[i]);
        for (const std::uint32_t d : et.down_nodes)
            b.edge(silu[i], d);
    }
    if (mode == BoundaryMode::Manual) {
        b.boundary_input(gather);
    } else {
        b.boundary_input(gather, 1);  // assign_token rows: written by route
        for (const std::uint32_t d : et.down_nodes)
            b.boundary_output(d, 2);  // read by combine
    }
    et.tpl = b.finalize();
    et.bindings.emplace(et.tpl);
    return et;
}

void MoeGraph::State::expert_tile_static(const ExpertTile& e, bool is_manual, TaskId route) {
    const Shapes& s = problem.shapes();
    const Tensors& t = problem.tensors();
    ExpertTemplate& et = is_manual ? manual : tensormap;
    Bindings& b = *et.bindings;
    // Whole tensors and slices: each view is built in place in its binding.
    const Slice rows = detail::tile_rows(e), expert = detail::expert_weight(e.expert);
    b.tensor(et.x, t.x)
        .tensor(et.tokens, t.assign_token, rows)
        .tensor(et.xe, t.xe, rows)
        .tensor(et.act, t.act, rows)
        .tensor(et.w_gate, t.w_gate, expert)
        .tensor(et.w_up, t.w_up, expert)
        .tensor(et.w_down, t.w_down, expert);
    for (std::size_t i = 0; i < gate_launches.size(); ++i) {
        const Slice columns = detail::chunk_cols(gate_launches[i], s.gate_chunk());
        b.tensor(et.gate[i], t.gate, rows, columns)
            .tensor(et.up[i], t.up, rows, columns)
            .tensor(et.act_cols[i], t.act, rows, columns);
    }
    for (std::size_t j = 0; j < down_launches.size(); ++j)
        b.tensor(et.down[j], t.down, rows, detail::chunk_cols(down_launches[j], s.down_chunk()));
    if (is_manual) b.depend(0, route);
    const Instance inst = instantiate(b);
    for (const std::uint32_t d : et.down_nodes)
        down_ids.push_back(inst.node(d));
}

}  // namespace pto::examples::moe
