// The per-group static templates of schemes C and D (docs/design/static-graph.md,
// docs/design/reference-graphs.md): QK -> SF -> PV -> UP as one template per boundary mode and group position
// (only / first / middle / last group of a scope), since the first group only writes the running state and
// the last one also writes the output. Built once per Problem by make_group_templates (graph_static.cpp).
// Private to examples/paged_attention.
#pragma once

#include <cstdint>
#include <optional>

#include "problem_impl.h"
#include "pto/static_graph/instance.h"
#include "pto/static_graph/template.h"

namespace pto::examples::paged_attention {

/// GroupPosition: which online_update arguments a group has (group_args.h, online_update_args).
enum class GroupPosition : std::uint8_t {
    Only,    ///< first and last: writes m_run, l_run, oi and out
    First,   ///< writes m_run, l_run, oi
    Middle,  ///< reads and rewrites m_run, l_run, oi
    Last,    ///< reads and rewrites them, writes out
};
inline constexpr std::uint32_t kGroupPositions = 4;

[[nodiscard]] inline GroupPosition position_of(const GroupDesc& g) {
    if (g.is_first) return g.is_last ? GroupPosition::Only : GroupPosition::First;
    return g.is_last ? GroupPosition::Last : GroupPosition::Middle;
}

/// GroupLayout: the slots every group template declares, in the same order (so one layout serves all).
/// The four kernels are nodes 0 (QK), 1 (SF), 2 (PV) and 3 (UP).
struct GroupLayout {
    TensorSlot query, key, value, table;  // per scope: q[b, tile], K / V of the KV head, block_table[b]
    TensorSlot sij, pij, mi, li, oi_new;  // per group: slices g of the scope's scratch
    TensorSlot m_run, l_run, oi;          // per scope: the running state
    TensorSlot out;                       // per scope: out[b, tile] (last-group templates only)
    ScalarSlot first_block, block_count, valid_tokens;
};
inline constexpr std::uint32_t kQkNode = 0, kSoftmaxNode = 1, kPvNode = 2, kUpdateNode = 3;

/// GroupBody: one finalised template and the bindings its instances are stamped from.
struct GroupBody {
    Template tpl;
    std::optional<Bindings> bindings;
};

/// GroupTemplates: per boundary mode, one body per GroupPosition.
///   C (manual): internal edges QK->SF->PV->UP; UP is the boundary node, given the previous group's UP
///      and, in the last group, the scope's alloc task (scheme A's edges exactly).
///   D (tensormap): internal edges add SF->UP (UP reads mi, li), as discovery finds; the boundary inputs
///      are the scratch outputs of QK, SF, PV (whose only earlier accessor is the alloc, found as their
///      creator) and UP's running state (the previous group's UP); the running state is recorded for
///      the next group, the output by the last one.
struct GroupTemplates {
    GroupLayout slots;
    GroupBody manual[kGroupPositions];
    GroupBody tensormap[kGroupPositions];
};

}  // namespace pto::examples::paged_attention
