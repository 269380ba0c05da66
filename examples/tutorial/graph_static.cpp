// The tutorial graph from a static template: the chain of one (layer, tile) is built and validated once,
// then stamped out eight times with that (layer, tile)'s tensors, with no per-edge work inside an instance.
#include <array>

#include <pto/scope/orchestration.h>

#include "graph.h"
#include "kernels.h"

namespace tutorial {

// [snippet:template]
TileTemplate build_tile_template(pto::BoundaryMode mode) {
    TileTemplate tile;
    pto::TemplateBuilder b("layer_tile", mode);
    // Slots: the tensors each instance binds. Weights are slots too, since every layer has its own.
    tile.x = b.tensor_slot("x");
    tile.w = b.tensor_slot("w");
    tile.s = b.tensor_slot("s");
    tile.p = b.tensor_slot("p");
    tile.v = b.tensor_slot("v");
    tile.y = b.tensor_slot("y");
    // Nodes mirror the dynamic launches: same kernels, argument order, scalars and block_num.
    tile.project = b.add_aic(kProject, pto::NodeArgs()
                                           .input(tile.x)
                                           .input(tile.w)
                                           .output(tile.s)
                                           .scalar_value(0u)
                                           .scalar_value(kHidden / kProjectBlocks)
                                           .block_num(kProjectBlocks)
                                           .label("project"));
    tile.softmax = b.add_aiv(kSoftmax, pto::NodeArgs()
                                           .input(tile.s)
                                           .output(tile.p)
                                           .scalar_value(0u)
                                           .scalar_value(kTileRows / kSoftmaxBlocks)
                                           .block_num(kSoftmaxBlocks)
                                           .label("softmax"));
    tile.mix = b.add_aic(kMix, pto::NodeArgs()
                                   .input(tile.p)
                                   .input(tile.v)
                                   .output(tile.y)
                                   .scalar_value(0u)
                                   .scalar_value(kModel / kMixBlocks)
                                   .block_num(kMixBlocks)
                                   .label("mix"));
    b.edge(tile.project, tile.softmax).edge(tile.softmax, tile.mix);  // internal edges, by node index
    if (mode == pto::BoundaryMode::Manual) {
        b.boundary_input(tile.project);  // takes producers from Bindings::depend
    } else {
        b.boundary_input(tile.project, tile.x);  // x is looked up in the tensormap
        b.boundary_output(tile.mix, tile.y);     // y is recorded for later readers
    }
    tile.tpl = b.finalize();  // validates; throws pto::Error naming the node on a mistake
    return tile;
}
// [/snippet]

// [snippet:instantiate]
void orchestrate_static(const Problem& p, const TileTemplate& tile, pto::Bindings& bindings) {
    const bool manual = tile.tpl.mode() == pto::BoundaryMode::Manual;
    const pto::ScopeMode scope = manual ? pto::ScopeMode::Manual : pto::ScopeMode::Auto;
    std::array<pto::Instance, kTiles> previous;  // each tile's instance of the previous layer
    for (std::uint32_t l = 0; l < kLayers; ++l) {
        pto::ScopeGuard layer_scope(scope);  // what PTO2_SCOPE(MANUAL) or PTO2_SCOPE() expands to
        for (std::uint32_t t = 0; t < kTiles; ++t) {
            bindings.tensor(tile.x, p.activation_tile(l, t))
                .tensor(tile.w, p.w(l))
                .tensor(tile.s, p.scores_tile(l, t))
                .tensor(tile.p, p.probs_tile(l, t))
                .tensor(tile.v, p.v(l))
                .tensor(tile.y, p.activation_tile(l + 1, t));
            // Manual boundary: project waits for the previous layer's mix of the same tile.
            if (manual && l > 0) bindings.depend(tile.project, previous[t].node(tile.mix));
            previous[t] = pto::instantiate(bindings);
        }
    }
    pto::ScopeGuard final_scope(scope);
    pto::Args mean = column_mean_args(p);
    std::array<pto::TaskId, kTiles> mixed;
    for (std::uint32_t t = 0; t < kTiles; ++t)
        mixed[t] = previous[t].node(tile.mix);
    if (manual) mean.set_dependencies(mixed);  // AUTO finds them through the recorded outputs
    pto::submit_aiv(kColumnMean, mean);
}
// [/snippet]

}  // namespace tutorial
