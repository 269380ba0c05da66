// The oneTBB flow_graph peer (docs/bench.md --peers): the record as one continue_node<continue_msg> per task
// and one make_edge per distinct producer edge, run from its sources; build, run and replay timed separately.
#include "peer.h"

#include "peer_graph.h"
#include "task_body.h"

#include <oneapi/tbb/flow_graph.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/task_arena.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace pto::bench {
namespace {

namespace flow = tbb::flow;
using Node = flow::continue_node<flow::continue_msg>;

// NodeBody: what each continue_node runs; two words, copied into the node at construction.
struct NodeBody {
    const detail::BodyContext* ctx;
    std::uint32_t task;

    flow::continue_msg operator()(const flow::continue_msg&) const noexcept {
        detail::run_task_body(*ctx, task);
        return {};
    }
};

// arena_for: one task_arena per thread count, kept for the process so repetitions find TBB's workers
// already attached to a live arena, as our own scheduler threads live across runs. One slot is reserved
// for the calling thread, so `threads` counts it like OpenMP's team does.
tbb::task_arena& arena_for(unsigned threads) {
    static std::mutex mutex;
    static std::map<unsigned, std::unique_ptr<tbb::task_arena>> arenas;
    const std::lock_guard<std::mutex> lock(mutex);
    std::unique_ptr<tbb::task_arena>& arena = arenas[threads];
    if (!arena) {
        arena = std::make_unique<tbb::task_arena>(static_cast<int>(threads), 1);
        arena->initialize();
    }
    return *arena;
}

}  // namespace

PeerRun run_tbb_flow_graph(const GraphRecord& graph, const PeerOptions& options) {
    const detail::PeerGraph pg = detail::make_peer_graph(graph);
    PeerRun run = detail::start_run(Peer::TbbFlowGraph, pg, options);

    std::vector<std::uint32_t> hits(pg.nodes, 0u);
    detail::BodyContext ctx{hits.data(), options.probe};

    // TBB keeps at most (cores - 1) workers by default; more threads than cores (as tests ask) need the
    // process-wide limit raised for the duration of the call. Only made when above the active limit, and
    // the smallest live control wins, so this never lowers a limit and cannot override an embedder's one.
    std::optional<tbb::global_control> more_workers;
    if (run.threads > tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism))
        more_workers.emplace(tbb::global_control::max_allowed_parallelism, run.threads);

    // The graph is built inside the arena: its constructor attaches to the arena it is created in, so
    // every node task spawns there.
    arena_for(run.threads).execute([&] {
        const std::int64_t build_start = detail::now_ns();
        flow::graph g;
        // Declared after the graph: nodes unregister from it when destroyed, so they must go first.
        // One reserved array, never reallocated (continue_node is only copyable, and a copy drops edges).
        std::vector<Node> nodes;
        nodes.reserve(pg.nodes);
        for (std::uint32_t i = 0; i < pg.nodes; ++i)
            nodes.emplace_back(g, NodeBody{&ctx, i});
        for (std::uint32_t i = 0; i < pg.nodes; ++i)
            for (std::uint32_t e = pg.first[i]; e < pg.first[i + 1]; ++e)
                flow::make_edge(nodes[pg.producers[e]], nodes[i]);
        const std::int64_t run_start = detail::now_ns();
        for (std::uint32_t s : pg.sources)
            nodes[s].try_put(flow::continue_msg{});
        g.wait_for_all();
        const std::int64_t run_end = detail::now_ns();
        run.build_ns = run_start - build_start;
        run.run_ns = run_end - run_start;
        run.total_ns = run_end - build_start;

        if (!options.replay) return;
        // wait_for_all returned, so no body is running: the probe can change hands.
        ctx.probe = options.replay_probe;
        const std::int64_t replay_start = detail::now_ns();
        g.reset();
        const std::int64_t reset_end = detail::now_ns();
        for (std::uint32_t s : pg.sources)
            nodes[s].try_put(flow::continue_msg{});
        g.wait_for_all();
        const std::int64_t replay_end = detail::now_ns();
        run.reset_ns = reset_end - replay_start;
        run.replay_ns = replay_end - replay_start;
    });

    for (std::uint32_t h : hits)
        run.body_calls += h;
    run.settle_ns = detail::settle(options);
    return run;
}

}  // namespace pto::bench
