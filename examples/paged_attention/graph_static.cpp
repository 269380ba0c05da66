// Schemes C and D of the paged-attention graph (docs/design/static-graph.md,
// docs/design/reference-graphs.md): the scope's alloc stays a dynamic task (templates hold no alloc nodes),
// then each group is one instance of the group template of its position, bound to the group's views
// (group_views.h, the same ones schemes A and B pass). C links instances by hand in a MANUAL scope, D through
// the tensormap at the declared boundaries in an AUTO scope.
//
//   alloc (dynamic)     instance g:  QK --> SF --> PV --> UP      C: UP(g) <- UP(g-1); UP(G-1) <- alloc
//                                           \___ D only ___^      D: discovered (see group_templates.h)
#include <string>

#include "group_templates.h"
#include "group_views.h"
#include "pto/scope/orchestration.h"

namespace pto::examples::paged_attention {
namespace {

constexpr const char* kPositionNames[kGroupPositions] = {"only", "first", "middle", "last"};

Template build_group(const Shape& shape, BoundaryMode mode, GroupPosition position, GroupLayout& g) {
    const bool manual = mode == BoundaryMode::Manual;
    const bool first = position == GroupPosition::Only || position == GroupPosition::First;
    const bool last = position == GroupPosition::Only || position == GroupPosition::Last;
    TemplateBuilder b(std::string("paged_attention_group_") + (manual ? "manual_" : "tensormap_") +
                          kPositionNames[static_cast<int>(position)],
                      mode);
    g.query = b.tensor_slot("query");
    g.key = b.tensor_slot("key");
    g.value = b.tensor_slot("value");
    g.table = b.tensor_slot("block_table");
    g.sij = b.tensor_slot("sij");
    g.pij = b.tensor_slot("pij");
    g.mi = b.tensor_slot("mi");
    g.li = b.tensor_slot("li");
    g.oi_new = b.tensor_slot("oi_new");
    g.m_run = b.tensor_slot("m_run");
    g.l_run = b.tensor_slot("l_run");
    g.oi = b.tensor_slot("oi");
    g.out = b.tensor_slot("out");
    g.first_block = b.scalar_slot("first_block");
    g.block_count = b.scalar_slot("block_count");
    g.valid_tokens = b.scalar_slot("valid_tokens");

    // The arguments of group_args.cpp, argument for argument.
    NodeArgs qk;
    qk.input(g.query).input(g.key).input(g.table).output(g.sij);
    qk.scalar(g.first_block).scalar(g.block_count).scalar(g.valid_tokens).label("qk_matmul");
    NodeArgs sf;
    sf.input(g.sij).output(g.pij).output(g.mi).output(g.li);
    sf.scalar(g.valid_tokens).scalar_value(softmax_scale(shape)).label("softmax_prepare");
    NodeArgs pv;
    pv.input(g.pij).input(g.value).input(g.table).output(g.oi_new);
    pv.scalar(g.first_block).scalar(g.block_count).scalar(g.valid_tokens).label("pv_matmul");
    NodeArgs up;
    up.input(g.mi).input(g.li).input(g.oi_new);
    if (first)
        up.output(g.m_run).output(g.l_run).output(g.oi);
    else
        up.inout(g.m_run).inout(g.l_run).inout(g.oi);
    if (last) up.output(g.out);
    up.scalar_value(static_cast<std::uint32_t>(first)).scalar_value(static_cast<std::uint32_t>(last));
    up.label("online_update");

    b.add_aic(kQkMatmul, qk);
    b.add_aiv(kSoftmaxPrepare, sf);
    b.add_aic(kPvMatmul, pv);
    b.add_aiv(kOnlineUpdate, up);
    b.edge(kQkNode, kSoftmaxNode).edge(kSoftmaxNode, kPvNode).edge(kPvNode, kUpdateNode);
    if (manual) {
        b.boundary_input(kUpdateNode);
    } else {
        // What discovery finds inside a group: online_update also reads mi and li.
        b.edge(kSoftmaxNode, kUpdateNode);
        // Each kernel's first write to the scope's scratch meets only the alloc (its creator): the
        // lookups that give B's alloc -> kernel edges. UP's running state meets the previous group's UP.
        b.boundary_input(kQkNode, g.sij)
            .boundary_input(kSoftmaxNode, g.pij)
            .boundary_input(kPvNode, g.oi_new);
        b.boundary_input(kUpdateNode, g.m_run)
            .boundary_input(kUpdateNode, g.l_run)
            .boundary_input(kUpdateNode, g.oi);
        if (last)
            b.boundary_output(kUpdateNode, g.out);
        else
            b.boundary_output(kUpdateNode, g.m_run)
                .boundary_output(kUpdateNode, g.l_run)
                .boundary_output(kUpdateNode, g.oi);
    }
    return b.finalize();
}

/// build_scope: one (sequence, head tile) scope: the dynamic alloc, then one instance per group.
template <bool kManual>
void build_scope(const Problem& p, const ScopeDesc& s, GroupBody* bodies, const GroupLayout& slots,
                 ScratchRequest& scratch) {
    const Shape& shape = p.shape();
    const TaskHandle alloc = alloc_tensors(scratch.infos(shape, s.group_count));
    const ScopeTensors t = scope_tensors(alloc);
    // Views bound as whole tensors and slices, so each is built in place in its binding.
    const TileSlices tile = tile_slices(s);
    const Slice head = head_slice(s);
    Instance previous;
    for (std::uint32_t group = 0; group < s.group_count; ++group) {
        const GroupDesc g = group_desc(shape, s, group);
        Bindings& b = *bodies[static_cast<int>(position_of(g))].bindings;
        b.tensor(slots.query, p.query(), tile.row, tile.heads)
            .tensor(slots.key, p.key_cache(), head)
            .tensor(slots.value, p.value_cache(), head)
            .tensor(slots.table, p.block_table(), table_row_slice(s));
        const Slice in_group = group_slice(group);
        b.tensor(slots.sij, t.sij, in_group)
            .tensor(slots.pij, t.pij, in_group)
            .tensor(slots.mi, t.mi, in_group)
            .tensor(slots.li, t.li, in_group)
            .tensor(slots.oi_new, t.oi_new, in_group);
        b.tensor(slots.m_run, t.m_run).tensor(slots.l_run, t.l_run).tensor(slots.oi, t.oi);
        if (g.is_last) b.tensor(slots.out, p.out(), tile.row, tile.heads);
        b.scalar(slots.first_block, g.first_block)
            .scalar(slots.block_count, g.block_count)
            .scalar(slots.valid_tokens, g.valid_tokens);
        if constexpr (kManual) {
            // Scheme A's boundary edges: the running state's previous writer, and the alloc for the last
            // group (every other task of the scope is its ancestor, so the scratch outlives every reader).
            if (!g.is_first) b.depend(kUpdateNode, previous.node(kUpdateNode));
            if (g.is_last) b.depend(kUpdateNode, alloc.task_id());
        }
        previous = instantiate(b);
    }
}

}  // namespace

void GroupTemplatesDeleter::operator()(GroupTemplates* t) const {
    delete t;
}

std::unique_ptr<GroupTemplates, GroupTemplatesDeleter> make_group_templates(const Shape& shape) {
    std::unique_ptr<GroupTemplates, GroupTemplatesDeleter> t(new GroupTemplates);
    for (const BoundaryMode mode : {BoundaryMode::Manual, BoundaryMode::Tensormap}) {
        GroupBody* bodies = mode == BoundaryMode::Manual ? t->manual : t->tensormap;
        for (std::uint32_t i = 0; i < kGroupPositions; ++i) {
            bodies[i].tpl = build_group(shape, mode, static_cast<GroupPosition>(i), t->slots);
            bodies[i].bindings.emplace(bodies[i].tpl);
        }
    }
    return t;
}

void build_static(const Problem& problem, GroupTemplates& templates, bool manual) {
    const Shape& shape = problem.shape();
    GroupBody* bodies = manual ? templates.manual : templates.tensormap;
    const HeadTiling tiling = head_tiling(shape);
    ScratchRequest scratch;
    try {
        for (std::uint32_t b = 0; b < shape.batch; ++b) {
            for (std::uint32_t tile = 0; tile < tiling.head_tiles; ++tile) {
                const ScopeDesc s = scope_desc(shape, tiling, b, tile);
                if (manual) {
                    PTO2_SCOPE(MANUAL) {
                        build_scope<true>(problem, s, bodies, templates.slots, scratch);
                    }
                } else {
                    PTO2_SCOPE() {
                        build_scope<false>(problem, s, bodies, templates.slots, scratch);
                    }
                }
            }
        }
    } catch (...) {
        // A rejected instantiate keeps its bindings and boundary producers (ids of this run): drop them,
        // so the next build starts clean.
        for (std::uint32_t i = 0; i < kGroupPositions; ++i)
            bodies[i].bindings->clear();
        throw;
    }
}

}  // namespace pto::examples::paged_attention
