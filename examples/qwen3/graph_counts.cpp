// Counting a recorded run of the layer: launches per scope, framework tasks, subtasks, and edges split
// into kernel-to-kernel and framework edges; and the kernel edge set in submission positions.
#include <algorithm>

#include "pto/examples/qwen3.h"

namespace pto::examples::qwen3 {

GraphCounts count_graph(const GraphRecord& graph, std::uint16_t first_func) {
    GraphCounts c;
    for (const RecordedTask& t : graph.tasks) {
        if (t.kind != TaskKind::Kernel) {
            ++c.framework_tasks;
        } else {
            ++c.launches;
            c.subtasks += t.block_num;
            if (const auto op = op_of(t.funcs[0], first_func)) ++c.scope_launches[op_info(*op).scope - 1];
        }
        for (TaskId p : graph.producers_of(t)) {
            const std::int64_t i = graph.index_of(p);
            const bool kernel_producer =
                i >= 0 && graph.tasks[static_cast<std::size_t>(i)].kind == TaskKind::Kernel;
            if (t.kind == TaskKind::Kernel && kernel_producer)
                ++c.kernel_edges;
            else
                ++c.framework_edges;
        }
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
