// Problem: the layer's buffers in host memory (inputs and weights from a seed) or at fake addresses with a
// fixed routing, poisoning before a compute run, and reading the routing after the wait.
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "pto/examples/moe.h"
#include "pto/runtime/detail/throw.h"

namespace pto::examples::moe {
namespace {

std::uint64_t elements(std::initializer_list<std::uint32_t> dims) {
    std::uint64_t n = 1;
    for (std::uint32_t d : dims)
        n *= d;
    return n;
}

/// Layout: lays the buffers out one after another, as views over `alloc(bytes)` addresses.
template <class Alloc>
Tensors lay_out(const Shapes& s, Alloc&& alloc) {
    const auto make = [&](DataType t, std::initializer_list<std::uint32_t> dims, bool tracked = true) {
        void* base = alloc(elements(dims) * size_of(t));
        const TensorView v = TensorView::contiguous(base, t, dims);
        return tracked ? v : v.untracked();
    };
    const std::uint32_t T = s.tokens, H = s.hidden, E = s.experts, K = s.top_k, I = s.intermediate;
    const std::uint32_t A = s.assignments();
    Tensors t;
    t.x = make(DataType::F32, {T, H});
    t.w_router = make(DataType::F32, {H, E}, false);
    t.w_gate = make(DataType::F32, {E, H, I}, false);
    t.w_up = make(DataType::F32, {E, H, I}, false);
    t.w_down = make(DataType::F32, {E, I, H}, false);
    t.topk_idx = make(DataType::I32, {T, K});
    t.topk_w = make(DataType::F32, {T, K});
    t.expert_count = make(DataType::I32, {E});
    t.assign_token = make(DataType::I32, {A});
    t.assign_row = make(DataType::I32, {T, K});
    t.xe = make(DataType::F32, {A, H});
    t.gate = make(DataType::F32, {A, I});
    t.up = make(DataType::F32, {A, I});
    t.act = make(DataType::F32, {A, I});
    t.down = make(DataType::F32, {A, H});
    t.out = make(DataType::F32, {T, H});
    return t;
}

void fill(const TensorView& v, std::mt19937_64& rng, float scale) {
    std::uniform_real_distribution<float> u(-scale, scale);
    float* p = v.data<float>();
    for (std::uint64_t i = 0; i < v.element_count(); ++i)
        p[i] = u(rng);
}

template <class T>
void poison(const TensorView& v, T value) {
    T* p = v.data<T>();
    for (std::uint64_t i = 0; i < v.element_count(); ++i)
        p[i] = value;
}

}  // namespace

Problem::Problem(Problem&&) noexcept = default;
Problem& Problem::operator=(Problem&&) noexcept = default;
Problem::~Problem() = default;

Problem Problem::with_fake_addresses(const Shapes& shapes, std::uint64_t seed) {
    shapes.validate();
    Problem p;
    p.shapes_ = shapes;
    p.fake_ = std::make_unique<VirtualAddressSpace>();
    p.tensors_ = lay_out(shapes, [&](std::uint64_t bytes) { return p.fake_->reserve(bytes); });
    // Each token picks top_k distinct experts uniformly: a fixed stand-in for the router's decisions.
    std::mt19937_64 rng(seed);
    p.fixed_counts_.assign(shapes.experts, 0);
    std::vector<bool> picked(shapes.experts);
    for (std::uint32_t t = 0; t < shapes.tokens; ++t) {
        std::fill(picked.begin(), picked.end(), false);
        for (std::uint32_t k = 0; k < shapes.top_k;) {
            const auto e = static_cast<std::uint32_t>(rng() % shapes.experts);
            if (picked[e]) continue;
            picked[e] = true;
            ++p.fixed_counts_[e];
            ++k;
        }
    }
    return p;
}

Problem Problem::with_memory(const Shapes& shapes, std::uint64_t seed) {
    shapes.validate();
    Problem p;
    p.shapes_ = shapes;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;  // (word offset, words), then resolved
    std::uint64_t words = 0;
    (void)lay_out(shapes, [&](std::uint64_t bytes) {
        words += (bytes + 7) / 8;
        return reinterpret_cast<void*>(8);  // sizing pass: any non-null address
    });
    if (words > (1ull << 28)) [[unlikely]]
        pto::detail::throw_error(ErrorCode::InvalidArgument,
                                 "moe::Problem::with_memory: " + std::to_string(words * 8) +
                                     " bytes is more than this example allocates; use smaller shapes");
    p.storage_.assign(words, 0);
    std::uint64_t next = 0;
    p.tensors_ = lay_out(shapes, [&](std::uint64_t bytes) {
        void* base = p.storage_.data() + next;
        next += (bytes + 7) / 8;
        return base;
    });
    std::mt19937_64 rng(seed);
    const Tensors& t = p.tensors_;
    fill(t.x, rng, 1.0f);
    fill(t.w_router, rng, 1.0f / std::sqrt(static_cast<float>(shapes.hidden)));
    fill(t.w_gate, rng, 2.0f / std::sqrt(static_cast<float>(shapes.hidden)));
    fill(t.w_up, rng, 2.0f / std::sqrt(static_cast<float>(shapes.hidden)));
    fill(t.w_down, rng, 2.0f / std::sqrt(static_cast<float>(shapes.intermediate)));
    p.reset();
    return p;
}

void Problem::reset() {
    if (!has_memory()) return;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const Tensors& t = tensors_;
    for (const TensorView* v : {&t.topk_idx, &t.expert_count, &t.assign_token, &t.assign_row})
        poison<std::int32_t>(*v, -1);
    for (const TensorView* v : {&t.topk_w, &t.xe, &t.gate, &t.up, &t.act, &t.down, &t.out})
        poison<float>(*v, nan);
}

Routing Problem::routing() const {
    Routing r;
    r.count.assign(shapes_.experts, 0);
    r.offset.assign(shapes_.experts, 0);
    std::uint64_t total = 0;
    bool valid = true;
    for (std::uint32_t e = 0; e < shapes_.experts; ++e) {
        const std::int64_t n = has_memory() ? std::int64_t{tensors_.expert_count.data<std::int32_t>()[e]}
                                            : static_cast<std::int64_t>(fixed_counts_[e]);
        valid = valid && n >= 0 && n <= shapes_.tokens;
        r.count[e] = valid ? static_cast<std::uint32_t>(n) : 0;
        r.offset[e] = static_cast<std::uint32_t>(total);
        total += r.count[e];
    }
    if (!valid || total != shapes_.assignments()) [[unlikely]]
        pto::detail::throw_error(ErrorCode::InvalidArgument,
                                 "moe::Problem::routing: expert_count does not hold a routing (poisoned or "
                                 "inconsistent): read it only after pto::wait on the route task");
    return r;
}

}  // namespace pto::examples::moe
