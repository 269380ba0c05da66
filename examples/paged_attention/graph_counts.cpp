// The counts docs/bench.md reports for a graph (kernel and framework tasks, subtasks, kernel and framework
// edges) predicted from a shape, to compare with pto::count_graph of a recorded run.
#include "pto/examples/paged_attention.h"

namespace pto::examples::paged_attention {

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
