// The Qwen3-14B decode layer of docs/design/reference-graphs.md: its 17 operators, shapes (full and reduced),
// the tensors of one layer, the graph builder (dynamic schemes A and B, static-template schemes C and D), the
// CPU kernels and the golden check. Sources: examples/qwen3/ (README.md there explains the graph;
// docs/graphs.md is the tutorial).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pto/examples/common.h"
#include "pto/runtime/graph.h"
#include "pto/runtime/ids.h"
#include "pto/runtime/runtime.h"
#include "pto/runtime/tensor.h"

namespace pto::examples::qwen3 {

// ---- Operators and kernels ----------------------------------------------------------------------------

/// Op: the 17 operators of the layer in table order (docs/design/reference-graphs.md).
enum class Op : std::uint8_t {
    RmsNorm,  ///< Scope 1 (per tile)
    QProj,
    KProj,
    VProj,
    QkNorm,
    RopeKvCache,  ///< Scope 2 (per batch row)
    QkMatmul,
    Softmax,
    SvMatmul,
    OnlineSoftmax,
    OutProjResidual,  ///< Scope 3 (per tile); MIX
    PostRmsNorm,
    GateProj,
    UpProj,
    Silu,
    DownProj,
    DownProjResidual,
};
inline constexpr std::uint32_t kOpCount = 17;

/// OpInfo: one row of the docs/design/reference-graphs.md table.
struct OpInfo {
    std::string_view name;
    CoreType core;
    std::uint32_t chunks;  ///< n: subtasks per tile (Scopes 1, 3) or per row (Scope 2), at every tier
    std::uint32_t scope;   ///< 1, 2 or 3
    double duration_us;    ///< mean a2a3 duration of one subtask (docs/design/reference-graphs.md)
};

/// op_info: the table row of `op`.
[[nodiscard]] const OpInfo& op_info(Op op);
[[nodiscard]] inline std::string_view to_string(Op op) {
    return op_info(op).name;
}

/// FuncIds: the layer uses kFuncIdCount consecutive ids from `first` (default 0): one per operator in
/// Op order, except out_proj_residual, which has three (its AIC lane, then its two AIV lanes).
inline constexpr std::uint16_t kFuncIdCount = 19;
/// func_id: the kernel of `op` (for out_proj_residual, of MIX lane `lane` 0..2; other ops ignore it).
[[nodiscard]] FuncId func_id(Op op, std::uint32_t lane = 0, std::uint16_t first = 0);
/// op_of: the operator a FuncId of this layer belongs to, or nullopt for ids outside the range.
[[nodiscard]] std::optional<Op> op_of(FuncId f, std::uint16_t first = 0);

/// register_kernels: registers the 19 FuncIds on `rt` with their names ("rmsnorm", ...,
/// "out_proj_residual_aic" / "_aiv0" / "_aiv1", ...), mean durations and CPU implementations (used by
/// the compute executor, which needs a Problem with memory). Replaces ids first..first+18. Not during a run.
void register_kernels(Runtime& rt, std::uint16_t first = 0);

// ---- Shapes -------------------------------------------------------------------------------------------

/// Shapes: the dimensions of one decode layer. The chunk counts per operator are fixed by
/// docs/design/reference-graphs.md and do not appear here; chunk sizes follow from the dimensions (e.g.
/// q_proj column chunk = hidden / 20).
struct Shapes {
    std::uint32_t batch = 90;      ///< real rows; Scope 2 iterates them
    std::uint32_t tile_rows = 16;  ///< Scopes 1 and 3 iterate tiles of this many rows (last partial)
    std::uint32_t q_heads = 40;
    std::uint32_t kv_heads = 8;
    std::uint32_t head_dim = 128;
    std::uint32_t intermediate = 17408;
    std::uint32_t max_context = 4096;  ///< KV-cache positions per row (context lengths vary per row)
    std::uint32_t kv_block = 128;      ///< positions per softmax block (what online_softmax combines)

    /// full: the Qwen3-14B sizes of docs/design/reference-graphs.md (for graphs over fake addresses).
    static Shapes full();
    /// reduced: the same tiles, rows, heads and chunk counts with small chunks (head_dim 16,
    /// intermediate 544, contexts up to 32 in blocks of 8), cheap enough to compute on the CPU.
    static Shapes reduced();

