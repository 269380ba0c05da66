// Paged attention, unrolled (docs/design/reference-graphs.md): shapes, paged KV cache and block table, the
// four kernels, the per-group arguments every scheme binds, the builder of schemes A-D, and the golden check.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pto/examples/common.h"
#include "pto/scope/orchestration.h"

namespace pto::examples::paged_attention {

// The graph: one scope per (sequence b, q-head tile t); its KV blocks split into groups of n_unroll:
//
//     QK(g) --> SF(g) --> PV(g) --> UP(g) --> UP(g+1) --> ... --> UP(G-1) --> writes out[b, tile t]
//                 \____ B only _____^
//     A: alloc --> UP(G-1)            B: alloc --> every kernel (the creator of the scratch they use)
//     C: A's edges, each group one template instance    D: B's edges, each group one template instance
//
// QK = qk_matmul (AIC), SF = softmax_prepare (AIV), PV = pv_matmul (AIC), UP = online_update (AIV).

/// Largest q-head tile one scope handles: q_tile = min(heads per KV head, kMaxQTile).
inline constexpr std::uint32_t kMaxQTile = 128;

/// Shape: the sizes of one decode step. The defaults are Case1 of docs/design/reference-graphs.md (480 x 16
/// heads, 8192 tokens).
struct Shape {
    std::uint32_t batch = 480;
    std::uint32_t num_heads = 16;
    std::uint32_t kv_head_num = 1;
    std::uint32_t head_dim = 128;
    std::uint32_t block_size = 128;       ///< tokens per KV-cache page
    std::uint32_t max_model_len = 32768;  ///< longest context; sizes the block table's rows
    std::uint32_t n_unroll = 64;          ///< KV blocks per group; each group submits 4 kernels
    /// Context length of each sequence (batch entries, each 1..max_model_len).
    std::vector<std::uint32_t> context_lens = std::vector<std::uint32_t>(480, 8192);
    /// Element type of query, KV cache, output and pij. Compute mode needs F32.
    DataType dtype = DataType::BF16;

    /// validate: throws Error{InvalidArgument} naming the first inconsistent field.
    void validate() const;

    [[nodiscard]] std::uint32_t heads_per_kv() const { return num_heads / kv_head_num; }
    [[nodiscard]] std::uint32_t q_tile() const;
    [[nodiscard]] std::uint32_t head_tiles() const { return num_heads / q_tile(); }
    [[nodiscard]] std::uint32_t max_blocks_per_seq() const {
        return (max_model_len + block_size - 1) / block_size;
    }
    [[nodiscard]] std::uint32_t group_tokens() const { return n_unroll * block_size; }
    /// blocks / groups: KV blocks and groups of sequence b.
    [[nodiscard]] std::uint32_t blocks(std::uint32_t b) const;
    [[nodiscard]] std::uint32_t groups(std::uint32_t b) const {
        return (blocks(b) + n_unroll - 1) / n_unroll;
    }
    [[nodiscard]] std::uint32_t max_context_len() const;
    /// Totals over the graph: scopes (= framework tasks), groups, kernel launches (4 per group).
    [[nodiscard]] std::uint64_t scope_count() const { return std::uint64_t{batch} * head_tiles(); }
    [[nodiscard]] std::uint64_t group_count() const;
    [[nodiscard]] std::uint64_t kernel_task_count() const { return 4 * group_count(); }
};

/// case1: docs/design/reference-graphs.md Case1 (1920 kernel launches, one group per scope).
[[nodiscard]] Shape case1();
/// compute_case: reduced F32 dimensions for the compute executor: 2 head tiles, GQA, partial blocks and
/// groups, 1 to 8 groups per sequence.
[[nodiscard]] Shape compute_case();

/// Memory: where a Problem's buffers live.
enum class Memory : std::uint8_t {
    Virtual,  ///< never-dereferenced addresses (instant and timed executors; full-size graphs cost nothing)
    Real,     ///< host memory with deterministic data (compute executor); needs dtype F32
};

/// Problem: the buffers of one decode step. Every sequence owns its own pages; the block table maps its
/// logical blocks to a shuffled set of physical pages. It also holds the static templates of schemes C
/// and D (built by the constructor, so build() sets nothing up per call) and their bindings: one thread
/// at a time may build a given problem's schemes C and D.
class Problem {
  public:
    /// Throws InvalidArgument if the shape is invalid or Real memory is asked for a non-F32 shape.
    Problem(Shape shape, Memory memory, std::uint64_t seed = 1);
    ~Problem();
    Problem(Problem&&) noexcept;
    Problem& operator=(Problem&&) noexcept;

