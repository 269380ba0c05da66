// Schemes A and B of the paged-attention graph (docs/design/reference-graphs.md): one scope per (sequence,
// q-head tile), four kernels per group of n_unroll KV blocks. Both submit the same tasks with the same
// tensors; A states the chain by hand in a MANUAL scope, B lets the tensormap discover it in an AUTO scope.
// build() also dispatches schemes C and D to graph_static.cpp.
#include "pto/examples/paged_attention.h"

#include <algorithm>
#include <bit>

#include "problem_impl.h"

namespace pto::examples::paged_attention {
namespace {

// kManual: explicit edges (A) or none (B). The loop body is otherwise identical, so the two schemes can
// only differ in the edges the orchestration states or the tensormap finds.
template <bool kManual>
void build_scope(const Problem& p, const ScopeDesc& s, ScratchRequest& scratch) {
    const TaskHandle alloc = alloc_tensors(scratch.infos(p.shape(), s.group_count));
    const ScopeTensors t = scope_tensors(alloc);
    TaskId previous_update;
    for (std::uint32_t group = 0; group < s.group_count; ++group) {
        const GroupDesc g = group_desc(p.shape(), s, group);

        Args qk_args;
        qk_matmul_args(p, s, t, g, qk_args);
        const TaskId qk = submit_aic(kQkMatmul, qk_args).task_id();

        Args sf_args;
        softmax_prepare_args(s, t, g, sf_args);
        if constexpr (kManual) sf_args.set_dependencies(&qk, 1);
        const TaskId sf = submit_aiv(kSoftmaxPrepare, sf_args).task_id();

        Args pv_args;
        pv_matmul_args(p, s, t, g, pv_args);
        if constexpr (kManual) pv_args.set_dependencies(&sf, 1);
        const TaskId pv = submit_aic(kPvMatmul, pv_args).task_id();

        Args up_args;
        online_update_args(p, s, t, g, up_args);
        // online_update reads mi / li of softmax_prepare too, but PV already follows softmax_prepare, so A
        // leaves that edge implied. The last group holds the scratch: every task of the scope is its
        // ancestor, so the buffers outlive every reader.
        TaskId deps[3];
        if constexpr (kManual) {
            std::uint32_t n = 0;
            deps[n++] = pv;
            if (!g.is_first) deps[n++] = previous_update;
            if (g.is_last) deps[n++] = alloc.task_id();
            up_args.set_dependencies(deps, n);
        }
        previous_update = submit_aiv(kOnlineUpdate, up_args).task_id();
    }
}

template <bool kManual>
void build_all(const Problem& p) {
    const Shape& shape = p.shape();
    const HeadTiling tiling = head_tiling(shape);
    ScratchRequest scratch;
    for (std::uint32_t b = 0; b < shape.batch; ++b) {
        for (std::uint32_t tile = 0; tile < tiling.head_tiles; ++tile) {
            const ScopeDesc s = scope_desc(shape, tiling, b, tile);
            if constexpr (kManual) {
                PTO2_SCOPE(MANUAL) {
                    build_scope<true>(p, s, scratch);
                }
            } else {
                PTO2_SCOPE() {
                    build_scope<false>(p, s, scratch);
                }
            }
        }
    }
}

std::uint64_t round_up_pow2(std::uint64_t n) {
    return std::bit_ceil(std::max<std::uint64_t>(n, 1));
}

}  // namespace

void build(const Problem& problem, Scheme scheme) {
    switch (scheme) {
        case Scheme::Manual:
            build_all<true>(problem);
            return;
        case Scheme::Tensormap:
            build_all<false>(problem);
            return;
        case Scheme::StaticManual:
            build_static(problem, *problem.impl_->templates, true);
            return;
        case Scheme::StaticTensormap:
            build_static(problem, *problem.impl_->templates, false);
            return;
    }
}

bool supports(Scheme scheme) {
    switch (scheme) {
        case Scheme::Manual:
        case Scheme::Tensormap:
        case Scheme::StaticManual:
        case Scheme::StaticTensormap:
            return true;
    }
    return false;
}

void fit_whole_graph(RuntimeConfig& cfg, const Shape& shape) {
    shape.validate();
    const std::uint64_t tasks = shape.kernel_task_count() + shape.scope_count();
    cfg.window_tasks =
        static_cast<std::uint32_t>(std::max<std::uint64_t>(cfg.window_tasks, round_up_pow2(tasks)));
    // The ring's head starts wherever the last run left it; a buffer that would straddle the wrap point
    // skips the tail instead, wasting less than the largest scope's scratch.
    std::uint64_t largest = 0;
    for (std::uint32_t b = 0; b < shape.batch; ++b)
        largest = std::max(largest, scope_scratch_bytes(shape, shape.groups(b)));
    cfg.heap_bytes = std::max(cfg.heap_bytes, scratch_bytes(shape) + largest + (1u << 20));
    // Scheme B records 14 accesses per group (1 + 4 + 2 + 7) and links at most 9 edges per group.
    cfg.tensormap_entries = static_cast<std::uint32_t>(
        std::max<std::uint64_t>(cfg.tensormap_entries, round_up_pow2(16 * shape.group_count())));
    cfg.edge_capacity = static_cast<std::uint32_t>(
        std::max<std::uint64_t>(cfg.edge_capacity, round_up_pow2(16 * shape.group_count())));
}

}  // namespace pto::examples::paged_attention
