// The views one scope and one group of paged attention pass to the kernels, as the slices that cut them from
// the problem's whole tensors and the scope's scratch: the query tile, the cache head, the block-table row,
// the output tile and per-group slices of the scratch. Shared by the argument builders (group_args.cpp,
// schemes A and B, through Args' sliced inputs and outputs) and the static templates' bindings
// (graph_static.cpp, C and D, through Bindings::tensor's slices), so all four schemes hand the kernels the
// same views, each built in place in the list that passes it. Private to examples/paged_attention.
#pragma once

#include <cstdint>

#include "pto/examples/paged_attention.h"

namespace pto::examples::paged_attention {

/// group_slice: group g's slice [1, ...] of a per-group scratch buffer [G, ...].
inline Slice group_slice(std::uint32_t g) {
    return {0, g, 1};
}

/// TileSlices: the slices that make the scope's [1, q_tile, head_dim] tile of a [batch, num_heads, head_dim]
/// view (the query, and the output the scope's last online_update writes).
struct TileSlices {
    Slice row;
    Slice heads;
};
inline TileSlices tile_slices(const ScopeDesc& s) {
    return {Slice{0, s.batch, 1}, Slice{1, s.first_head, s.q_tile}};
}

/// head_slice: the scope's KV head of a cache [pages, block_size, kv_head_num, head_dim].
inline Slice head_slice(const ScopeDesc& s) {
    return {2, s.kv_head, 1};
}

/// table_row_slice: the sequence's row of the block table [batch, max_blocks_per_seq].
inline Slice table_row_slice(const ScopeDesc& s) {
    return {0, s.batch, 1};
}

/// softmax_scale: 1 / sqrt(head_dim), softmax_prepare's scalar.
float softmax_scale(const Shape& shape);

}  // namespace pto::examples::paged_attention
