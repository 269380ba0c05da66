// Shape of a paged-attention decode step: validation, the derived tiling (q tiles, blocks, groups) and the
// two named cases (docs/design/reference-graphs.md Case1 and the reduced compute case).
#include "pto/examples/paged_attention.h"

#include <algorithm>
#include <string>

#include "pto/runtime/detail/throw.h"

namespace pto::examples::paged_attention {
namespace {

[[noreturn]] void bad_shape(const std::string& what) {
    detail::throw_error(ErrorCode::InvalidArgument, "paged attention shape: " + what);
}

void require_positive(const char* field, std::uint32_t value) {
    if (value == 0) bad_shape(std::string(field) + " must be at least 1");
}

}  // namespace

void Shape::validate() const {
    require_positive("batch", batch);
    require_positive("num_heads", num_heads);
    require_positive("kv_head_num", kv_head_num);
    require_positive("head_dim", head_dim);
    require_positive("block_size", block_size);
    require_positive("max_model_len", max_model_len);
    require_positive("n_unroll", n_unroll);
    if (num_heads % kv_head_num != 0)
        bad_shape("num_heads (" + std::to_string(num_heads) + ") must be a multiple of kv_head_num (" +
                  std::to_string(kv_head_num) + ")");
    // A scope's tile must not straddle two KV heads: it reads one head of the cache.
    if (heads_per_kv() > kMaxQTile && heads_per_kv() % kMaxQTile != 0)
        bad_shape("heads per KV head (" + std::to_string(heads_per_kv()) + ") above " +
                  std::to_string(kMaxQTile) + " must be a multiple of it");
    if (context_lens.size() != batch)
        bad_shape("context_lens has " + std::to_string(context_lens.size()) + " entries for batch " +
                  std::to_string(batch));
    for (std::size_t b = 0; b < context_lens.size(); ++b)
        if (context_lens[b] == 0 || context_lens[b] > max_model_len)
            bad_shape("context_lens[" + std::to_string(b) + "] = " + std::to_string(context_lens[b]) +
                      " is outside 1..max_model_len (" + std::to_string(max_model_len) + ")");
    // Scratch per group is q_tile x group_tokens elements; keep it far from 32-bit shape limits.
    if (std::uint64_t{n_unroll} * block_size > (1u << 24))
        bad_shape("n_unroll x block_size (" + std::to_string(std::uint64_t{n_unroll} * block_size) +
                  ") exceeds 2^24 tokens per group");
}

std::uint32_t Shape::q_tile() const {
    return std::min(heads_per_kv(), kMaxQTile);
}

std::uint32_t Shape::blocks(std::uint32_t b) const {
    return (context_lens[b] + block_size - 1) / block_size;
}

std::uint32_t Shape::max_context_len() const {
    return context_lens.empty() ? 0 : *std::max_element(context_lens.begin(), context_lens.end());
}

std::uint64_t Shape::group_count() const {
    std::uint64_t n = 0;
    for (std::uint32_t b = 0; b < batch; ++b)
        n += groups(b);
    return n * head_tiles();
}

Shape case1() {
    return Shape{};
}

Shape compute_case() {
    Shape s;
    s.batch = 6;
    s.num_heads = 8;
    s.kv_head_num = 2;  // GQA: 4 heads share a KV head, so q_tile = 4 and 2 head tiles per sequence
    s.head_dim = 32;
    s.block_size = 16;
    s.max_model_len = 512;
    s.n_unroll = 4;  // 64 tokens per group
    // One partial block; a partial group; exact groups; the longest (8 groups); ragged ends.
    s.context_lens = {7, 100, 256, 300, 64, 511};
    s.dtype = DataType::F32;
    return s;
}

}  // namespace pto::examples::paged_attention
