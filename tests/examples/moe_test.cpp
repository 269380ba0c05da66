// examples/moe (docs/graphs.md "Data-dependent graphs"), conformance: the MoE FFN decode layer waits for its
// route task and launches exactly the expert work the routing asks for. Counted launches and edges per
// scheme and tier against the rules, C == A and D == B edge for edge, golden results on the compute
// executor in all four schemes (also with start jitter), a clean dependency check, and the virtual-time
// model replaying the wait.
//
//   router x R -> route --wait--> per expert tile: gather -> gate L, up L -> silu L -> every down
//                                 every down -> (A, C: join) -> combine x R
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "pto/examples/moe.h"
#include "pto/runtime/simulate.h"
#include "pto/scope/orchestration.h"
#include "support/graph_checks.h"

using namespace pto;
using namespace pto::examples;

namespace {

RuntimeConfig recording_config(Executor executor) {
    RuntimeConfig c;
    c.executor = executor;
    c.record_graph = true;
    c.window_tasks = 4096;  // nothing retires while the graph is built: every discovered edge is recorded
    c.orchestration = OrchestrationMode::Serial;
    return c;
}

GraphRecord record(moe::Problem& problem, Scheme scheme, SpmdTier tier, RuntimeConfig config) {
    Runtime rt(config);
    moe::register_kernels(rt);
    moe::MoeGraph graph(problem, tier);
    problem.reset();
    const RunReport r = pto::run(rt, [&] { graph.submit(scheme); });
    CHECK(r.ok());
    CHECK(r.orchestrator.waits == 1);
    return rt.graph();
}

}  // namespace

TEST_CASE("launches and edges follow the routing in every scheme and tier", "[examples][moe]") {
    const Scheme scheme = GENERATE(from_range(std::begin(kAllSchemes), std::end(kAllSchemes)));
    const SpmdTier tier = GENERATE(SpmdTier::NonSpmd, SpmdTier::Spmd4, SpmdTier::AllSpmd);
    CAPTURE(letter(scheme), to_string(tier));
    moe::Problem problem = moe::Problem::with_fake_addresses();
    const moe::Routing routing = problem.routing();
    const GraphRecord g = record(problem, scheme, tier, recording_config(Executor::Instant));
    CHECK(pto::count_graph(g) == moe::expected_counts(problem.shapes(), routing, tier, scheme));
    // The graph's one wait: the route task, before the first gather.
    REQUIRE(g.waits.size() == 1);
    const std::uint64_t routers = launches(problem.shapes().token_tiles(), tier).size();
    CHECK(g.waits[0].awaited == g.tasks[routers].id);
    CHECK(g.waits[0].before == g.tasks[routers + 1].id);
}

TEST_CASE("an expert without tokens gets no launches and a crowded one gets more tiles", "[examples][moe]") {
    moe::Shapes s = moe::Shapes::full();
    moe::Problem a = moe::Problem::with_fake_addresses(s, 7);
    moe::Problem b = moe::Problem::with_fake_addresses(s, 8);
    s.tokens = 3;  // 6 assignments over 8 experts: at least two experts idle
    moe::Problem few = moe::Problem::with_fake_addresses(s, 7);
    for (moe::Problem* p : {&a, &b, &few}) {
        const moe::Routing routing = p->routing();
        std::uint64_t tiles = 0;
        for (std::uint32_t e = 0; e < p->shapes().experts; ++e)
            tiles += routing.tiles(e, p->shapes().tile_rows);
        const GraphRecord g =
            record(*p, Scheme::Manual, SpmdTier::NonSpmd, recording_config(Executor::Instant));
        std::uint64_t gathers = 0;
        for (const RecordedTask& t : g.tasks)
            gathers += t.funcs[0] == moe::func_id(moe::Op::Gather) ? 1u : 0u;
        CHECK(gathers == tiles);
        CHECK(pto::count_graph(g).kernel_tasks ==
              2 * p->shapes().token_tiles() + 1 + tiles * (1 + 3 * 28 + 32));
    }
    const moe::Routing idle = few.routing();
    CHECK(std::count(idle.count.begin(), idle.count.end(), 0u) >= 2);
}