    [[nodiscard]] const Shape& shape() const;
    [[nodiscard]] Memory memory() const;
    /// bytes: host memory a Real problem of `shape` needs (query, caches, block table, output).
    [[nodiscard]] static std::uint64_t bytes(const Shape& shape);

    /// Views: query [batch, num_heads, head_dim], K and V caches [pages, block_size, kv_head_num, head_dim]
    /// and block table [batch, max_blocks_per_seq] (I32) are untracked: nothing in the graph writes them.
    /// The output [batch, num_heads, head_dim] is tracked: the last online_update of each scope writes it.
    [[nodiscard]] const TensorView& query() const;
    [[nodiscard]] const TensorView& key_cache() const;
    [[nodiscard]] const TensorView& value_cache() const;
    [[nodiscard]] const TensorView& block_table() const;
    [[nodiscard]] const TensorView& out() const;

    /// out_values: the output (Real only; InvalidArgument otherwise). poison_out fills it with NaN so a
    /// run that misses an element fails the golden check.
    [[nodiscard]] std::span<const float> out_values() const;
    void poison_out();

  private:
    struct Impl;
    // build() reaches the static templates of schemes C and D kept in Impl.
    friend void build(const Problem& problem, Scheme scheme);
    std::unique_ptr<Impl> impl_;
};

// ---- Kernels ------------------------------------------------------------------------------------------

/// FuncIds of the four kernels (0..99 are left to other graphs sharing a Runtime).
inline constexpr FuncId kQkMatmul{100};
inline constexpr FuncId kSoftmaxPrepare{101};
inline constexpr FuncId kPvMatmul{102};
inline constexpr FuncId kOnlineUpdate{103};

/// KernelSpec: one kernel: id, core type, name, mean a2a3 duration (docs/design/reference-graphs.md) and CPU
/// implementation.
struct KernelSpec {
    FuncId id;
    CoreType core;
    std::string_view name;
    double duration_us;
    KernelFn fn;
};
/// kernel_table: the four kernels in group order (QK, softmax_prepare, PV, online_update).
[[nodiscard]] std::span<const KernelSpec> kernel_table();
/// register_kernels: registers the four kernels on `rt` (not during a run: RunInProgress).
void register_kernels(Runtime& rt);

// ---- Per-group description (shared by the dynamic builder and static templates) -------------------------

/// HeadTiling: what every scope's description derives from the shape alone. Each field costs a division or
/// a square root, so a graph builder computes them once per graph and hands them to scope_desc, instead of
/// once or more per scope.
struct HeadTiling {
    std::uint32_t q_tile;        ///< Shape::q_tile
    std::uint32_t heads_per_kv;  ///< Shape::heads_per_kv
    std::uint32_t head_tiles;    ///< Shape::head_tiles
    float softmax_scale;         ///< softmax_prepare's scalar, 1 / sqrt(head_dim)
};
/// head_tiling: the tiling of `shape`.
[[nodiscard]] HeadTiling head_tiling(const Shape& shape);

/// ScopeDesc: one (batch, head tile) scope, with what its groups' arguments need from the tiling.
struct ScopeDesc {
    std::uint32_t batch;
    std::uint32_t head_tile;
    std::uint32_t first_head;  ///< head_tile x q_tile
    std::uint32_t q_tile;
    std::uint32_t kv_head;
    std::uint32_t context_len;
    std::uint32_t block_count;  ///< KV blocks of the sequence
    std::uint32_t group_count;
    float softmax_scale;
};
/// GroupDesc: group g of a scope: KV blocks [first_block, first_block + block_count), valid_tokens tokens.
struct GroupDesc {
    std::uint32_t group;
    std::uint32_t first_block;
    std::uint32_t block_count;
    std::uint32_t valid_tokens;
    bool is_first;
    bool is_last;
};
[[nodiscard]] ScopeDesc scope_desc(const Shape& shape, const HeadTiling& tiling, std::uint32_t batch,
                                   std::uint32_t head_tile);
/// scope_desc: the same, deriving the tiling first (for callers that describe one scope).
[[nodiscard]] ScopeDesc scope_desc(const Shape& shape, std::uint32_t batch, std::uint32_t head_tile);
[[nodiscard]] GroupDesc group_desc(const Shape& shape, const ScopeDesc& scope, std::uint32_t group);

/// ScopeTensors: a scope's scratch, allocated by one alloc task (q = q_tile, W = group_tokens, G = groups).
/// Per-group buffers are indexed by group, so a QK of group g+1 never overwrites what group g still reads.
/// The members refer to the views where the runtime keeps the alloc task's arguments
/// (TaskHandle::output_ref): valid while the scope that allocated them is open, and not copied per scope.
struct ScopeTensors {
    const TensorView& sij;     ///< [G, q, W] F32: scores of each group (QK writes, softmax_prepare reads)
    const TensorView& pij;     ///< [G, q, W] dtype: probabilities (softmax_prepare writes, PV reads)
    const TensorView& mi;      ///< [G, q] F32: group row max of the scaled scores (softmax_prepare writes)
    const TensorView& li;      ///< [G, q] F32: group row sum of pij (softmax_prepare writes)
    const TensorView& oi_new;  ///< [G, q, head_dim] F32: pij x V of each group (PV writes)
    const TensorView& m_run;   ///< [q] F32: running max (online_update, group to group)
    const TensorView& l_run;   ///< [q] F32: running sum
    const TensorView& oi;      ///< [q, head_dim] F32: running unnormalised output
};
inline constexpr std::uint32_t kScratchTensors = 8;
/// scratch_infos: the alloc_tensors request of a scope with `groups` groups, in ScopeTensors order.
[[nodiscard]] std::array<TensorCreateInfo, kScratchTensors> scratch_infos(const Shape& shape,
                                                                          std::uint32_t groups);
/// ScratchRequest: scratch_infos of the last group count asked for. Consecutive scopes mostly have the same
/// group count, so a graph builder keeps one and rebuilds the eight create-infos only when it changes.
class ScratchRequest {
  public:
    [[nodiscard]] const std::array<TensorCreateInfo, kScratchTensors>& infos(const Shape& shape,
                                                                             std::uint32_t groups) {
        if (groups != groups_) {
            infos_ = scratch_infos(shape, groups);
            groups_ = groups;
        }
        return infos_;
    }