    [[nodiscard]] std::uint32_t hidden() const { return q_heads * head_dim; }
    [[nodiscard]] std::uint32_t kv_hidden() const { return kv_heads * head_dim; }
    [[nodiscard]] std::uint32_t tiles() const { return (batch + tile_rows - 1) / tile_rows; }
    [[nodiscard]] std::uint32_t batch_padded() const { return tiles() * tile_rows; }
    /// valid_rows: real rows of tile t (tile_rows except possibly in the last tile).
    [[nodiscard]] std::uint32_t valid_rows(std::uint32_t tile) const {
        const std::uint32_t first = tile * tile_rows;
        return first >= batch ? 0 : std::min(tile_rows, batch - first);
    }
    [[nodiscard]] std::uint32_t max_blocks() const { return (max_context + kv_block - 1) / kv_block; }
    /// chunk_size: what one chunk of `op` covers: columns for the projections, silu and the residual
    /// adds, query heads for the four attention operators, the whole tile or row (1) otherwise.
    [[nodiscard]] std::uint32_t chunk_size(Op op) const;
    /// context_len: the context length of batch row `row` (1..max_context, including the new token);
    /// varies with the row so blocks are full, partial and single.
    [[nodiscard]] std::uint32_t context_len(std::uint32_t row) const;

    /// validate: throws Error{InvalidArgument} naming the first dimension that cannot be chunked as the
    /// table requires (e.g. hidden not a multiple of 40, q_heads or kv_heads not a multiple of 4).
    void validate() const;
};

// ---- Tensors of one layer ------------------------------------------------------------------------------

/// Tensors: every tensor of the layer as a whole-buffer view (float32, row-major). Weights and constants
/// are untracked (no dependency discovery); inputs, the KV cache, intermediates and the output are
/// tracked. Intermediates have one buffer per tensor covering all rows, so each tile / row owns a
/// disjoint region of it: fresh per tile / row as far as the tensormap can tell.
struct Tensors {
    // Inputs and weights. B = batch_padded, H = hidden, K = kv_hidden, I = intermediate, D = head_dim.
    TensorView x;                ///< [B, H] hidden states in; also the first residual
    TensorView rms_weight;       ///< [H] untracked
    TensorView wq, wk, wv;       ///< [H, H], [H, K], [H, K] untracked
    TensorView q_norm_weight;    ///< [D] untracked
    TensorView k_norm_weight;    ///< [D] untracked
    TensorView rope_cos;         ///< [max_context, D/2] untracked
    TensorView rope_sin;         ///< [max_context, D/2] untracked
    TensorView wo;               ///< [H, H] untracked
    TensorView post_rms_weight;  ///< [H] untracked
    TensorView w_gate, w_up;     ///< [H, I] untracked
    TensorView w_down;           ///< [I, H] untracked
    // KV cache: rope_kv_cache writes position context_len(b) - 1 of row b; attention reads 0..len-1.
    TensorView k_cache, v_cache;  ///< [B, kv_heads, max_context, D]
    // Intermediates.
    TensorView x_norm;         ///< [B, H]
    TensorView q, k, v;        ///< [B, H], [B, K], [B, K]
    TensorView q_normed;       ///< [B, H]
    TensorView k_normed;       ///< [B, K]
    TensorView q_rope;         ///< [B, q_heads, D]
    TensorView scores, probs;  ///< [B, q_heads, max_context]
    TensorView block_max;      ///< [B, q_heads, max_blocks]
    TensorView block_sum;      ///< [B, q_heads, max_blocks]
    TensorView o_part;         ///< [B, q_heads, max_blocks, D] unnormalised per-block outputs
    TensorView attn;           ///< [B, H]
    TensorView h1;             ///< [B, H] x + attn @ wo
    TensorView h1_norm;        ///< [B, H]
    TensorView gate, up, act;  ///< [B, I]
    TensorView down;           ///< [B, H]
    // Output.
    TensorView out;  ///< [B, H] h1 + down
};

/// Problem: one layer's shapes and tensors, with real memory (compute executor) or with fake addresses
/// (instant and timed executors: full-size graphs without gigabytes of memory). Move-only.
class Problem {
  public:
    /// with_fake_addresses: tensors at never-dereferenced addresses (a private VirtualAddressSpace).
    static Problem with_fake_addresses(const Shapes& shapes = Shapes::full());
    /// with_memory: tensors in host memory, inputs and weights filled from `seed` (uniform values scaled
    /// to keep activations near 1), intermediates poisoned (see reset). Throws InvalidArgument for
    /// more than 2^30 elements in total.
    static Problem with_memory(const Shapes& shapes = Shapes::reduced(), std::uint64_t seed = 1);

