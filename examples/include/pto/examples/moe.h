// A Mixtral-style MoE FFN decode layer as a data-dependent graph: a router picks the top-k experts per token,
// the orchestration waits for the routing (pto::wait), reads how many tokens each expert got and launches
// exactly that much expert work, then combines. Sources: examples/moe/ (README.md there explains the graph;
// docs/graphs.md is the guide). Dynamic schemes A and B, static-template schemes C and D, CPU kernels,
// a sequential reference and the golden check.
#pragma once

#include <cstdint>
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

namespace pto::examples::moe {

// ---- Operators and kernels ----------------------------------------------------------------------------

/// Op: the eight operators, in submission order.
enum class Op : std::uint8_t {
    Router,    ///< AIV, per token tile: logits = x W_router, top-k experts and their softmax weights
    Route,     ///< AIV, one block: per-expert token lists and counts (what the orchestration reads)
    Gather,    ///< AIV, per expert tile: the tile's token rows of x, packed
    GateProj,  ///< AIC, per expert tile, kGateChunks column chunks of intermediate
    UpProj,    ///< AIC, same chunks
    SiluMul,   ///< AIV, silu(gate) * up, same chunks
    DownProj,  ///< AIC, per expert tile, kDownChunks column chunks of hidden
    Combine,   ///< AIV, per token tile: out = sum over the token's experts of weight * down row
};
inline constexpr std::uint32_t kOpCount = 8;
/// Chunk counts, the same at every size (as Qwen3's table): gate/up/silu split intermediate (14336 = 28 x
/// 512), down_proj splits hidden (4096 = 32 x 128).
inline constexpr std::uint32_t kGateChunks = 28;
inline constexpr std::uint32_t kDownChunks = 32;

/// OpInfo: name, core type and mean a2a3 duration of one subtask (derived from Qwen3's measured times:
/// examples/moe/README.md gives the arithmetic).
struct OpInfo {
    std::string_view name;
    CoreType core;
    double duration_us;
};
[[nodiscard]] const OpInfo& op_info(Op op);
/// func_id: the kernel of `op`: ids first .. first + kOpCount - 1 in Op order.
[[nodiscard]] FuncId func_id(Op op, std::uint16_t first = 0);
/// register_kernels: the eight kernels with names, durations and CPU implementations. Not during a run.
void register_kernels(Runtime& rt, std::uint16_t first = 0);

// ---- Shapes -------------------------------------------------------------------------------------------

/// Shapes: one MoE FFN layer of a decode step.
struct Shapes {
    std::uint32_t tokens = 64;     ///< decode batch
    std::uint32_t tile_rows = 16;  ///< rows per token tile (router, combine) and per expert tile
    std::uint32_t hidden = 4096;
    std::uint32_t experts = 8;
    std::uint32_t top_k = 2;
    std::uint32_t intermediate = 14336;

    /// full: Mixtral-8x7B (hidden 4096, 8 experts, top-2, intermediate 14336), 64 tokens.
    static Shapes full();
    /// reduced: the same chunk counts with small chunks (hidden 64, intermediate 56), 20 tokens in tiles
    /// of 4, cheap enough for the CPU kernels.
    static Shapes reduced();

    [[nodiscard]] std::uint32_t token_tiles() const { return (tokens + tile_rows - 1) / tile_rows; }
    /// assignments: rows of the packed expert buffers (tokens x top_k).
    [[nodiscard]] std::uint32_t assignments() const { return tokens * top_k; }
    [[nodiscard]] std::uint32_t gate_chunk() const { return intermediate / kGateChunks; }
    [[nodiscard]] std::uint32_t down_chunk() const { return hidden / kDownChunks; }
    /// validate: InvalidArgument naming the first dimension that does not fit (chunk divisibility,
    /// top_k > experts, zero sizes).
    void validate() const;
};

/// Routing: how many tokens each expert got and where its rows start in the packed buffers (experts in
/// order, each expert's tokens in token order).
struct Routing {
    std::vector<std::uint32_t> count;   ///< per expert
    std::vector<std::uint32_t> offset;  ///< per expert: first packed row
    /// tiles: expert tiles of expert e (ceil(count / tile_rows)).
    [[nodiscard]] std::uint32_t tiles(std::uint32_t e, std::uint32_t tile_rows) const {
        return (count[e] + tile_rows - 1) / tile_rows;
    }
};

// ---- Tensors ------------------------------------------------------------------------------------------

/// Tensors: every tensor as a whole-buffer view. T = tokens, H = hidden, E = experts, K = top_k, I =
/// intermediate, A = T x K packed rows. Weights untracked; everything else tracked.
struct Tensors {
    TensorView x;              ///< [T, H] f32 input
    TensorView w_router;       ///< [H, E] f32 untracked
    TensorView w_gate, w_up;   ///< [E, H, I] f32 untracked
    TensorView w_down;         ///< [E, I, H] f32 untracked
    TensorView topk_idx;       ///< [T, K] i32 (router)
    TensorView topk_w;         ///< [T, K] f32 (router)
    TensorView expert_count;   ///< [E] i32 (route; read by the orchestration after the wait)
    TensorView assign_token;   ///< [A] i32 (route): the token of each packed row
    TensorView assign_row;     ///< [T, K] i32 (route): the packed row of each (token, choice)
    TensorView xe;             ///< [A, H] gathered rows
    TensorView gate, up, act;  ///< [A, I]
    TensorView down;           ///< [A, H]
    TensorView out;            ///< [T, H]
};

/// Problem: shapes and tensors with host memory (compute executor) or fake addresses (instant and timed
/// executors). A fake-address problem has no router to run, so it carries a fixed routing drawn from
/// `seed` (each token picks top_k distinct experts uniformly), which stands for what the route kernel
/// would have written. Move-only.
class Problem {
  public:
    static Problem with_fake_addresses(const Shapes& shapes = Shapes::full(), std::uint64_t seed = 7);
    /// with_memory: inputs and weights from `seed`, outputs poisoned (see reset).
    static Problem with_memory(const Shapes& shapes = Shapes::reduced(), std::uint64_t seed = 1);

