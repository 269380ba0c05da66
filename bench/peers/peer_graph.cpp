// Translation of a GraphRecord into PeerGraph (positions, distinct producers, sources) and the small helpers
// both peers share. Cold: all of it runs outside the timed phases.
#include "peer_graph.h"

#include "pto/runtime/detail/throw.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <limits>
#include <string>
#include <thread>

namespace pto::bench::detail {

PeerGraph make_peer_graph(const GraphRecord& graph) {
    if (graph.tasks.size() >= std::numeric_limits<std::uint32_t>::max())
        pto::detail::throw_error(
            ErrorCode::InvalidArgument,
            "peer graph: " + std::to_string(graph.tasks.size()) + " tasks do not fit 32-bit positions");
    PeerGraph g;
    g.nodes = static_cast<std::uint32_t>(graph.tasks.size());
    g.first.reserve(g.nodes + 1u);
    g.producers.reserve(graph.producers.size());
    g.first.push_back(0);
    for (std::uint32_t i = 0; i < g.nodes; ++i) {
        const RecordedTask& t = graph.tasks[i];
        if (t.kind == TaskKind::Kernel) ++g.kernel_tasks;
        const auto begin = static_cast<std::ptrdiff_t>(g.producers.size());
        for (TaskId p : graph.producers_of(t)) {
            const std::int64_t at = graph.index_of(p);
            if (at < 0) continue;  // a producer of an earlier run: complete before this graph starts
            if (static_cast<std::uint64_t>(at) >= i)
                pto::detail::throw_error(ErrorCode::InvalidArgument,
                                         "peer graph: task " + std::to_string(t.id.value) +
                                             " names producer " + std::to_string(p.value) +
                                             ", which is not submitted before it");
            g.producers.push_back(static_cast<std::uint32_t>(at));
        }
        const auto mine = g.producers.begin() + begin;
        std::sort(mine, g.producers.end());
        g.producers.erase(std::unique(mine, g.producers.end()), g.producers.end());
        if (g.producers.end() == mine) g.sources.push_back(i);
        if (g.producers.size() >= std::numeric_limits<std::uint32_t>::max())
            pto::detail::throw_error(
                ErrorCode::InvalidArgument,
                "peer graph: more than 2^32 - 1 edges up to task " + std::to_string(t.id.value));
        g.first.push_back(static_cast<std::uint32_t>(g.producers.size()));
    }
    return g;
}

PeerRun start_run(Peer peer, const PeerGraph& graph, const PeerOptions& options) {
    for (const PeerProbe* probe : {options.probe, options.replay_probe})
        if (probe != nullptr && probe->size() < graph.nodes)
            pto::detail::throw_error(ErrorCode::InvalidArgument,
                                     "peer probe: holds " + std::to_string(probe->size()) +
                                         " tasks, the graph has " + std::to_string(graph.nodes));
    PeerRun run;
    run.peer = peer;
    run.threads = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    run.nodes = graph.nodes;
    run.kernel_tasks = graph.kernel_tasks;
    run.edges = graph.edges();
    return run;
}

namespace {

std::int64_t process_cpu_ns() noexcept {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

}  // namespace

std::int64_t settle(const PeerOptions& options) {
    if (options.settle_max_ms == 0) return 0;
    constexpr std::int64_t kPollNs = 1'000'000;
    // Under a tenth of the poll interval, no thread of the process spins. Two quiet polls in a row, because
    // on a busy machine a spinning worker may simply have been descheduled for one of them.
    constexpr std::int64_t kIdleCpuNs = kPollNs / 10;
    constexpr int kQuietPolls = 2;
    const std::int64_t start = now_ns();
    const std::int64_t deadline = start + static_cast<std::int64_t>(options.settle_max_ms) * 1'000'000;
    std::int64_t cpu = process_cpu_ns();
    int quiet = 0;
    while (quiet < kQuietPolls && now_ns() < deadline) {
        std::this_thread::sleep_for(std::chrono::nanoseconds(kPollNs));
        const std::int64_t now_cpu = process_cpu_ns();
        quiet = now_cpu - cpu < kIdleCpuNs ? quiet + 1 : 0;
        cpu = now_cpu;
    }
    return now_ns() - start;
}

std::int64_t now_ns() noexcept {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace pto::bench::detail