    Problem(Problem&&) noexcept;
    Problem& operator=(Problem&&) noexcept;
    ~Problem();

    [[nodiscard]] const Shapes& shapes() const { return shapes_; }
    [[nodiscard]] const Tensors& tensors() const { return tensors_; }

    // Shapes' per-operator and per-row values, kept from construction: every launch reads some of them on
    // the orchestration path, and computing them there costs a division each.
    [[nodiscard]] std::uint32_t chunk_size(Op op) const { return chunk_sizes_[static_cast<std::size_t>(op)]; }
    [[nodiscard]] std::uint32_t context_len(std::uint32_t row) const { return rows_[row].context_len; }
    /// kv_blocks: the KV blocks of row `row` (ceil(context_len / kv_block)), what online_softmax combines.
    [[nodiscard]] std::uint32_t kv_blocks(std::uint32_t row) const { return rows_[row].kv_blocks; }
    [[nodiscard]] bool has_memory() const { return !storage_.empty(); }

    /// reset: fills every intermediate, the output and the KV-cache positions the layer writes with NaN,
    /// so a kernel that runs before its producer (a missing edge) leaves NaN in the result. Call before
    /// each compute run. No effect without memory.
    void reset();

  private:
    explicit Problem(const Shapes& shapes);

    struct Row {
        std::uint32_t context_len;
        std::uint32_t kv_blocks;
    };

    Shapes shapes_;
    std::array<std::uint32_t, kOpCount> chunk_sizes_{};
    std::vector<Row> rows_;  // batch_padded() rows
    Tensors tensors_{};
    std::vector<float> storage_;
    std::unique_ptr<VirtualAddressSpace> fake_;
};

// ---- The graph -----------------------------------------------------------------------------------------

/// LaunchCounts: kernel launches per scope for one tier (docs/design/reference-graphs.md table), and subtasks
/// (always 3096).
struct LaunchCounts {
    std::uint64_t scope[3] = {};
    std::uint64_t subtasks = 0;
    [[nodiscard]] std::uint64_t total() const { return scope[0] + scope[1] + scope[2]; }
};

/// expected_launches: the counts the launch rule gives for `shapes` at `tier`.
[[nodiscard]] LaunchCounts expected_launches(const Shapes& shapes, SpmdTier tier);

/// DecodeGraph: submits the layer's graph (docs/design/reference-graphs.md) for one problem and tier.
/// Construct it outside the timed region: it precomputes the launches and the id storage, and builds the
/// static templates of schemes C and D (G1 = a tile of Scope 1, G2 = a row of Scope 2, G3 = a tile of Scope
/// 3, per boundary mode) with their bindings. Then call submit inside pto::run as often as wanted; submit
/// allocates nothing. Scopes: one per tile in Scope 1, one per row in Scope 2, one per tile in Scope 3 (at
/// most 223 tasks each), no enclosing scope, so any window of >= 256 tasks runs the graph in concurrent mode
/// (C and D also need room for a whole instance's argument records: about 155 KiB for G3 at non-spmd, which
/// the default RuntimeConfig::argument_bytes of window_tasks x 512 covers from a window of 512). The problem
/// must outlive the graph, and the graph every run it submitted (instances refer to its templates).
/// One orchestrator thread at a time per graph (the bindings are its per-instance workspace).
///
///     DecodeGraph graph(problem, SpmdTier::Spmd4);
///     pto::run(rt, [&] { graph.submit(Scheme::Tensormap); });
class DecodeGraph {
  public:
    DecodeGraph(const Problem& problem, SpmdTier tier, std::uint16_t first_func = 0);
    ~DecodeGraph();
    DecodeGraph(const DecodeGraph&) = delete;
    DecodeGraph& operator=(const DecodeGraph&) = delete;

    /// submit: submits every task of the layer (orchestrator thread, inside pto::run); every scheme
    /// submits the same launches in the same order with the same kernel edges. A: PTO2_SCOPE(MANUAL) with
    /// the rule's edges. B: PTO2_SCOPE() and no explicit edges, so every edge comes from the tensors. C:
    /// one template instance per tile / row in PTO2_SCOPE(MANUAL), internal edges from the template,
    /// boundary producers (rope <- qk_norm + v_proj of its tile; out_proj <- online_softmax of the tile's
    /// rows) named by hand. D: the same instances in PTO2_SCOPE(), boundary edges found by the tensormap
    /// at the declared boundary tensors only. Throws InvalidArgument for the compute executor with fake
    /// addresses, NoActiveRun outside a run, and whatever the submit and instantiate calls throw (e.g.
    /// CapacityExhausted naming argument_bytes, see above).
    void submit(Scheme scheme);

