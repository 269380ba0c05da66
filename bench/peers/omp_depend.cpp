// The OpenMP peer (docs/bench.md --peers): the record as one `omp task` per task, created in submission order
// inside `omp parallel` + `omp single`, ordered by depend clauses on one dependence byte per task.
#include "peer.h"

#include "peer_graph.h"
#include "task_body.h"

#include <vector>

namespace pto::bench {

PeerRun run_omp_depend(const GraphRecord& graph, const PeerOptions& options) {
    const detail::PeerGraph pg = detail::make_peer_graph(graph);
    PeerRun run = detail::start_run(Peer::OmpDepend, pg, options);

    std::vector<std::uint32_t> hits(pg.nodes, 0u);
    const detail::BodyContext ctx{hits.data(), options.probe};
    // done[i] is task i's dependence object: only its address matters to libgomp. Task i depends `out` on
    // its own byte and `in` on each producer's byte; every byte has exactly one `out` task, so an `in` waits
    // for exactly that producer, and `in` dependences never order tasks among themselves.
    std::vector<char> done(pg.nodes + 1u, 0);

    // Locals the pragmas name, so no data-sharing attribute refers to a member or a vector. maybe_unused:
    // g++ 12 reports a variable that only depend clauses read as unused (-Wunused-variable).
    const detail::BodyContext* const body = &ctx;
    [[maybe_unused]] char* const dep = done.data();
    const std::uint32_t* const first = pg.first.data();
    const std::uint32_t* const producers = pg.producers.data();
    const std::uint32_t nodes = pg.nodes;
    const int threads = static_cast<int>(run.threads);
    std::int64_t create_ns = 0;

    const std::int64_t region_start = detail::now_ns();
#pragma omp parallel num_threads(threads) default(none) shared(create_ns) \
    firstprivate(body, dep, first, producers, nodes)
#pragma omp single
    {
        const std::int64_t create_start = detail::now_ns();
        for (std::uint32_t i = 0; i < nodes; ++i) {
            // OpenMP 5.0 iterator: one clause expands to k `in` dependences, evaluated at task creation,
            // so any fan-in needs neither a fixed-arity switch nor join tasks (checked with g++ 12).
            const std::uint32_t* const p = producers + first[i];
            const int k = static_cast<int>(first[i + 1] - first[i]);
            // clang-format off
#pragma omp task default(none) firstprivate(body, i) \
    depend(iterator(j = 0 : k), in : dep[p[j]]) depend(out : dep[i])
            // clang-format on
            detail::run_task_body(*body, i);
        }
        // Before single's closing barrier, where the team finishes the remaining tasks.
        create_ns = detail::now_ns() - create_start;
    }
    run.total_ns = detail::now_ns() - region_start;
    run.create_ns = create_ns;

    for (std::uint32_t h : hits)
        run.body_calls += h;
    run.settle_ns = detail::settle(options);
    return run;
}

}  // namespace pto::bench