  private:
    std::uint32_t groups_ = 0;  // no scope has zero groups
    std::array<TensorCreateInfo, kScratchTensors> infos_;
};
/// scope_tensors: the views of an alloc task made from scratch_infos, read where the runtime keeps them.
[[nodiscard]] ScopeTensors scope_tensors(const TaskHandle& alloc);
/// scope_scratch_bytes: heap bytes of one scope's scratch (each buffer rounded to the heap's 64 bytes).
[[nodiscard]] std::uint64_t scope_scratch_bytes(const Shape& shape, std::uint32_t groups);
/// scratch_bytes: heap bytes of every scope's scratch at once (what serial mode must hold).
[[nodiscard]] std::uint64_t scratch_bytes(const Shape& shape);

/// The arguments of group g's four kernels, appended to `args` in the order the CPU kernels read them:
///   qk_matmul        in q[b, tile], K[kv_head], block_table[b]; out sij[g].
///                    Scalars first_block, block_count, valid_tokens.
///   softmax_prepare  in sij[g]; out pij[g], mi[g], li[g].  Scalars valid_tokens, scale (float).
///   pv_matmul        in pij[g], V[kv_head], block_table[b]; out oi_new[g].  Scalars as qk_matmul.
///   online_update    in mi[g], li[g], oi_new[g]; m_run, l_run, oi (out in the first group, else inout);
///                    out[b, tile] (last group only).  Scalars is_first, is_last.
/// Nothing here adds dependencies: scheme A adds them, scheme B discovers them from these tensors. The
/// static templates of schemes C and D bind the same views and scalars, node for node.
void qk_matmul_args(const Problem& p, const ScopeDesc& s, const ScopeTensors& t, const GroupDesc& g,
                    Args& args);
void softmax_prepare_args(const ScopeDesc& s, const ScopeTensors& t, const GroupDesc& g, Args& args);
void pv_matmul_args(const Problem& p, const ScopeDesc& s, const ScopeTensors& t, const GroupDesc& g,
                    Args& args);
void online_update_args(const Problem& p, const ScopeDesc& s, const ScopeTensors& t, const GroupDesc& g,
                        Args& args);

// ---- Graph --------------------------------------------------------------------------------------------

/// build: submits the whole graph of `problem`; call inside pto::run on a runtime with register_kernels.
/// Manual (A): PTO2_SCOPE(MANUAL), explicit edges QK->SF->PV->UP, UP(g-1)->UP(g), alloc->UP(last).
/// Tensormap (B): PTO2_SCOPE(), no explicit edges; the same tensors, so discovery finds A's edges plus
/// SF->UP (mi, li) and alloc->every kernel (creator of the scratch).
/// StaticManual (C) / StaticTensormap (D): the same scopes, each with its dynamic alloc, then one
/// instance of a four-node group template per group; C names UP(g-1) and, for the last group, the alloc
/// as boundary producers (A's edges exactly); D declares the boundary tensors and lets the tensormap find
/// them (B's edges exactly). C and D use the problem's bindings: one orchestrator thread per problem.
/// Allocates nothing per call once the runtime's pools have been used.
void build(const Problem& problem, Scheme scheme);
/// supports: whether build() builds `scheme`.
[[nodiscard]] bool supports(Scheme scheme);

/// fit_whole_graph: raises cfg's window, heap and tensormap capacities so the whole graph of `shape` fits
/// at once (serial mode). Never lowers a knob.
void fit_whole_graph(RuntimeConfig& cfg, const Shape& shape);

/// GraphCounts: docs/bench.md's counts of a recorded graph, as pto::count_graph gives them.
using GraphCounts = pto::GraphCounts;
/// expected_counts: what build(scheme) submits for `shape` (C counts as A, D as B).
[[nodiscard]] GraphCounts expected_counts(const Shape& shape, Scheme scheme);

// ---- Golden -------------------------------------------------------------------------------------------

/// dense_reference: softmax(q k^T / sqrt(head_dim)) v per sequence and head over its valid context, in
/// double, without pages or groups. Real problems only. [batch, num_heads, head_dim] row-major.
[[nodiscard]] std::vector<float> dense_reference(const Problem& problem);
/// golden_tolerance: the absolute error bound for F32 kernels against the double reference (derivation
/// in golden.cpp): 4 (L + 2 d^1.5 + 16) 2^-24 for context L and head_dim d, inputs in [-1, 1].
[[nodiscard]] double golden_tolerance(const Shape& shape);

inline constexpr std::string_view kMismatchDir = "outputs/golden_mismatch";

/// GoldenResult: a comparison's verdict and, on a mismatch, where the tensors were written.
struct GoldenResult {
    bool ok = false;
    double max_abs_error = 0.0;
    double max_rel_error = 0.0;
    double tolerance = 0.0;
    std::int64_t first_bad = -1;  ///< flat index of the first element beyond tolerance (or NaN), else -1
    std::string dump_prefix;      ///< "<dir>/<name>" of the .golden.txt / .actual.txt files, if written
};
/// compare_with_golden: element-wise |actual - golden| <= tolerance (NaN fails). On a mismatch writes
/// <dir>/<name>.golden.txt and .actual.txt, each with a header (name, shape, dtype, errors, first bad index).
[[nodiscard]] GoldenResult compare_with_golden(std::string_view name, std::span<const float> actual,
                                               std::span<const float> golden,
                                               std::span<const std::uint32_t> shape, double tolerance,
                                               std::string_view dir = kMismatchDir);
/// check_golden: compares problem.out_values() with dense_reference(problem) at golden_tolerance.
[[nodiscard]] GoldenResult check_golden(const Problem& problem, std::string_view name,
                                        std::string_view dir = kMismatchDir);

}  // namespace pto::examples::paged_attention
