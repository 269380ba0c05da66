// SimGraph::build: the recorded graph as indices (producer per edge, consumers per task) for the
// virtual-time model, validating what the model relies on: contiguous ids, producers before consumers.
#include "sim_graph.h"

#include <string>

#include "pto/runtime/detail/throw.h"

namespace pto::detail::sim {

SimGraph SimGraph::build(const GraphRecord& graph) {
    SimGraph g;
    const std::size_t n = graph.tasks.size();
    g.producer_index.assign(graph.producers.size(), -1);
    std::vector<std::uint32_t> count(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const RecordedTask& t = graph.tasks[i];
        if (i > 0 && t.id.value != graph.tasks[i - 1].id.value + 1) [[unlikely]]
            detail::throw_error(ErrorCode::InvalidArgument,
                                "simulate: task " + std::to_string(t.id.value) + " follows task " +
                                    std::to_string(graph.tasks[i - 1].id.value) +
                                    "; a GraphRecord holds one run's contiguous ids in submission order");
        if (t.kind == TaskKind::Kernel && (t.core == CoreType::None || t.block_num == 0)) [[unlikely]]
            detail::throw_error(ErrorCode::InvalidArgument,
                                "simulate: kernel task " + std::to_string(t.id.value) +
                                    (t.block_num == 0 ? " has block_num 0" : " has core type none"));
        if (static_cast<std::size_t>(t.first_producer) + t.producer_count > graph.producers.size())
            [[unlikely]]
            detail::throw_error(ErrorCode::InvalidArgument,
                                "simulate: task " + std::to_string(t.id.value) +
                                    " names producers beyond GraphRecord::producers");
        for (std::uint32_t e = t.first_producer; e < t.first_producer + t.producer_count; ++e) {
            const TaskId p = graph.producers[e];
            if (p >= t.id) [[unlikely]]
                detail::throw_error(ErrorCode::InvalidArgument,
                                    "simulate: task " + std::to_string(t.id.value) + " depends on task " +
                                        std::to_string(p.value) + ", which does not precede it");
            const std::int64_t pi = graph.index_of(p);
            g.producer_index[e] = pi;
            if (pi >= 0) ++count[static_cast<std::size_t>(pi)];
        }
    }
    g.consumer_begin.assign(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i)
        g.consumer_begin[i + 1] = g.consumer_begin[i] + count[i];
    g.consumers.resize(g.consumer_begin[n]);
    std::vector<std::uint32_t> fill(g.consumer_begin.begin(), g.consumer_begin.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
        const RecordedTask& t = graph.tasks[i];
        for (std::uint32_t e = t.first_producer; e < t.first_producer + t.producer_count; ++e)
            if (g.producer_index[e] >= 0)
                g.consumers[fill[static_cast<std::size_t>(g.producer_index[e])]++] =
                    static_cast<std::uint32_t>(i);
    }
    for (const RecordedWait& w : graph.waits) {
        const std::int64_t before = w.before.value == (n == 0 ? 0 : graph.tasks.back().id.value + 1)
                                        ? static_cast<std::int64_t>(n)
                                        : graph.index_of(w.before);
        const std::int64_t awaited = graph.index_of(w.awaited);
        if (before < 0 || awaited < 0 || awaited >= before ||
            (!g.wait_before.empty() && static_cast<std::uint32_t>(before) < g.wait_before.back()))
            [[unlikely]]
            detail::throw_error(ErrorCode::InvalidArgument,
                                "simulate: the wait for task " + std::to_string(w.awaited.value) +
                                    " before task " + std::to_string(w.before.value) +
                                    " does not name a task of the record submitted before it, in order");
        g.wait_before.push_back(static_cast<std::uint32_t>(before));
        g.wait_awaited.push_back(static_cast<std::uint32_t>(awaited));
    }
    return g;
}

}  // namespace pto::detail::sim