    Problem(Problem&&) noexcept;
    Problem& operator=(Problem&&) noexcept;
    ~Problem();

    [[nodiscard]] const Shapes& shapes() const { return shapes_; }
    [[nodiscard]] const Tensors& tensors() const { return tensors_; }
    [[nodiscard]] bool has_memory() const { return !storage_.empty(); }

    /// reset: fills the router's and route's outputs, every intermediate and the output with poison
    /// (NaN, or -1 for indices and counts), so a kernel running before its producer shows. Call before
    /// each compute run. No effect without memory.
    void reset();
    /// routing: what the route kernel wrote (memory), or the fixed routing (fake addresses). With memory,
    /// call it only after waiting for the route task. Throws InvalidArgument if the counts are not a
    /// routing (poison, or counts not summing to tokens x top_k): the wait was missing.
    [[nodiscard]] Routing routing() const;

  private:
    Problem() = default;

    Shapes shapes_;
    Tensors tensors_{};
    std::vector<std::uint64_t> storage_;  // 8-byte words, so every buffer is aligned for f32 and i32
    std::unique_ptr<VirtualAddressSpace> fake_;
    std::vector<std::uint32_t> fixed_counts_;  // fake addresses only
};

// ---- The graph -----------------------------------------------------------------------------------------

/// MoeGraph: submits the layer for one problem and tier (SPMD tiers as for Qwen3: gate/up/silu have 28
/// chunks, down 32, router and combine one per token tile). Construct outside the timed region: it builds
/// the static templates of schemes C and D. submit(scheme) inside pto::run:
///
///     scope: router launches, route          (A, C: MANUAL with edges; B, D: AUTO)
///     pto::wait(route); routing = problem.routing()
///     per expert e, per tile of its count[e] tokens, one scope:
///         gather -> gate_proj L, up_proj L -> silu L -> every down_proj launch
///         (C, D: one template instance per expert tile)
///     scope: (A, C: join of every down_proj) -> combine launches
///
/// Experts without tokens get no launches. One orchestrator thread at a time; the problem outlives the
/// graph and the graph every run it submitted.
class MoeGraph {
  public:
    MoeGraph(const Problem& problem, SpmdTier tier, std::uint16_t first_func = 0);
    ~MoeGraph();
    MoeGraph(const MoeGraph&) = delete;
    MoeGraph& operator=(const MoeGraph&) = delete;

    /// submit: the whole layer, waiting once for the route task. Throws what pto::wait and the submits
    /// throw, and InvalidArgument if the routing read after the wait is not one (see Problem::routing).
    void submit(Scheme scheme);

    struct State;

  private:
    std::unique_ptr<State> state_;
};

[[nodiscard]] bool supports(Scheme scheme);

/// GraphCounts of one run for `routing` (what pto::count_graph of the recorded graph gives).
[[nodiscard]] pto::GraphCounts expected_counts(const Shapes& shapes, const Routing& routing, SpmdTier tier,
                                               Scheme scheme);

/// edges_by_position: every edge of `graph` (kernel and framework) as sorted (producer, consumer)
/// positions in submission order, so graphs of different runs compare directly.
[[nodiscard]] std::vector<std::pair<std::uint32_t, std::uint32_t>> edges_by_position(
    const GraphRecord& graph);

// ---- Reference and golden check ------------------------------------------------------------------------

/// reference: the layer computed sequentially in double (routing included): out [tokens, hidden].
[[nodiscard]] std::vector<float> reference(const Problem& problem);

/// check_golden: compares the problem's output with `golden`: "" when every element is within
/// 1e-4 + 1e-3 |golden| (and not NaN), else a message naming the first bad element.
[[nodiscard]] std::string check_golden(const Problem& problem, const std::vector<float>& golden);

}  // namespace pto::examples::moe
