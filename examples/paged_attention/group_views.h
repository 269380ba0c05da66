// The views one scope and one group of paged attention pass to the kernels: the query tile, the cache head,
// the block-table row, the output tile and per-group slices of the scratch. Shared by the argument builders
// (group_args.cpp, schemes A and B) and the static templates' bindings (graph_static.cpp, C and D), so all
// four schemes hand the kernels the same views. Private to examples/paged_attention.
#pragma once

#include <cstdint>

#include "pto/examples/paged_attention.h"

namespace pto::examples::paged_attention {

/// group_slice: group g's slice [1, ...] of a per-group scratch buffer [G, ...].
inline Slice group_slice(std::uint32_t g) {
    return {0, g, 1};
}
inline TensorView group_slice(const TensorView& per_group, std::uint32_t g) {
    return per_group.slice(group_slice(g));
}

/// TileSlices: the slices that make the scope's [1, q_tile, head_dim] tile of a [batch, num_heads, head_dim]
/// view (the query and the output). The static templates bind views in place from such slices; the
/// argument builders take the views below.
struct TileSlices {
    Slice row;
    Slice heads;
};
inline TileSlices tile_slices(const ScopeDesc& s) {
    return {Slice{0, s.batch, 1}, Slice{1, s.first_head, s.q_tile}};
}

/// query_tile: q[b, tile] as [1, q_tile, head_dim].
inline TensorView query_tile(const Problem& p, const ScopeDesc& s) {
    const TileSlices t = tile_slices(s);
    return p.query().slice(t.row).slice(t.heads);
}

/// head_slice: the scope's KV head of a cache [pages, block_size, kv_head_num, head_dim].
inline Slice head_slice(const ScopeDesc& s) {
    return {2, s.kv_head, 1};
}
/// cache_head: the scope's KV head of a cache, [pages, block_size, 1, head_dim].
inline TensorView cache_head(const TensorView& cache, const ScopeDesc& s) {
    return cache.slice(head_slice(s));
}

/// table_row_slice: the sequence's row of the block table [batch, max_blocks_per_seq].
inline Slice table_row_slice(const ScopeDesc& s) {
    return {0, s.batch, 1};
}
/// table_row: the sequence's row of the block table, [1, max_blocks_per_seq].
inline TensorView table_row(const Problem& p, const ScopeDesc& s) {
    return p.block_table().slice(table_row_slice(s));
}

/// out_tile: out[b, tile] as [1, q_tile, head_dim] (written by the scope's last online_update).
inline TensorView out_tile(const Problem& p, const ScopeDesc& s) {
    const TileSlices t = tile_slices(s);
    return p.out().slice(t.row).slice(t.heads);
}

/// softmax_scale: 1 / sqrt(head_dim), softmax_prepare's scalar.
float softmax_scale(const Shape& shape);

}  // namespace pto::examples::paged_attention