TEST_CASE("template schemes record the dynamic schemes' graphs: C equals A and D equals B",
          "[examples][moe]") {
    const SpmdTier tier = GENERATE(SpmdTier::NonSpmd, SpmdTier::Spmd8);
    moe::Problem problem = moe::Problem::with_fake_addresses();
    const auto edges = [&](Scheme s) {
        return moe::edges_by_position(record(problem, s, tier, recording_config(Executor::Instant)));
    };
    CHECK(edges(Scheme::StaticManual) == edges(Scheme::Manual));
    CHECK(edges(Scheme::StaticTensormap) == edges(Scheme::Tensormap));
}

TEST_CASE("compute mode matches the sequential reference in all schemes, also with start jitter",
          "[examples][moe][compute]") {
    const Scheme scheme = GENERATE(from_range(std::begin(kAllSchemes), std::end(kAllSchemes)));
    const double jitter_us = GENERATE(0.0, 200.0);
    const OrchestrationMode mode = GENERATE(OrchestrationMode::Concurrent, OrchestrationMode::Serial);
    CAPTURE(letter(scheme), jitter_us, mode == OrchestrationMode::Serial);
    moe::Problem problem = moe::Problem::with_memory();
    const std::vector<float> golden = moe::reference(problem);
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.orchestration = mode;
    c.compute_start_jitter_us = jitter_us;
    c.record_graph = true;
    c.record_subtasks = true;
    Runtime rt(c);
    moe::register_kernels(rt);
    moe::MoeGraph graph(problem, SpmdTier::Spmd4);
    for (int rep = 0; rep < 2; ++rep) {
        problem.reset();
        const RunReport r = pto::run(rt, [&] { graph.submit(scheme); });
        CHECK(r.ok());
        CHECK(moe::check_golden(problem, golden).empty());
        CHECK(test::check_ordering(rt.graph(), test::spans_from_subtasks(rt.graph(), rt.subtasks())).empty());
        CHECK(test::check_exactly_once_records(rt.graph(), rt.subtasks()).empty());
        CHECK(
            pto::count_graph(rt.graph()).kernel_tasks ==
            moe::expected_counts(problem.shapes(), problem.routing(), SpmdTier::Spmd4, scheme).kernel_tasks);
    }
}

TEST_CASE("every scheme passes the dependency checker", "[examples][moe]") {
    const Scheme scheme = GENERATE(from_range(std::begin(kAllSchemes), std::end(kAllSchemes)));
    CAPTURE(letter(scheme));
    moe::Problem problem = moe::Problem::with_memory();
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.check_dependencies = DependencyCheck::Error;
    Runtime rt(c);
    moe::register_kernels(rt);
    moe::MoeGraph graph(problem, SpmdTier::Spmd2);
    problem.reset();
    const RunReport r = pto::run(rt, [&] { graph.submit(scheme); });
    CHECK(r.ok());
    CHECK(r.missing_dependencies == 0);
}

TEST_CASE("reading the routing without waiting for route is refused", "[examples][moe]") {
    moe::Problem problem = moe::Problem::with_memory();
    problem.reset();
    try {
        (void)problem.routing();
        FAIL("expected InvalidArgument");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::InvalidArgument);
        CHECK_THAT(e.what(), Catch::Contains("pto::wait"));
    }
}

TEST_CASE("the model replays the wait: no expert launch is submitted before route completed",
          "[examples][moe]") {
    moe::Problem problem = moe::Problem::with_fake_addresses();
    const GraphRecord g =
        record(problem, Scheme::Tensormap, SpmdTier::Spmd4, recording_config(Executor::Instant));
    SimConfig cfg;
    const SimReport r = simulate(g, cfg);
    const std::uint64_t routers = launches(problem.shapes().token_tiles(), SpmdTier::Spmd4).size();
    const TaskId route = g.tasks[routers].id;
    std::int64_t route_finish = 0;
    for (const SubtaskRecord& s : r.timeline)
        if (s.task == route) route_finish = s.finish_ns;
    REQUIRE(route_finish > 0);
    for (const ReadyMark& m : r.ready)
        if (m.task > route) CHECK(m.ready_ns >= route_finish);
    CHECK(r.task_waits == 1);
    CHECK(r.task_wait_us > 0.0);
}
