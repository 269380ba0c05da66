// expected_counts: the launches and edges one run submits for a routing, restated from the graph's rules
// (README.md "Launches and edges"); the tests compare them with pto::count_graph of the recorded run.
#include <algorithm>

#include "pto/examples/moe.h"

namespace pto::examples::moe {

pto::GraphCounts expected_counts(const Shapes& s, const Routing& routing, SpmdTier tier, Scheme scheme) {
    const std::uint64_t r = launches(s.token_tiles(), tier).size();  // router and combine launches
    const std::uint64_t g = launches(kGateChunks, tier).size();      // gate, up and silu launches each
    const std::uint64_t d = launches(kDownChunks, tier).size();
    std::uint64_t tiles = 0;  // expert tiles
    for (std::uint32_t e = 0; e < s.experts; ++e)
        tiles += routing.tiles(e, s.tile_rows);
    const bool is_manual = scheme == Scheme::Manual || scheme == Scheme::StaticManual;
    pto::GraphCounts c;
    c.kernel_tasks = 2 * r + 1 + tiles * (1 + 3 * g + d);
    c.framework_tasks = is_manual ? 1 : 0;  // the join before combine
    c.subtasks = 2 * s.token_tiles() + 1 + tiles * (1 + 3 * kGateChunks + kDownChunks);
    // route <- every router; per tile: gather <- route, gate/up <- gather, silu <- gate + up, down <- every
    // silu.
    c.kernel_edges = r + tiles * (1 + 4 * g + d * g);
    if (is_manual) {
        c.framework_edges = tiles * d + r;  // join <- every down, combine <- join
    } else {
        // combine reads all of down (every down launch), its rows of topk_w (one router launch: the same
        // token partition) and of assign_row (route).
        c.kernel_edges += r * (tiles * d + 2);
    }
    return c;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> edges_by_position(const GraphRecord& graph) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::size_t i = 0; i < graph.tasks.size(); ++i)
        for (const TaskId p : graph.producers_of(graph.tasks[i]))
            edges.emplace_back(static_cast<std::uint32_t>(graph.index_of(p)), static_cast<std::uint32_t>(i));
    std::sort(edges.begin(), edges.end());
    return edges;
}

}  // namespace pto::examples::moe
