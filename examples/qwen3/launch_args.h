// The arguments of every kernel launch of the layer: which views of which tensors a launch reads and
// writes, and its scalars. The one description the dynamic graph (graph_dynamic.cpp) submits and the
// static templates (graph_static.cpp) bind, and the contract the CPU kernels (kernels_cpu.cpp) read.
#pragma once

#include <cstdint>

#include "pto/examples/qwen3.h"
#include "pto/runtime/detail/throw.h"
#include "pto/scope/args.h"

namespace pto::examples::qwen3 {

// ---- View helpers (shared by the Args builders below and the static templates' bindings) ----------------
// Inline: views are built per launch on the orchestration path both graph versions measure.

// A launch view is a whole tensor of the layer narrowed by a few pto::Slice values (the functions below make
// them): the static templates bind it in place (Bindings::tensor(slot, tensor, slices...)), the Args
// builders build it with sub().

/// restrict_to: narrows `v` in place to the slice (pto::detail::narrow): no range check, since every range
/// here follows from validated Shapes (asserted in debug builds).
inline void restrict_to(TensorView& v, Slice s) {
    PTO_ASSERT(static_cast<std::uint64_t>(s.start) + s.length <= v.shape[s.dim],
               "launch view inside its tensor");
    pto::detail::narrow(v, s);
}

/// sub: `v` narrowed by every slice, built with one copy of the view (nested view functions would copy the
/// 96-byte view once per level: a function cannot return its parameter without a copy).
template <class... Slices>
inline TensorView sub(const TensorView& v, Slices... slices) {
    TensorView r = v;
    (restrict_to(r, slices), ...);
    return r;
}

/// tile_rows: the valid rows of tile `tile` of a [B, ...] view (10 rows in the last tile at full size).
inline Slice tile_rows(const Shapes& s, std::uint32_t tile) {
    return {0, tile * s.tile_rows, s.valid_rows(tile)};
}

/// batch_row: row `row` of a [B, ...] view.
inline Slice batch_row(std::uint32_t row) {
    return {0, row, 1};
}

/// launch_range: dimension 1 restricted to the launch's chunks, c indices per chunk: the column range of
/// a [rows, n] view, or the head range of a row of a [B, heads, ...] view.
inline Slice launch_range(std::uint32_t c, Launch l) {
    return {1, l.chunk_base * c, l.block_num * c};
}

/// leading: the first `length` indices of dimension `dim` (a row's context or its KV blocks).
inline Slice leading(int dim, std::uint32_t length) {
    return {dim, 0, length};
}

/// kv_per_chunk: attention chunks are head groups; q heads c*g .. map to KV heads c*g/group.
inline std::uint32_t kv_per_chunk(const Shapes& s) {
    return s.kv_heads / op_info(Op::QkMatmul).chunks;
}

// ---- Launch arguments ------------------------------------------------------------------------------------

/// Each function appends one launch's tensors (in the order below), its scalars (scalar 0 is always
/// chunk_base) and its block_num to `a`; dependencies are the caller's business. `index` is the tile
/// (Scopes 1, 3) or the batch row (Scope 2); single-chunk operators take Launch{0, 1}. Tile views cover
/// the tile's valid rows only; "cols L" is the launch's column range [base * c, (base + w) * c) for chunk
/// size c = Shapes::chunk_size(op); "heads L" the query heads [base * c, (base + w) * c) of row b and
/// "kv L" the matching KV heads. Weights are untracked; everything else is tracked.
///
///   op                  reads                                          writes
///   rmsnorm             x[tile], rms_weight                            x_norm[tile]
///   q/k/v_proj          x_norm[tile], wq/wk/wv                         q/k/v[tile, cols L]
///   qk_norm             q[tile], k[tile], q/k_norm_weight              q_normed[tile], k_normed[tile]
///   rope_kv_cache       q_normed[b], k_normed[b], v[b], rope_cos/sin   q_rope[b], k/v_cache[b, :, pos]
///   qk_matmul           q_rope[b, heads L], k_cache[b, kv L, 0..len)   scores[b, heads L, 0..len)
///   softmax             scores[b, heads L, 0..len)                     probs[b, heads L, 0..len),
///                                                                      block_max/sum[b, heads L, 0..nb)
///   sv_matmul           probs[b, heads L, 0..len),                     o_part[b, heads L, 0..nb)
///                       v_cache[b, kv L, 0..len)
///   online_softmax      o_part, block_max/sum[b, heads L, 0..nb)       attn[b, cols L]
///   out_proj_residual   attn[tile], wo, x[tile, cols L]                h1[tile, cols L]
///   post_rmsnorm        h1[tile], post_rms_weight                      h1_norm[tile]
///   gate/up_proj        h1_norm[tile], w_gate/w_up                     gate/up[tile, cols L]
///   silu                gate[tile, cols L], up[tile, cols L]           act[tile, cols L]
///   down_proj           act[tile], w_down                              down[tile, cols L]
///   down_proj_residual  down[tile, cols L], h1[tile, cols L]           out[tile, cols L]
///
/// Scalars: chunk_base; then c for the projections, out_proj_residual, silu and down_proj_residual,
/// pos for rope_kv_cache, kv_block for softmax and sv_matmul.
/// len = context_len(b), pos = len - 1, nb = ceil(len / kv_block). Reads are listed before writes in the
/// argument order, left to right. These views make the tensormap find exactly the edges of
/// docs/design/reference-graphs.md: e.g. qk_norm reads whole q and k tiles (all q_proj and k_proj launches),
/// rope reads row b of v (all v_proj launches of the tile, which write column ranges of every row), out_proj
/// reads all attention rows of its tile, and down_proj_residual reads the h1 columns of the same-index
/// out_proj launch. One function per operator (index: the tile or row of the scope):
void rmsnorm_args(const Problem& p, std::uint32_t tile, Args& a);
void projection_args(Op op, const Problem& p, std::uint32_t tile, Launch l, Args& a);  // q/k/v/gate/up/down
void qk_norm_args(const Problem& p, std::uint32_t tile, Args& a);
void rope_kv_cache_args(const Problem& p, std::uint32_t row, Args& a);
void qk_matmul_args(const Problem& p, std::uint32_t row, Launch l, Args& a);
void softmax_args(const Problem& p, std::uint32_t row, Launch l, Args& a);
void sv_matmul_args(const Problem& p, std::uint32_t row, Launch l, Args& a);
void online_softmax_args(const Problem& p, std::uint32_t row, Launch l, Args& a);
void out_proj_residual_args(const Problem& p, std::uint32_t tile, Launch l, Args& a);
void post_rmsnorm_args(const Problem& p, std::uint32_t tile, Args& a);
void silu_args(const Problem& p, std::uint32_t tile, Launch l, Args& a);
void down_proj_residual_args(const Problem& p, std::uint32_t tile, Launch l, Args& a);

}  // namespace pto::examples::qwen3