    [[nodiscard]] SpmdTier tier() const;
    [[nodiscard]] const Problem& problem() const;
    [[nodiscard]] LaunchCounts counts() const;

    struct State;

  private:
    std::unique_ptr<State> state_;
};

/// supports: whether DecodeGraph::submit builds `scheme`.
[[nodiscard]] bool supports(Scheme scheme);

/// build: DecodeGraph(problem, tier, first_func).submit(scheme) in one call (allocates per call), for
/// schemes A and B. Schemes C and D throw InvalidArgument: their instances refer to the graph's
/// templates until they retire, after the run, so the DecodeGraph must outlive the run.
void build(const Problem& problem, Scheme scheme, SpmdTier tier, std::uint16_t first_func = 0);

// ---- Reading a recorded graph --------------------------------------------------------------------------

/// GraphCounts: pto::count_graph's counts of a recorded run of the layer, plus its launches per scope.
struct GraphCounts : pto::GraphCounts {
    std::uint64_t scope_launches[3] = {};
};

/// count_graph: counts of `graph` (RuntimeConfig::record_graph); launches are classified by scope through
/// their FuncIds.
[[nodiscard]] GraphCounts count_graph(const GraphRecord& graph, std::uint16_t first_func = 0);

/// kernel_edges: the kernel-to-kernel edges of `graph` as sorted (producer, consumer) positions in
/// submission order, so graphs of different runs (whose task ids differ) compare directly.
[[nodiscard]] std::vector<std::pair<std::uint32_t, std::uint32_t>> kernel_edges(const GraphRecord& graph);

// ---- Reference and golden check ------------------------------------------------------------------------

/// Golden: what the layer produces, computed by a plain sequential reference in double precision:
/// the output rows and the new KV-cache entries, for the `batch` real rows.
struct Golden {
    std::vector<float> out;    ///< [batch, hidden]
    std::vector<float> k_new;  ///< [batch, kv_heads, head_dim] (row b at position context_len(b) - 1)
    std::vector<float> v_new;  ///< [batch, kv_heads, head_dim]
};

/// reference: the whole layer, sequentially (no chunks, no blocks: one softmax over the full context).
/// Reads only inputs and weights of `problem`, which needs memory (InvalidArgument otherwise).
[[nodiscard]] Golden reference(const Problem& problem);

/// Tolerance: |actual - golden| <= abs + rel * |golden| per element; NaN always fails. The defaults and
/// their justification are in examples/qwen3/golden.cpp.
struct Tolerance {
    double abs = 1e-4;
    double rel = 1e-3;
};

/// TensorCheck: the comparison of one output tensor.
struct TensorCheck {
    std::string name;
    std::vector<std::uint32_t> shape;
    double max_abs_error = 0.0;
    double max_rel_error = 0.0;         ///< relative to max(|golden|, tolerance abs / rel)
    std::int64_t first_bad_index = -1;  ///< row-major element index, -1 if none
    bool ok = true;
};

/// GoldenReport: the verdict over every output tensor; `dump_dir` names where a mismatch was written.
struct GoldenReport {
    bool ok = true;
    std::vector<TensorCheck> tensors;
    std::filesystem::path dump_dir;
    /// summary: one line, e.g. "match (max abs 3.1e-06, max rel 2.0e-05)" or "MISMATCH in out ...".
    [[nodiscard]] std::string summary() const;
};

/// check_golden: compares the problem's output and new KV-cache entries with `golden`. On a mismatch,
/// writes, for every tensor, golden and actual data (raw little-endian float32) and a text header (name,
/// shape, dtype, max abs / rel error, first bad index) to `dump_root`/`label`/ and names the folder in
/// the report. The problem needs memory (InvalidArgument otherwise).
[[nodiscard]] GoldenReport check_golden(const Problem& problem, const Golden& golden, std::string_view label,
                                        Tolerance tolerance = {},
                                        const std::filesystem::path& dump_root = "outputs/golden_mismatch");

}  // namespace pto::examples::qwen3
