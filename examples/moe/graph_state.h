// MoeGraph::State: what one graph precomputes (launch lists, id storage, the expert-tile templates of
// schemes C and D with their bindings) so that submit allocates nothing per call.
#pragma once

#include <optional>
#include <vector>

#include "graph_args.h"
#include "pto/examples/moe.h"
#include "pto/static_graph/instance.h"
#include "pto/static_graph/template.h"

namespace pto::examples::moe {

/// ExpertTemplate: the expert tile as a template: node 0 gather, then gate_proj, up_proj and silu_mul
/// launches (one node each), then the down_proj launches; slots for every view that changes per tile.
struct ExpertTemplate {
    Template tpl;
    std::optional<Bindings> bindings;
    TensorSlot x, tokens, xe, act, w_gate, w_up, w_down;
    std::vector<TensorSlot> gate, up, act_cols, down;  // one per gate (down) launch
    std::vector<std::uint32_t> down_nodes;
};

struct MoeGraph::State {
    State(const Problem& p, SpmdTier t, std::uint16_t f);

    const Problem& problem;
    SpmdTier tier;
    std::uint16_t first;
    std::vector<Launch> token_launches;  // router and combine
    std::vector<Launch> gate_launches;   // gate, up, silu
    std::vector<Launch> down_launches;
    std::vector<TaskId> router_ids, gate_ids, up_ids, silu_ids, down_ids;
    ExpertTemplate manual, tensormap;  // schemes C and D

    [[nodiscard]] FuncId f(Op op) const { return func_id(op, first); }
    /// expert_tile_dynamic: one expert tile by submits (A, B); appends its down_proj ids to down_ids.
    void expert_tile_dynamic(const detail::ExpertTile& e, bool manual, TaskId route);
    /// expert_tile_static: one expert tile as a template instance (C, D).
    void expert_tile_static(const detail::ExpertTile& e, bool manual, TaskId route);
};

/// build_expert_template: the template of schemes C (Manual) and D (Tensormap) for `state`'s tier.
ExpertTemplate build_expert_template(const MoeGraph::State& state, BoundaryMode mode);

}  // namespace pto::examples::moe
