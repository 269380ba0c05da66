// The tutorial graph by dynamic submission: the arguments of each launch, then the MANUAL form (edges
// named by hand) and the AUTO form (edges discovered by the tensormap). Both build the same graph.
#include <array>

#include <pto/scope/orchestration.h>

#include "graph.h"
#include "kernels.h"

namespace tutorial {

// [snippet:args]
pto::Args project_args(const Problem& p, std::uint32_t layer, std::uint32_t tile) {
    return pto::Args()
        .input(p.activation_tile(layer, tile))  // X: this tile's rows of the layer's input
        .input(p.w(layer))                      // W: untracked weights
        .output(p.scores_tile(layer, tile))     // S
        .scalar(0u)                             // chunk_base: block b computes column chunk 0 + b
        .scalar(kHidden / kProjectBlocks)       // chunk width
        .block_num(kProjectBlocks);
}
// [/snippet]

pto::Args softmax_args(const Problem& p, std::uint32_t layer, std::uint32_t tile) {
    return pto::Args()
        .input(p.scores_tile(layer, tile))
        .output(p.probs_tile(layer, tile))
        .scalar(0u)
        .scalar(kTileRows / kSoftmaxBlocks)
        .block_num(kSoftmaxBlocks);
}

pto::Args mix_args(const Problem& p, std::uint32_t layer, std::uint32_t tile) {
    return pto::Args()
        .input(p.probs_tile(layer, tile))
        .input(p.v(layer))
        .output(p.activation_tile(layer + 1, tile))  // Y: the next layer's input
        .scalar(0u)
        .scalar(kModel / kMixBlocks)
        .block_num(kMixBlocks);
}

pto::Args column_mean_args(const Problem& p) {
    return pto::Args().input(p.activation(kLayers)).output(p.means());
}

// [snippet:manual]
void orchestrate_manual(const Problem& p) {
    std::array<pto::TaskId, kTiles> mixed;  // each tile's mix task of the previous layer
    for (std::uint32_t l = 0; l < kLayers; ++l) {
        PTO2_SCOPE(MANUAL) {  // one scope per layer: its tasks can retire once the layer is submitted
            for (std::uint32_t t = 0; t < kTiles; ++t) {
                pto::Args project = project_args(p, l, t);
                if (l > 0) project.set_dependencies(&mixed[t], 1);  // reads what mix(l - 1, t) wrote
                const pto::TaskId s = pto::submit_aic(kProject, project).task_id();
                const pto::TaskId q =
                    pto::submit_aiv(kSoftmax, softmax_args(p, l, t).set_dependencies(&s, 1)).task_id();
                mixed[t] = pto::submit_aic(kMix, mix_args(p, l, t).set_dependencies(&q, 1)).task_id();
            }
        }
    }
    PTO2_SCOPE(MANUAL) {
        pto::submit_aiv(kColumnMean, column_mean_args(p).set_dependencies(mixed));  // waits for every tile
    }
}
// [/snippet]

// [snippet:auto]
void orchestrate_auto(const Problem& p) {
    for (std::uint32_t l = 0; l < kLayers; ++l) {
        PTO2_SCOPE() {  // AUTO: each task waits for the earlier tasks whose tensors overlap its own
            for (std::uint32_t t = 0; t < kTiles; ++t) {
                pto::submit_aic(kProject, project_args(p, l, t));
                pto::submit_aiv(kSoftmax, softmax_args(p, l, t));
                pto::submit_aic(kMix, mix_args(p, l, t));
            }
        }
    }
    PTO2_SCOPE() {
        pto::submit_aiv(kColumnMean, column_mean_args(p));  // reads all rows: finds every tile's last mix
    }
}
// [/snippet]

}  // namespace tutorial
