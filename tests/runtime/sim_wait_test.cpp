// docs/design/virtual-time-model.md, conformance: the model honours the orchestrator's recorded waits
// (GraphRecord::waits, from pto::wait): it submits nothing past a wait before the awaited task's completion
// has been handled; in serial mode the wait runs everything submitted so far. A real run records the wait.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "pto/runtime/error.h"
#include "pto/runtime/simulate.h"
#include "pto/scope/orchestration.h"
#include "sim_test_graph.h"
#include "support/catch_printers.h"

using namespace pto;
using pto::test::free_config;
using pto::test::GraphBuilder;
using pto::test::records_of;
using pto::test::us;

//   a (AIV, 10 us)   c (AIV, 20 us)   --wait for a-->   b (AIC, 5 us); submit 1 us each, nothing else costs
TEST_CASE("the model's orchestrator submits nothing past a wait before the awaited task completed", "[sim]") {
    GraphBuilder g;
    const FuncId vec10 = g.kernel("vec10", 10.0);
    const FuncId vec20 = g.kernel("vec20", 20.0);
    const FuncId mm = g.kernel("mm", 5.0);
    const TaskId a = g.task(CoreType::AIV, vec10);
    const TaskId c = g.task(CoreType::AIV, vec20);
    const TaskId b = g.task(CoreType::AIC, mm);
    SimConfig cfg = free_config(1, 1);
    cfg.cost.submit_us = 1.0;

    SECTION("without the wait, b starts once submitted") {
        const SimReport r = simulate(g.graph(), cfg);
        REQUIRE(records_of(r, b).size() == 1);
        CHECK(records_of(r, b)[0].dispatch_ns == us(3));
        CHECK(r.task_waits == 0);
    }
    GraphRecord waited = g.graph();
    waited.waits.push_back(RecordedWait{b, a});
    SECTION("concurrent: b is submitted when a's completion is handled (11 us) and published at 12 us") {
        const SimReport r = simulate(waited, cfg);
        const auto ra = records_of(r, a);
        const auto rb = records_of(r, b);
        REQUIRE(ra.size() == 1);
        REQUIRE(rb.size() == 1);
        CHECK(ra[0].finish_ns == us(11));
        CHECK(rb[0].dispatch_ns == ra[0].finish_ns + us(1));
        CHECK(r.task_waits == 1);
        CHECK(r.task_wait_us == Approx(9.0));  // from c's publication at 2 us to a's completion at 11 us
        CHECK(r.orchestration_end_us == Approx(12.0));
    }
    SECTION("serial: the wait runs a and c (submitted so far), then b is submitted at 22 us") {
        cfg.machine.orchestration = OrchestrationMode::Serial;
        const SimReport r = simulate(waited, cfg);
        const auto rc = records_of(r, c);
        const auto rb = records_of(r, b);
        REQUIRE(rc.size() == 1);
        REQUIRE(rb.size() == 1);
        CHECK(rc[0].dispatch_ns == us(2));  // released by the wait, not by the orchestration's end
        CHECK(rc[0].finish_ns == us(22));
        CHECK(rb[0].dispatch_ns == us(23));
        CHECK(r.task_waits == 1);
    }
    SECTION("a wait must name a task submitted before it") {
        GraphRecord bad = g.graph();
        bad.waits.push_back(RecordedWait{a, b});
        try {
            (void)simulate(bad, cfg);
            FAIL("expected InvalidArgument");
        } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::InvalidArgument);
            CHECK_THAT(e.what(), Catch::Contains("wait for task " + std::to_string(b.value)));
        }
    }
}

//   router --wait--> expert (independent of the router in the graph)
TEST_CASE("a run records its waits and the model replays them from the record", "[sim]") {
    RuntimeConfig c;
    c.record_graph = true;
    Runtime rt(c);
    rt.register_kernel(FuncId{0}, KernelInfo{"router", 40.0, nullptr, nullptr});
    rt.register_kernel(FuncId{1}, KernelInfo{"expert", 5.0, nullptr, nullptr});
    TaskId router{}, expert{};
    pto::run(rt, [&] {
        router = submit_aiv(FuncId{0}, Args()).task_id();
        pto::wait(router);
        expert = submit_aic(FuncId{1}, Args()).task_id();
    });
    const GraphRecord& g = rt.graph();
    REQUIRE(g.waits.size() == 1);
    CHECK(g.waits[0].awaited == router);
    CHECK(g.waits[0].before == expert);
    const SimReport r = simulate(g, free_config(1, 1));
    const auto rr = records_of(r, router);
    const auto re = records_of(r, expert);
    REQUIRE(rr.size() == 1);
    REQUIRE(re.size() == 1);
    CHECK(re[0].dispatch_ns >= rr[0].finish_ns);
    CHECK(rr[0].end_ns - rr[0].start_ns == us(40));
    CHECK(r.task_waits == 1);
}
