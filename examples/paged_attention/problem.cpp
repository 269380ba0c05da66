// Problem: the buffers of one decode step, either fake addresses (full-size graphs for the instant and
// timed executors) or host memory filled with deterministic data and a shuffled block table (compute).
#include "problem_impl.h"

#include <limits>
#include <string>
#include <utility>

#include "pto/runtime/detail/throw.h"

namespace pto::examples::paged_attention {
namespace {

// splitmix64: a tiny, fully specified generator, so the data (and a golden mismatch) is the same on every
// standard library, unlike std::uniform_real_distribution.
struct SplitMix64 {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// uniform in [-1, 1): 24 random bits, exact in float.
    float symmetric() { return static_cast<float>(next() >> 40) * 0x1p-23f - 1.0f; }
};

struct Sizes {
    std::uint64_t query, cache, table, out;  // elements
};

std::uint32_t pages_of(const Shape& s) {
    std::uint64_t pages = 0;
    for (std::uint32_t b = 0; b < s.batch; ++b)
        pages += s.blocks(b);
    if (pages > std::numeric_limits<std::uint32_t>::max())
        detail::throw_error(ErrorCode::InvalidArgument, "paged attention: more than 2^32 KV pages");
    return static_cast<std::uint32_t>(pages);
}

Sizes sizes_of(const Shape& s, std::uint32_t pages) {
    const std::uint64_t tokens = std::uint64_t{s.batch} * s.num_heads * s.head_dim;
    return Sizes{tokens, std::uint64_t{pages} * s.block_size * s.kv_head_num * s.head_dim,
                 std::uint64_t{s.batch} * s.max_blocks_per_seq(), tokens};
}

}  // namespace

Problem::Problem(Shape shape, Memory memory, std::uint64_t seed) : impl_(std::make_unique<Impl>()) {
    shape.validate();
    if (memory == Memory::Real && shape.dtype != DataType::F32)
        detail::throw_error(
            ErrorCode::InvalidArgument,
            "paged attention: Real memory (compute executor) needs dtype F32; the CPU kernels "
            "compute in float");
    Impl& m = *impl_;
    m.shape = std::move(shape);
    m.memory = memory;
    const Shape& s = m.shape;
    m.pages = pages_of(s);
    const Sizes n = sizes_of(s, m.pages);
    const std::size_t elem = size_of(s.dtype);
    void* q = nullptr;
    void* k = nullptr;
    void* v = nullptr;
    void* t = nullptr;
    void* o = nullptr;
    if (memory == Memory::Virtual) {
        const std::uint64_t need = (n.query + 2 * n.cache + n.out) * elem + n.table * 4 + 5 * 64;
        m.space = std::make_unique<VirtualAddressSpace>(need);
        q = m.space->reserve(n.query * elem);
        k = m.space->reserve(n.cache * elem);
        v = m.space->reserve(n.cache * elem);
        t = m.space->reserve(n.table * 4);
        o = m.space->reserve(n.out * elem);
    } else {
        SplitMix64 rng{seed};
        m.query.resize(n.query);
        m.key.resize(n.cache);
        m.value.resize(n.cache);
        for (float& x : m.query)
            x = rng.symmetric();
        for (float& x : m.key)
            x = rng.symmetric();
        for (float& x : m.value)
            x = rng.symmetric();
        // Physical pages are a shuffle of 0..pages-1, dealt to the sequences in order; unused table entries
        // hold -1 so a kernel reading past a sequence's blocks fails loudly.
        std::vector<std::int32_t> perm(m.pages);
        for (std::uint32_t i = 0; i < m.pages; ++i)
            perm[i] = static_cast<std::int32_t>(i);
        for (std::uint32_t i = m.pages; i > 1; --i)
            std::swap(perm[i - 1], perm[rng.next() % i]);
        m.table.assign(n.table, -1);
        std::uint32_t next = 0;
        for (std::uint32_t b = 0; b < s.batch; ++b)
            for (std::uint32_t blk = 0; blk < s.blocks(b); ++blk)
                m.table[std::uint64_t{b} * s.max_blocks_per_seq() + blk] = perm[next++];
        m.out.assign(n.out, std::numeric_limits<float>::quiet_NaN());
        q = m.query.data();
        k = m.key.data();
        v = m.value.data();
        t = m.table.data();
        o = m.out.data();
    }
    m.query_view = TensorView::contiguous(q, s.dtype, {s.batch, s.num_heads, s.head_dim}).untracked();
    m.key_view =
        TensorView::contiguous(k, s.dtype, {m.pages, s.block_size, s.kv_head_num, s.head_dim}).untracked();
    m.value_view =
        TensorView::contiguous(v, s.dtype, {m.pages, s.block_size, s.kv_head_num, s.head_dim}).untracked();
    m.table_view = TensorView::contiguous(t, DataType::I32, {s.batch, s.max_blocks_per_seq()}).untracked();
    m.out_view = TensorView::contiguous(o, s.dtype, {s.batch, s.num_heads, s.head_dim});
    m.templates = make_group_templates(s);
}

Problem::~Problem() = default;
Problem::Problem(Problem&&) noexcept = default;
Problem& Problem::operator=(Problem&&) noexcept = default;

const Shape& Problem::shape() const {
    return impl_->shape;
}
Memory Problem::memory() const {
    return impl_->memory;
}

std::uint64_t Problem::bytes(const Shape& shape) {
    shape.validate();
    const Sizes n = sizes_of(shape, pages_of(shape));
    return (n.query + 2 * n.cache + n.out) * size_of(shape.dtype) + n.table * 4;
}

const TensorView& Problem::query() const {
    return impl_->query_view;
}
const TensorView& Problem::key_cache() const {
    return impl_->key_view;
}
const TensorView& Problem::value_cache() const {
    return impl_->value_view;
}
const TensorView& Problem::block_table() const {
    return impl_->table_view;
}
const TensorView& Problem::out() const {
    return impl_->out_view;
}

std::span<const float> Problem::out_values() const {
    if (impl_->memory != Memory::Real)
        detail::throw_error(ErrorCode::InvalidArgument,
                            "paged attention: out_values of a Virtual-memory problem");
    return impl_->out;
}

void Problem::poison_out() {
    if (impl_->memory == Memory::Real)
        impl_->out.assign(impl_->out.size(), std::numeric_limits<float>::quiet_NaN());
}

}  // namespace pto::examples::paged_attention
