// The tutorial graph in four forms that build the same tasks and edges: dynamic submission with explicit
// edges (MANUAL scopes) or discovered edges (AUTO scopes), and a static template per (layer, tile) with
// manual or tensormap boundaries. Each is an orchestration function body: call it inside pto::run.
//
//   tile t:  project(0,t) ─► softmax(0,t) ─► mix(0,t) ─► project(1,t) ─► softmax(1,t) ─► mix(1,t) ─┐
//   (t = 0..3, four independent chains)                                            column_mean ◄───┘
#pragma once

#include <cstdint>

#include <pto/scope/args.h>
#include <pto/static_graph/instance.h>
#include <pto/static_graph/template.h>

#include "problem.h"

namespace tutorial {

// ---- Dynamic (graph_dynamic.cpp) -------------------------------------------------------------------------

/// The arguments of each launch: tensors in the order the kernel reads them, scalars (chunk_base, chunk
/// size) and block_num. No dependencies: the MANUAL form adds them, the AUTO form lets the tensormap find
/// them.
[[nodiscard]] pto::Args project_args(const Problem& p, std::uint32_t layer, std::uint32_t tile);
[[nodiscard]] pto::Args softmax_args(const Problem& p, std::uint32_t layer, std::uint32_t tile);
[[nodiscard]] pto::Args mix_args(const Problem& p, std::uint32_t layer, std::uint32_t tile);
[[nodiscard]] pto::Args column_mean_args(const Problem& p);

/// orchestrate_manual: PTO2_SCOPE(MANUAL) per layer, every edge named with set_dependencies.
void orchestrate_manual(const Problem& p);
/// orchestrate_auto: PTO2_SCOPE() per layer, every edge discovered from the tensors.
void orchestrate_auto(const Problem& p);

// ---- Static template (graph_static.cpp) ------------------------------------------------------------------

/// TileTemplate: the chain project -> softmax -> mix of one (layer, tile) as a template, its slots and the
/// indices of its nodes.
struct TileTemplate {
    pto::Template tpl;
    pto::TensorSlot x, w, s, p, v, y;
    std::uint32_t project = 0, softmax = 0, mix = 0;
};

/// build_tile_template: validated once; Manual: the project node takes producers from Bindings::depend;
/// Tensormap: project's input is looked up and mix's output recorded in the tensormap.
[[nodiscard]] TileTemplate build_tile_template(pto::BoundaryMode mode);

/// orchestrate_static: one instance per (layer, tile) from `bindings` (of tile.tpl), then column_mean as
/// a dynamic task; MANUAL scopes for a Manual template, AUTO scopes for a Tensormap one.
void orchestrate_static(const Problem& p, const TileTemplate& tile, pto::Bindings& bindings);

}  // namespace tutorial
