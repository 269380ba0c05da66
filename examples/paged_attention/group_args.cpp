// The per-group description every scheme shares: which scope and group a task belongs to, the scope's
// scratch allocation, and the exact tensors (with directions) and scalars each of the four kernels takes.
#include "group_views.h"

#include <algorithm>
#include <cmath>

namespace pto::examples::paged_attention {
namespace {

// Alignment of every heap-ring buffer (runtime/src/heap_ring.h); scratch_bytes rounds each tensor up to it.
constexpr std::uint64_t kHeapAlignment = 64;

}  // namespace

float softmax_scale(const Shape& shape) {
    return 1.0f / std::sqrt(static_cast<float>(shape.head_dim));
}

HeadTiling head_tiling(const Shape& shape) {
    return HeadTiling{shape.q_tile(), shape.heads_per_kv(), shape.head_tiles(), softmax_scale(shape)};
}

ScopeDesc scope_desc(const Shape& shape, const HeadTiling& tiling, std::uint32_t batch,
                     std::uint32_t head_tile) {
    const std::uint32_t first_head = head_tile * tiling.q_tile;
    const std::uint32_t blocks = shape.blocks(batch);
    return ScopeDesc{batch,
                     head_tile,
                     first_head,
                     tiling.q_tile,
                     first_head / tiling.heads_per_kv,
                     shape.context_lens[batch],
                     blocks,
                     (blocks + shape.n_unroll - 1) / shape.n_unroll,
                     tiling.softmax_scale};
}

ScopeDesc scope_desc(const Shape& shape, std::uint32_t batch, std::uint32_t head_tile) {
    return scope_desc(shape, head_tiling(shape), batch, head_tile);
}

GroupDesc group_desc(const Shape& shape, const ScopeDesc& scope, std::uint32_t group) {
    const std::uint32_t first_block = group * shape.n_unroll;
    const std::uint32_t count = std::min(shape.n_unroll, scope.block_count - first_block);
    const std::uint32_t first_token = first_block * shape.block_size;
    const std::uint32_t valid = std::min(shape.group_tokens(), scope.context_len - first_token);
    return GroupDesc{group, first_block, count, valid, group == 0, group + 1 == scope.group_count};
}

std::array<TensorCreateInfo, kScratchTensors> scratch_infos(const Shape& shape, std::uint32_t groups) {
    const std::uint32_t q = shape.q_tile(), w = shape.group_tokens(), d = shape.head_dim;
    return {TensorCreateInfo(DataType::F32, {groups, q, w}),
            TensorCreateInfo(shape.dtype, {groups, q, w}),
            TensorCreateInfo(DataType::F32, {groups, q}),
            TensorCreateInfo(DataType::F32, {groups, q}),
            TensorCreateInfo(DataType::F32, {groups, q, d}),
            TensorCreateInfo(DataType::F32, {q}),
            TensorCreateInfo(DataType::F32, {q}),
            TensorCreateInfo(DataType::F32, {q, d})};
}

ScopeTensors scope_tensors(const TaskHandle& alloc) {
    return ScopeTensors{alloc.output_ref(0), alloc.output_ref(1), alloc.output_ref(2), alloc.output_ref(3),
                        alloc.output_ref(4), alloc.output_ref(5), alloc.output_ref(6), alloc.output_ref(7)};
}

std::uint64_t scope_scratch_bytes(const Shape& shape, std::uint32_t groups) {
    std::uint64_t total = 0;
    for (const TensorCreateInfo& info : scratch_infos(shape, groups))
        total += (std::max<std::uint64_t>(info.byte_size(), 1) + kHeapAlignment - 1) / kHeapAlignment *
                 kHeapAlignment;
    return total;
}

std::uint64_t scratch_bytes(const Shape& shape) {
    std::uint64_t total = 0;
    for (std::uint32_t b = 0; b < shape.batch; ++b)
        total += scope_scratch_bytes(shape, shape.groups(b));
    return total * shape.head_tiles();
}

void qk_matmul_args(const Problem& p, const ScopeDesc& s, const ScopeTensors& t, const GroupDesc& g,
                    Args& args) {
    const TileSlices tile = tile_slices(s);
    args.input(p.query(), tile.row, tile.heads)
        .input(p.key_cache(), head_slice(s))
        .input(p.block_table(), table_row_slice(s))
        .output(t.sij, group_slice(g.group))
        .scalar(g.first_block)
        .scalar(g.block_count)
        .scalar(g.valid_tokens);
}

void softmax_prepare_args(const ScopeDesc& s, const ScopeTensors& t, const GroupDesc& g, Args& args) {
    const Slice in_group = group_slice(g.group);
    args.input(t.sij, in_group)
        .output(t.pij, in_group)
        .output(t.mi, in_group)
        .output(t.li, in_group)
        .scalar(g.valid_tokens)
        .scalar(s.softmax_scale);
}

void pv_matmul_args(const Problem& p, const ScopeDesc& s, const ScopeTensors& t, const GroupDesc& g,
                    Args& args) {
    const Slice in_group = group_slice(g.group);
    args.input(t.pij, in_group)
        .input(p.value_cache(), head_slice(s))
        .input(p.block_table(), table_row_slice(s))
        .output(t.oi_new, in_group)
        .scalar(g.first_block)
        .scalar(g.block_count)
        .scalar(g.valid_tokens);
}

void online_update_args(const Problem& p, const ScopeDesc& s, const ScopeTensors& t, const GroupDesc& g,
                        Args& args) {
    const Slice in_group = group_slice(g.group);
    args.input(t.mi, in_group).input(t.li, in_group).input(t.oi_new, in_group);
    // The first group only writes the running state; later groups read and rewrite it.
    if (g.is_first)
        args.output(t.m_run).output(t.l_run).output(t.oi);
    else
        args.inout(t.m_run).inout(t.l_run).inout(t.oi);
    if (g.is_last) {
        const TileSlices tile = tile_slices(s);
        args.output(p.out(), tile.row, tile.heads);
    }
    args.scalar(static_cast<std::uint32_t>(g.is_first)).scalar(static_cast<std::uint32_t>(g.is_last));
}

}  // namespace pto::examples::paged_attention
