// The counts SPEC §8 reports for a graph (kernel and framework tasks, subtasks, kernel and framework edges),
// measured from a recorded graph and predicted from a shape, so tests and the program can compare them.
#include "pto/examples/paged_attention.h"

#include <algorithm>
#include <utility>

namespace pto::examples::paged_attention {

GraphCounts count_graph(const GraphRecord& graph) {
    GraphCounts c;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> edges;
    for (const RecordedTask& t : graph.tasks) {
        const bool kernel = t.kind == TaskKind::Kernel;
        (kernel ? c.kernel_tasks : c.framework_tasks) += 1;
        if (kernel) c.subtasks += t.block_num;
        for (TaskId p : graph.producers_of(t))
            edges.emplace_back(p.value, t.id.value);
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    for (const auto& [producer, consumer] : edges) {
        const std::int64_t pi = graph.index_of(TaskId{producer});
        const std::int64_t ci = graph.index_of(TaskId{consumer});
        // A producer outside the record (an earlier run) is no kernel launch of this graph.
        const bool both_kernels = pi >= 0 && ci >= 0 &&
                                  graph.tasks[static_cast<std::size_t>(pi)].kind == TaskKind::Kernel &&
                                  graph.tasks[static_cast<std::size_t>(ci)].kind == TaskKind::Kernel;
        (both_kernels ? c.kernel_edges : c.framework_edges) += 1;
    }
    return c;
}

GraphCounts expected_counts(const Shape& shape, Scheme scheme) {
    shape.validate();
    const std::uint64_t groups = shape.group_count();
    const std::uint64_t scopes = shape.scope_count();
    GraphCounts c;
    c.kernel_tasks = 4 * groups;
    c.framework_tasks = scopes;  // one alloc per scope
    c.subtasks = c.kernel_tasks;
    // Per group QK->SF, SF->PV, PV->UP; UP(g-1)->UP(g) between the groups of a scope.
    c.kernel_edges = 3 * groups + (groups - scopes);
    // C reproduces A's edges and D B's (the alloc stays a dynamic task in every scheme).
    if (scheme == Scheme::Manual || scheme == Scheme::StaticManual) {
        c.framework_edges = scopes;  // alloc -> last online_update
    } else {
        c.kernel_edges += groups;  // SF->UP: online_update reads mi and li
        c.framework_edges =
            4 * groups;  // every kernel touches the scope's scratch, whose creator is the alloc
    }
    return c;
}

}  // namespace pto::examples::paged_attention
