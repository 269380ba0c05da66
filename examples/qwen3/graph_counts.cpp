// Reading a recorded run of the layer: pto::count_graph's counts plus the launches of each scope, and the
// kernel edge set in submission positions.
#include <algorithm>

#include "pto/examples/qwen3.h"

namespace pto::examples::qwen3 {

GraphCounts count_graph(const GraphRecord& graph, std::uint16_t first_func) {
    GraphCounts c{pto::count_graph(graph)};
    for (const RecordedTask& t : graph.tasks) {
        if (t.kind != TaskKind::Kernel) continue;
        if (const auto op = op_of(t.funcs[0], first_func)) ++c.scope_launches[op_info(*op).scope - 1];
    }
    return c;
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> kernel_edges(const GraphRecord& graph) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::size_t ci = 0; ci < graph.tasks.size(); ++ci) {
        const RecordedTask& t = graph.tasks[ci];
        if (t.kind != TaskKind::Kernel) continue;
        for (TaskId p : graph.producers_of(t)) {
            const std::int64_t pi = graph.index_of(p);
            if (pi >= 0 && graph.tasks[static_cast<std::size_t>(pi)].kind == TaskKind::Kernel)
                edges.emplace_back(static_cast<std::uint32_t>(pi), static_cast<std::uint32_t>(ci));
        }
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    return edges;
}

}  // namespace pto::examples::qwen3
