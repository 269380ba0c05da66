// One function per operator that appends a launch's tensors, scalars and block_num to a pto::Args (never
// dependencies), and the views they use; the static templates bind the same views (graph_static.cpp). Each
// view is exactly the region the kernel touches, so AUTO scopes discover the graph's edges from them.
#pragma once

#include <algorithm>

#include "pto/examples/moe.h"
#include "pto/scope/args.h"

namespace pto::examples::moe::detail {

/// ExpertTile: up to tile_rows packed rows of one expert: rows [row_begin, row_begin + rows).
struct ExpertTile {
    std::uint32_t expert;
    std::uint32_t row_begin;
    std::uint32_t rows;
};

/// token_rows: rows of `v` covered by token-tile launch `l`.
inline TensorView token_rows(const Shapes& s, const TensorView& v, const Launch& l) {
    const std::uint32_t begin = l.chunk_base * s.tile_rows;
    return v.slice(0, begin, std::min(s.tokens, (l.chunk_base + l.block_num) * s.tile_rows) - begin);
}
/// tile_rows: the rows of an expert tile. As a Slice for the static template, which binds views in place
/// (Bindings::tensor(slot, tensor, slices...)); as a view for the argument builders. The same for the two
/// helpers below.
inline Slice tile_rows(const ExpertTile& t) {
    return {0, t.row_begin, t.rows};
}
inline TensorView tile_rows(const TensorView& v, const ExpertTile& t) {
    return v.slice(tile_rows(t));
}
/// chunk_cols: columns of launch `l` of an operator with `chunk` columns per chunk.
inline Slice chunk_cols(const Launch& l, std::uint32_t chunk) {
    return {1, l.chunk_base * chunk, l.block_num * chunk};
}
inline TensorView chunk_cols(const TensorView& v, const Launch& l, std::uint32_t chunk) {
    return v.slice(chunk_cols(l, chunk));
}
/// expert_weight: expert e's weight matrix.
inline Slice expert_weight(std::uint32_t e) {
    return {0, e, 1};
}
inline TensorView expert_weight(const TensorView& w, std::uint32_t e) {
    return w.slice(expert_weight(e));
}

inline Args& router_args(Args& a, const Shapes& s, const Tensors& t, const Launch& l) {
    return a.input(token_rows(s, t.x, l))
        .input(t.w_router)
        .output(token_rows(s, t.topk_idx, l))
        .output(token_rows(s, t.topk_w, l))
        .scalar(l.chunk_base)
        .scalar(s.tile_rows)
        .block_num(l.block_num);
}
inline Args& route_args(Args& a, const Tensors& t) {
    return a.input(t.topk_idx).output(t.expert_count).output(t.assign_token).output(t.assign_row);
}
inline Args& gather_args(Args& a, const Tensors& t, const ExpertTile& e) {
    return a.input(t.x).input(tile_rows(t.assign_token, e)).output(tile_rows(t.xe, e));
}
/// gate_args / up_args: launch `l` of the expert tile's gate (or up) projection.
inline Args& proj_args(Args& a, const Shapes& s, const TensorView& w, const TensorView& y, const Tensors& t,
                       const ExpertTile& e, const Launch& l) {
    return a.input(tile_rows(t.xe, e))
        .input(expert_weight(w, e.expert))
        .output(chunk_cols(tile_rows(y, e), l, s.gate_chunk()))
        .scalar(l.chunk_base)
        .scalar(s.gate_chunk())
        .block_num(l.block_num);
}
inline Args& silu_args(Args& a, const Shapes& s, const Tensors& t, const ExpertTile& e, const Launch& l) {
    return a.input(chunk_cols(tile_rows(t.gate, e), l, s.gate_chunk()))
        .input(chunk_cols(tile_rows(t.up, e), l, s.gate_chunk()))
        .output(chunk_cols(tile_rows(t.act, e), l, s.gate_chunk()))
        .scalar(l.chunk_base)
        .scalar(s.gate_chunk())
        .block_num(l.block_num);
}
inline Args& down_args(Args& a, const Shapes& s, const Tensors& t, const ExpertTile& e, const Launch& l) {
    return a.input(tile_rows(t.act, e))
        .input(expert_weight(t.w_down, e.expert))
        .output(chunk_cols(tile_rows(t.down, e), l, s.down_chunk()))
        .scalar(l.chunk_base)
        .scalar(s.down_chunk())
        .block_num(l.block_num);
}
inline Args& combine_args(Args& a, const Shapes& s, const Tensors& t, const Launch& l) {
    return a.input(t.down)
        .input(token_rows(s, t.assign_row, l))
        .input(token_rows(s, t.topk_w, l))
        .output(token_rows(s, t.out, l))
        .scalar(l.chunk_base)
        .scalar(s.tile_rows)
        .block_num(l.block_num);
}

}  // namespace pto::examples::moe::detail
