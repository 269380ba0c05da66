// The golden of the compute mode: plain dense attention per sequence and head, in double, gathering K and V
// token by token through the block table; no groups, no online softmax, nothing shared with the kernels.
#include "pto/examples/paged_attention.h"

#include <algorithm>
#include <cmath>

#include "pto/runtime/detail/throw.h"

namespace pto::examples::paged_attention {

std::vector<float> dense_reference(const Problem& problem) {
    if (problem.memory() != Memory::Real)
        detail::throw_error(ErrorCode::InvalidArgument, "paged attention: dense_reference needs Real memory");
    const Shape& s = problem.shape();
    const TensorView& qv = problem.query();
    const TensorView& kv = problem.key_cache();
    const TensorView& vv = problem.value_cache();
    const TensorView& tv = problem.block_table();
    const float* q = qv.data<float>();
    const float* k = kv.data<float>();
    const float* v = vv.data<float>();
    const std::int32_t* table = tv.data<std::int32_t>();
    const double scale = 1.0 / std::sqrt(static_cast<double>(s.head_dim));

    std::vector<float> out(std::uint64_t{s.batch} * s.num_heads * s.head_dim);
    std::vector<double> scores(s.max_context_len());
    std::vector<double> acc(s.head_dim);
    for (std::uint32_t b = 0; b < s.batch; ++b) {
        const std::uint32_t len = s.context_lens[b];
        for (std::uint32_t h = 0; h < s.num_heads; ++h) {
            const std::uint32_t kv_head = h / s.heads_per_kv();
            const float* qh = q + b * qv.strides[0] + h * qv.strides[1];
            // Element offset of token j's head_dim vector in either cache.
            auto token = [&](std::uint32_t j) {
                const std::int64_t page = table[b * tv.strides[0] + (j / s.block_size) * tv.strides[1]];
                return page * kv.strides[0] + (j % s.block_size) * kv.strides[1] + kv_head * kv.strides[2];
            };
            double max_score = -INFINITY;
            for (std::uint32_t j = 0; j < len; ++j) {
                const float* kj = k + token(j);
                double dot = 0.0;
                for (std::uint32_t d = 0; d < s.head_dim; ++d)
                    dot += double{qh[d]} * double{kj[d * kv.strides[3]]};
                scores[j] = dot * scale;
                max_score = std::max(max_score, scores[j]);
            }
            double sum = 0.0;
            std::fill(acc.begin(), acc.end(), 0.0);
            for (std::uint32_t j = 0; j < len; ++j) {
                const double p = std::exp(scores[j] - max_score);
                sum += p;
                const float* vj = v + token(j);
                for (std::uint32_t d = 0; d < s.head_dim; ++d)
                    acc[d] += p * double{vj[d * vv.strides[3]]};
            }
            float* oh = out.data() + (std::uint64_t{b} * s.num_heads + h) * s.head_dim;
            for (std::uint32_t d = 0; d < s.head_dim; ++d)
                oh[d] = static_cast<float>(acc[d] / sum);
        }
    }
    return out;
}

}  // namespace pto::examples::paged_attention
