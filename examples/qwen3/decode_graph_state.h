// DecodeGraph::State: what one (problem, tier) graph precomputes at construction and what both builders
// share: launch lists, kernel ids, the producer-id arrays of the manual schemes (A and C), and the static
// templates of schemes C and D (static_bodies.h). graph_dynamic.cpp submits A and B, graph_static.cpp C and
// D.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <span>
#include <vector>

#include "pto/examples/qwen3.h"
#include "pto/scope/args.h"

namespace pto::examples::qwen3 {

/// StaticBodies: the six templates (G1, G2, G3 for each boundary mode) and their bindings; defined in
/// static_bodies.h, built by make_static_bodies.
struct StaticBodies;
struct StaticBodiesDeleter {
    void operator()(StaticBodies* bodies) const;
};
[[nodiscard]] std::unique_ptr<StaticBodies, StaticBodiesDeleter> make_static_bodies(
    const DecodeGraph::State& state);

struct DecodeGraph::State {
    const Problem* problem;
    SpmdTier tier;
    std::array<FuncId, kFuncIdCount> funcs{};
    bool manual = false;

    // Launch lists per operator (single-chunk operators have one launch of one block).
    std::array<std::vector<Launch>, kOpCount> launches;

    // Ids that later scopes depend on (schemes A and C), preallocated so submit never allocates.
    std::vector<TaskId> qk_deps;    // q_proj then k_proj launches of the current tile (qk_norm's producers)
    std::vector<TaskId> rope_deps;  // per tile: qk_norm, then every v_proj launch
    std::vector<TaskId> online;     // per row: every online_softmax launch; a tile's rows are contiguous
    std::vector<TaskId> out_proj;   // current tile's out_proj_residual launches
    std::vector<TaskId> silu;       // current tile's silu launches

    // Templates of schemes C and D, built with the graph (outside any timed region).
    std::unique_ptr<StaticBodies, StaticBodiesDeleter> bodies;

    [[nodiscard]] const std::vector<Launch>& of(Op op) const {
        return launches[static_cast<std::size_t>(op)];
    }
    [[nodiscard]] std::size_t rope_stride() const { return 1 + of(Op::VProj).size(); }
    /// tile_online: every online_softmax launch of every valid row of `tile`, contiguous in `online`.
    [[nodiscard]] std::span<const TaskId> tile_online(std::uint32_t tile) const {
        const Shapes& s = problem->shapes();
        const std::size_t per_row = of(Op::OnlineSoftmax).size();
        return {online.data() + static_cast<std::size_t>(tile) * s.tile_rows * per_row,
                s.valid_rows(tile) * per_row};
    }
    /// tile_rope_deps: rope's producers for the rows of `tile`: its qk_norm, then its v_proj launches.
    [[nodiscard]] std::span<const TaskId> tile_rope_deps(std::uint32_t tile) const {
        return {rope_deps.data() + tile * rope_stride(), rope_stride()};
    }

    /// submit_op: one launch. Only the manual scheme names producers; the tensormap scheme never calls
    /// set_dependencies, so each of its edges comes from the views in `a`.
    TaskId submit_op(Op op, Args& a, std::span<const TaskId> deps) const;
    TaskId submit_op(Op op, Args& a, std::initializer_list<TaskId> deps) const {
        return submit_op(op, a, std::span<const TaskId>(deps.begin(), deps.size()));
    }

    // Scheme A and B bodies (graph_dynamic.cpp).
    void scope1_tile(std::uint32_t tile);
    void scope2_row(std::uint32_t row);
    void scope3_tile(std::uint32_t tile);
};

/// submit_static: schemes C (manual = true) and D (graph_static.cpp).
void submit_static(DecodeGraph::State& state, bool manual);

}  // namespace pto::examples::qwen3
