// The static-template bodies of schemes C and D (docs/design/static-graph.md,
// docs/design/reference-graphs.md): G1 = one tile of Scope 1, G2 = one row of Scope 2, G3 = one tile of Scope
// 3, each built once per (problem, tier) and boundary mode by static_bodies.cpp, bound and instantiated per
// tile / row by graph_static.cpp. Private to examples/qwen3.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "decode_graph_state.h"
#include "pto/static_graph/instance.h"
#include "pto/static_graph/template.h"

namespace pto::examples::qwen3 {

// Slot and node layouts. Both boundary modes declare the same slots and nodes in the same order, so one
// layout serves both templates of a body. Nodes are in docs/design/reference-graphs.md emission order, which
// is the order an instance's task ids take, so an instance submits exactly what a dynamic tile / row submits.

/// G1Layout: Scope 1, tile t. Nodes: rmsnorm, q_proj launches, (k_proj, v_proj) pairs, qk_norm.
struct G1Layout {
    TensorSlot x, x_norm;  // x[t] (rmsnorm reads), x_norm[t] (rmsnorm writes, q/k/v read)
    std::vector<TensorSlot> q_out, k_out, v_out;  // q/k/v[t, cols of launch i]
    TensorSlot q, k, q_normed, k_normed;          // qk_norm reads q[t], k[t]; writes q_normed[t], k_normed[t]
    std::uint32_t qk_norm_node = 0;               // rope's producers in later rows: this node ...
    std::vector<std::uint32_t> v_nodes;           // ... and these
};

/// G2Layout: Scope 2, row b. Nodes: rope_kv_cache, then per attention launch qk, softmax, sv, online.
struct G2Layout {
    TensorSlot q_normed, k_normed, v;  // rope reads row b of each
    TensorSlot q_rope, k_new, v_new;   // rope writes q_rope[b] and the cache entries at pos
    ScalarSlot pos;                    // context_len(b) - 1
    struct Attention {                 // one attention launch's views (heads of the launch, row b)
        TensorSlot q_rope, k_cache, scores, probs, block_max, block_sum, v_cache, o_part, attn;
        std::uint32_t online_node = 0;  // out_proj's producer in the row's tile
    };
    std::vector<Attention> attention;
};

/// G3Layout: Scope 3, tile t. Nodes: out_proj launches, post_rmsnorm, (gate, up, silu) triples, then
/// (down_proj, down_proj_residual) pairs. out_proj launch j is node j: the boundary nodes.
struct G3Layout {
    TensorSlot attn, h1, h1_norm, act;        // whole-tile views
    std::vector<TensorSlot> x_cols, h1_cols;  // per out/down launch j: x[t, cols j], h1[t, cols j]
    std::vector<TensorSlot> down_cols, out_cols;
    std::vector<TensorSlot> gate_cols, up_cols, act_cols;  // per MLP launch i
    std::vector<std::uint32_t> out_proj_nodes;             // 0 .. out launches - 1
};

/// Body: one finalised template and the bindings instances are stamped from (one orchestrator thread).
struct Body {
    Template tpl;
    std::optional<Bindings> bindings;
};

/// StaticBodies: G1, G2, G3 in manual boundary mode (scheme C) and tensormap boundary mode (scheme D).
///   C: G2's rope and G3's out_proj launches are boundary nodes; the caller names their producers.
///   D: G1 records q_normed, k_normed (qk_norm) and v (v_proj); G2 looks up rope's three inputs and
///      records attn (online_softmax); G3 looks up attn (out_proj) and records out (down_proj_residual).
struct StaticBodies {
    G1Layout g1;
    G2Layout g2;
    G3Layout g3;
    Body manual[3];
    Body tensormap[3];
};

}  // namespace pto::examples::qwen3
