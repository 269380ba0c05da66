// docs/design/virtual-time-model.md, conformance: the virtual-time model on tiny graphs whose timeline is
// known by hand (chain, fan-out wider than the cores, MIX on a whole cluster, SPMD spread, orchestration- and
// scheduler-bound cases, window back-pressure, serial mode, dependency-only tasks) and its input validation.
#include <catch2/catch.hpp>

#include <vector>

#include "pto/runtime/error.h"
#include "pto/runtime/simulate.h"
#include "sim_test_graph.h"
#include "support/catch_printers.h"

using namespace pto;
using pto::test::free_config;
using pto::test::GraphBuilder;
using pto::test::records_of;
using pto::test::us;

//   a ── b ── c      (AIC, 10 us each; submit 1, dispatch 2, completion 1)
TEST_CASE("a chain on one engine pays submit, dispatch and completion once per link", "[sim]") {
    GraphBuilder g;
    const FuncId k = g.kernel("mm", 10.0);
    const TaskId a = g.task(CoreType::AIC, k);
    const TaskId b = g.task(CoreType::AIC, k, 1, {a});
    const TaskId c = g.task(CoreType::AIC, k, 1, {b});
    SimConfig cfg = free_config(1, 1);
    cfg.cost.submit_us = 1.0;
    cfg.cost.dispatch_us = 2.0;
    cfg.cost.completion_us = 1.0;
    const SimReport r = simulate(g.graph(), cfg);

    // a is published at 1 and written at 3; each successor is released one completion after its producer
    // ends and written one dispatch later.
    const std::int64_t start[3] = {us(3), us(16), us(29)};
    const TaskId ids[3] = {a, b, c};
    for (int i = 0; i < 3; ++i) {
        const auto recs = records_of(r, ids[i]);
        REQUIRE(recs.size() == 1);
        CHECK(recs[0].dispatch_ns == start[i]);
        CHECK(recs[0].start_ns == start[i]);
        CHECK(recs[0].end_ns == start[i] + us(10));
        CHECK(recs[0].finish_ns == start[i] + us(10));
        CHECK(recs[0].core == 0);
    }
    CHECK(r.makespan_us == Approx(39.0));
    CHECK(r.drain_us == Approx(40.0));
    CHECK(r.bounds.critical_path_us == Approx(30.0));
    CHECK(r.bounds.aic_work_us == Approx(30.0));
    CHECK(r.bounds.orchestration_us == Approx(3.0));
    CHECK(r.bounds.orchestration_path_us == Approx(31.0));  // a published at 1, then 30 us of chain
    CHECK(r.lower_bound_us == Approx(31.0));
    CHECK(r.orch_busy_us == Approx(3.0));
    CHECK(r.orchestration_end_us == Approx(3.0));
    CHECK(r.sched_busy_us ==
          Approx(2.0 + 3.0 + 3.0 + 1.0));  // dispatch a; complete+dispatch b, c; complete c
    CHECK(r.utilisation_aic == Approx(30.0 / 39.0));
    REQUIRE(r.ready.size() == 3);
    CHECK(r.ready[1].ready_ns == us(14));
}

//   five independent AIV tasks, 10 us each, on one cluster (2 AIV cores); dispatch 1 us per block
TEST_CASE("a fan-out wider than the cores queues, and pending slots hide the refill gap", "[sim]") {
    GraphBuilder g;
    const FuncId k = g.kernel("vec", 10.0);
    for (int i = 0; i < 5; ++i)
        g.task(CoreType::AIV, k);
    SimConfig cfg = free_config(1, 1);
    cfg.cost.dispatch_us = 1.0;

    SECTION("with pending slots") {
        const SimReport r = simulate(g.graph(), cfg);
        // Written at 1, 2 (running) and 3, 4 (pending: start when the running ones end at 11, 12); the
        // fifth goes to a pending slot once the first completion is seen at 11 and starts at 21.
        CHECK(records_of(r, TaskId{2})[0].start_ns == us(11));
        CHECK(records_of(r, TaskId{3})[0].start_ns == us(12));
        CHECK(records_of(r, TaskId{4})[0].dispatch_ns == us(12));
        CHECK(records_of(r, TaskId{4})[0].start_ns == us(21));
        CHECK(r.makespan_us == Approx(31.0));
    }
    SECTION("without pending slots") {
        cfg.use_pending_slots = false;
        const SimReport r = simulate(g.graph(), cfg);
        CHECK(records_of(r, TaskId{2})[0].start_ns == us(12));
        CHECK(records_of(r, TaskId{3})[0].start_ns == us(13));
        CHECK(records_of(r, TaskId{4})[0].start_ns == us(23));
        CHECK(r.makespan_us == Approx(33.0));
    }
    const SimReport r = simulate(g.graph(), cfg);
    for (const SubtaskRecord& s : r.timeline) {
        CHECK(s.core_type == CoreType::AIV);
        CHECK((s.core == 1 || s.core == 2));  // AIV cores follow the single AIC core
    }
    CHECK(r.bounds.aiv_work_us == Approx(25.0));
}

//   a (AIV, 10 us) published at 1;  m (MIX, 5 us per lane) published at 2, independent of a
TEST_CASE("a MIX block waits for a whole idle cluster and starts its three lanes together", "[sim]") {
    GraphBuilder g;
    const FuncId v = g.kernel("vec", 10.0);
    const FuncId x = g.kernel("mixed", 5.0);
    const TaskId a = g.task(CoreType::AIV, v);
    const TaskId m = g.task(CoreType::MIX, x);
    const std::uint32_t clusters = GENERATE(1u, 2u);
    SimConfig cfg = free_config(clusters, 1);
    cfg.cost.submit_us = 1.0;
    const SimReport r = simulate(g.graph(), cfg);
    CHECK(records_of(r, a)[0].start_ns == us(1));
    const auto lanes = records_of(r, m);
    REQUIRE(lanes.size() == 3);
    // One cluster: the AIC core is idle from the start, but the MIX block needs the AIV core that runs a.
    const std::int64_t expected = clusters == 1 ? us(11) : us(2);
    const std::uint32_t cluster = clusters == 1 ? 0 : 1;
    for (const SubtaskRecord& s : lanes) {
        CHECK(s.start_ns == expected);
        CHECK(s.end_ns == expected + us(5));
        CHECK(s.core_type == CoreType::MIX);
        // Lane 0 on the cluster's AIC core, lanes 1 and 2 on its AIV cores.
        const std::uint32_t want = s.lane == 0 ? cluster : clusters + cluster * 2 + (s.lane - 1u);
        CHECK(s.core == want);
    }
    CHECK(r.makespan_us == Approx(clusters == 1 ? 16.0 : 11.0));
    // Stranded MIX work needs an idle cluster: with one cluster there never is one while m waits.
    CHECK(r.overhead.mix == Approx(0.0));
}

//   one AIC launch of 4 blocks (10 us each) on 2 clusters owned by 2 scheduler threads
TEST_CASE("the blocks of an SPMD launch spread over the cores of every scheduler thread", "[sim]") {
    GraphBuilder g;
    const FuncId k = g.kernel("mm", 10.0);
    const TaskId s = g.task(CoreType::AIC, k, 4);
    SimConfig cfg = free_config(2, 2);
    cfg.use_pending_slots = GENERATE(false, true);
    const SimReport r = simulate(g.graph(), cfg);
    const auto recs = records_of(r, s);
    REQUIRE(recs.size() == 4);
    std::vector<int> blocks(4, 0);
    std::vector<int> per_core(2, 0);
    for (const SubtaskRecord& x : recs) {
        ++blocks[x.block_idx];
        REQUIRE(x.core < 2);
        ++per_core[x.core];
        CHECK(x.scheduler == x.core % 2);  // cluster c belongs to thread c mod 2
    }
    CHECK(blocks == std::vector<int>{1, 1, 1, 1});
    CHECK(per_core == std::vector<int>{2, 2});
    CHECK(r.makespan_us == Approx(20.0));
    CHECK(r.bounds.critical_path_us == Approx(10.0));
    CHECK(r.bounds.aic_work_us == Approx(20.0));
}

//   one AIC launch of 8 blocks  vs  8 AIC launches of 1 block; 10 us kernels on 8 clusters, one thread;
//   dispatch 4 us and pickup 1 us per block written, completion 2 us per block, submit 3 us
TEST_CASE("the scheduler pays per block, so an SPMD launch saves submits but not dispatches", "[sim]") {
    SimConfig cfg = free_config(8, 1);
    cfg.cost.dispatch_us = 4.0;
    cfg.cost.core_pickup_us = 1.0;
    cfg.cost.completion_us = 2.0;
    cfg.cost.submit_us = 3.0;

    GraphBuilder spmd;
    spmd.task(CoreType::AIC, spmd.kernel("mm", 10.0), 8);
    const SimReport one = simulate(spmd.graph(), cfg);
    // Published at 3; blocks written at 8, 13, ..., 43; the last ends at 53.
    CHECK(one.makespan_us == Approx(53.0));
    CHECK(one.sched_busy_us == Approx(8 * (4.0 + 1.0 + 2.0)));
    CHECK(one.orch_busy_us == Approx(3.0));

    GraphBuilder single;
    const FuncId k = single.kernel("mm", 10.0);
    for (int i = 0; i < 8; ++i)
        single.task(CoreType::AIC, k);
    const SimReport eight = simulate(single.graph(), cfg);
    // The same scheduler work, but eight submits instead of one: no earlier than the SPMD launch (the
    // completions of early tasks now share passes with later writes).
    CHECK(eight.makespan_us >= one.makespan_us);
    CHECK(eight.sched_busy_us == Approx(8 * (4.0 + 1.0 + 2.0)));
    CHECK(eight.orch_busy_us == Approx(24.0));
}

//   twenty independent AIV tasks of 0.1 us, each submit costing 10 us
TEST_CASE("tiny kernels behind expensive submits make the makespan the orchestration time", "[sim]") {
    GraphBuilder g;
    const FuncId k = g.kernel("tiny", 0.1);
    for (int i = 0; i < 20; ++i)
        g.task(CoreType::AIV, k);
    SimConfig cfg = free_config(24, 3);
    cfg.cost.submit_us = 10.0;
    const SimReport r = simulate(g.graph(), cfg);
    CHECK(r.bounds.orchestration_us == Approx(200.0));
    CHECK(r.orch_busy_us == Approx(200.0));
    CHECK(r.makespan_us == Approx(200.1));
    CHECK(r.lower_bound_us == Approx(200.1));
    CHECK(r.makespan_us == Approx(r.bounds.orchestration_path_us));
    CHECK(r.utilisation_aiv < 0.001);
    CHECK(r.overhead.aiv == Approx(0.0));  // every task is written the instant it is published
}

//   48 independent AIV tasks of 1 us; dispatch 5 us, completion 3 us; no pending slots
TEST_CASE("expensive dispatch makes the schedulers the bottleneck, and more threads help", "[sim]") {
    GraphBuilder g;
    const FuncId k = g.kernel("short", 1.0);
    for (int i = 0; i < 48; ++i)
        g.task(CoreType::AIV, k);
    const std::uint32_t threads = GENERATE(1u, 3u);
    SimConfig cfg = free_config(24, threads);
    cfg.cost.dispatch_us = 5.0;
    cfg.cost.completion_us = 3.0;
    cfg.use_pending_slots = false;
    const SimReport r = simulate(g.graph(), cfg);
    // Each thread writes its 48 / threads blocks 5 us apart; the last one runs 1 us after its write.
    const double last_write = 5.0 * 48.0 / threads;
    CHECK(r.makespan_us == Approx(last_write + 1.0));
    CHECK(r.lower_bound_us == Approx(1.0));
    CHECK(r.sched_busy_us == Approx(48.0 * 5.0 + 48.0 * 3.0));
    // Until the last write, AIV blocks wait while AIV cores idle; AIC has no work, so `has` = AIV.
    CHECK(r.overhead.aiv == Approx(last_write / (last_write + 1.0)));
    CHECK(r.overhead.has == Approx(r.overhead.aiv));
    CHECK(r.overhead.aic == Approx(0.0));
    CHECK(r.overhead.all == Approx(0.0));
}

//   sixteen independent AIV tasks of 100 us, window of 8 tasks, submit 1 us
TEST_CASE("a full window makes the orchestrator wait until the oldest task retires", "[sim]") {
    GraphBuilder g;
    const FuncId k = g.kernel("long", 100.0);
    for (int i = 0; i < 16; ++i)
        g.task(CoreType::AIV, k);
    SimConfig cfg = free_config(4, 1);
    cfg.cost.submit_us = 1.0;
    cfg.machine.window_tasks = 8;
    const SimReport r = simulate(g.graph(), cfg);
    // Task 0 runs [1, 101]; task 8 can only be submitted once it retires, so it is published at 102.
    CHECK(r.window_waits >= 1);
    CHECK(r.orch_wait_us == Approx(101.0 - 8.0));
    REQUIRE(r.ready.size() == 16);
    CHECK(r.ready[8].ready_ns == us(102));

    cfg.machine.window_tasks = 4096;
    const SimReport wide = simulate(g.graph(), cfg);
    CHECK(wide.window_waits == 0);
    CHECK(wide.ready[8].ready_ns == us(9));
}

TEST_CASE("serial orchestration starts the schedulers only after the last submit", "[sim]") {
    GraphBuilder g;
    const FuncId k = g.kernel("vec", 10.0);
    for (int i = 0; i < 3; ++i)
        g.task(CoreType::AIV, k);
    SimConfig cfg = free_config(2, 2);
    cfg.cost.submit_us = 1.0;
    cfg.use_pending_slots = false;  // so the third task goes to the second thread's idle cluster
    cfg.machine.orchestration = OrchestrationMode::Serial;
    const SimReport r = simulate(g.graph(), cfg);
    for (const SubtaskRecord& s : r.timeline)
        CHECK(s.start_ns == us(3));
    CHECK(r.makespan_us == Approx(13.0));
}

//   a (AIC 10 us) ── d (dependency-only) ── b (AIV 10 us);  completion 1 us
TEST_CASE("a dependency-only task is completed by a scheduler pass and releases its consumers", "[sim]") {
    GraphBuilder g;
    const FuncId k = g.kernel("k", 10.0);
    const TaskId alloc = g.alloc();
    const TaskId a = g.task(CoreType::AIC, k, 1, {alloc});
    const TaskId d = g.dependency_only({a});
    const TaskId b = g.task(CoreType::AIV, k, 1, {d});
    SimConfig cfg = free_config(1, 1);
    cfg.cost.completion_us = 1.0;
    const SimReport r = simulate(g.graph(), cfg);
    CHECK(records_of(r, a)[0].start_ns == 0);
    CHECK(records_of(r, b)[0].start_ns == us(12));  // a's completion ends at 11, d's at 12
    CHECK(records_of(r, d).empty());
    CHECK(r.makespan_us == Approx(22.0));
    CHECK(r.tasks == 4);
    CHECK(r.kernel_tasks == 2);
    CHECK(r.ready.size() == 2);
}

TEST_CASE("pickup, poll and fanout costs each add to the scheduler's pass as documented", "[sim]") {
    //   a (AIC 10 us) ──┬── b (AIV 10 us)
    //                   └── c (AIV 10 us)
    GraphBuilder g;
    const FuncId k = g.kernel("k", 10.0);
    const TaskId a = g.task(CoreType::AIC, k);
    const TaskId b = g.task(CoreType::AIV, k, 1, {a});
    const TaskId c = g.task(CoreType::AIV, k, 1, {a});
    SimConfig cfg = free_config(1, 1);
    cfg.cost.core_pickup_us = 0.8;
    cfg.cost.poll_us = 0.1;
    cfg.cost.fanout_edge_us = 0.5;
    const SimReport r = simulate(g.graph(), cfg);
    // a: written after one pickup (0.8), ends 10.8; the poll at 10.8 (one busy core, 0.1) sees it; the
    // fanout walk releases b at 10.9 + 0.5 and c at 10.9 + 1.0; the pass dispatches at 11.9: b and c are
    // written 0.8 apart.
    CHECK(records_of(r, a)[0].start_ns == us(0.8));
    CHECK(r.ready[1].ready_ns == us(11.4));
    CHECK(r.ready[2].ready_ns == us(11.9));
    CHECK(records_of(r, b)[0].start_ns == us(12.7));
    CHECK(records_of(r, c)[0].start_ns == us(13.5));
    CHECK(r.makespan_us == Approx(23.5));
}

TEST_CASE("the model rejects graphs and cost models it cannot replay, naming the culprit", "[sim][errors]") {
    GraphBuilder g;
    const FuncId k = g.kernel("known", 1.0);
    g.task(CoreType::AIC, k);
    SimConfig cfg;

    SECTION("a kernel without a duration") {
        GraphBuilder h;
        h.task(CoreType::AIV, FuncId{7});
        try {
            (void)simulate(h.graph(), cfg);
            FAIL("no error");
        } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::InvalidArgument);
            CHECK_THAT(std::string(e.what()), Catch::Contains("func 7"));
        }
        cfg.cost.kernels.push_back(KernelCost{FuncId{7}, "", 2.0});
        CHECK(simulate(h.graph(), cfg).makespan_us > 2.0);
    }
    SECTION("a negative cost") {
        cfg.cost.dispatch_us = -1.0;
        try {
            (void)simulate(g.graph(), cfg);
            FAIL("no error");
        } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::InvalidArgument);
            CHECK_THAT(std::string(e.what()), Catch::Contains("dispatch_us"));
        }
    }
    SECTION("decreasing quantiles") {
        cfg.cost.kernels.push_back(KernelCost{FuncId{}, "known", 1.0, 1.0, 3.0, 2.0, 4.0, 5.0});
        CHECK_THROWS_AS(simulate(g.graph(), cfg), Error);
    }
    SECTION("a machine the runtime would reject") {
        cfg.machine.scheduler_threads = 0;
        try {
            (void)simulate(g.graph(), cfg);
            FAIL("no error");
        } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::InvalidConfig);
        }
    }
    SECTION("a producer that does not precede its consumer") {
        GraphRecord bad = g.graph();
        bad.producers.push_back(TaskId{0});
        bad.tasks[0].producer_count = 1;
        try {
            (void)simulate(bad, cfg);
            FAIL("no error");
        } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::InvalidArgument);
            CHECK_THAT(std::string(e.what()), Catch::Contains("task 0"));
        }
    }
}

TEST_CASE("the default cost model is the proxy-a2a3 profile, and every cost is a named parameter", "[sim]") {
    const SimProfile* proxy = sim_profile("proxy-a2a3");
    REQUIRE(proxy != nullptr);
    REQUIRE(sim_profiles().size() == 2);
    CHECK(sim_profiles()[0].name == "proxy-a2a3");
    CHECK(sim_profile("simpler-a2a3") != nullptr);
    CHECK(sim_profile("host") == nullptr);
    const CostModel c;
    for (const CostParameter& p : cost_parameters()) {
        CAPTURE(p.name);
        CHECK(c.*p.field == proxy->cost.*p.field);
        CHECK(find_cost_parameter(p.name) == &p);
    }
    CHECK(find_cost_parameter("mode_multiplier") == nullptr);
    // The optional charges stay off unless a profile sets them.
    CHECK(c.core_pickup_us == 0.0);
    CHECK(c.poll_us == 0.0);
    const CostModel zero = without_aicpu_costs(sim_profile("simpler-a2a3")->cost);
    for (const CostParameter& p : cost_parameters())
        if (std::string(p.name) != "duration_cv") CHECK(zero.*p.field == 0.0);
    CHECK(CostModel::host_submit_us(500.0, 1.5) == Approx(0.75));
    CHECK_THROWS_AS(CostModel::host_submit_us(500.0, 0.0), Error);
}

// The shared policy fills this thread's pending slots only for core types no other thread has idle, so a
// burst of short tasks spreads over every thread instead of queueing behind the first thread to pass.
TEST_CASE("idle cores of other threads take work before this thread's pending slots", "[sim][policy]") {
    GraphBuilder burst;
    const FuncId k = burst.kernel("short", 1.0);
    for (int i = 0; i < 48; ++i)
        burst.task(CoreType::AIV, k);
    SimConfig cfg = free_config(24, 3);
    cfg.cost.dispatch_us = 5.0;
    cfg.cost.completion_us = 3.0;
    cfg.use_pending_slots = false;
    const double without_pending = simulate(burst.graph(), cfg).makespan_us;
    CHECK(without_pending == Approx(81.0));
    cfg.use_pending_slots = true;
    CHECK(simulate(burst.graph(), cfg).makespan_us == Approx(without_pending));

    GraphBuilder spmd;
    spmd.task(CoreType::AIC, spmd.kernel("mm", 10.0), 2);
    SimConfig two = free_config(2, 2);
    two.use_pending_slots = false;
    CHECK(simulate(spmd.graph(), two).makespan_us == Approx(10.0));
    two.use_pending_slots = true;
    CHECK(simulate(spmd.graph(), two).makespan_us == Approx(10.0));
}

//   two independent AIC tasks of 10 us on one AIC core; dispatch 1 us per block, start latency 3 us
TEST_CASE("the start latency delays every kernel on an idle core, and a pending slot hides it", "[sim]") {
    GraphBuilder g;
    const FuncId k = g.kernel("mm", 10.0);
    const TaskId a = g.task(CoreType::AIC, k);
    const TaskId b = g.task(CoreType::AIC, k);
    SimConfig cfg = free_config(1, 1);
    cfg.cost.dispatch_us = 1.0;
    cfg.cost.start_latency_us = 3.0;

    SECTION("without pending slots") {
        cfg.use_pending_slots = false;
        const SimReport r = simulate(g.graph(), cfg);
        // a: written 1, starts 4, ends 14; b is written when a's end is seen: 15, starts 18.
        CHECK(records_of(r, a)[0].start_ns == us(4));
        CHECK(records_of(r, b)[0].dispatch_ns == us(15));
        CHECK(records_of(r, b)[0].start_ns == us(18));
        CHECK(r.makespan_us == Approx(28.0));
        // The latency does not occupy the scheduler: it is busy 1 us per write only.
        CHECK(r.sched_busy_us == Approx(2.0));
        REQUIRE(r.head_tail.back().name == "all");
        CHECK(r.head_tail.back().head_mean_us == Approx(3.0));
    }
    SECTION("with pending slots") {
        const SimReport r = simulate(g.graph(), cfg);
        // b is written into the pending slot at 2 and starts when a ends at 14: its latency is hidden.
        CHECK(records_of(r, b)[0].dispatch_ns == us(2));
        CHECK(records_of(r, b)[0].start_ns == us(14));
        CHECK(r.makespan_us == Approx(24.0));
        CHECK(r.head_tail.back().head_mean_us == Approx(1.5));  // a: 3, b: 0
    }
}

//   a MIX block whose lanes run 10 (AIC), 4 and 6 us (AIV), and an AIV task of 3 us; one cluster
TEST_CASE("each lane of a MIX block takes its own duration and frees its core when it ends", "[sim]") {
    GraphBuilder g;
    const TaskId m = g.mix(g.kernel("mix_aic", 10.0), g.kernel("mix_aiv0", 4.0), g.kernel("mix_aiv1", 6.0));
    const TaskId v = g.task(CoreType::AIV, g.kernel("vec", 3.0));
    SimConfig cfg = free_config(1, 1);
    cfg.use_pending_slots = false;
    const SimReport r = simulate(g.graph(), cfg);
    const auto lanes = records_of(r, m);
    REQUIRE(lanes.size() == 3);
    double end_by_lane[3] = {};
    for (const SubtaskRecord& s : lanes)
        end_by_lane[s.lane] = static_cast<double>(s.end_ns) / 1000.0;
    CHECK(end_by_lane[0] == Approx(10.0));
    CHECK(end_by_lane[1] == Approx(4.0));
    CHECK(end_by_lane[2] == Approx(6.0));
    // The AIV core of lane 1 is free at 4 and takes the waiting AIV task while lanes 0 and 2 still run.
    const auto vec = records_of(r, v);
    REQUIRE(vec.size() == 1);
    CHECK(vec[0].start_ns == us(4));
    CHECK(r.makespan_us == Approx(10.0));
}

//   alloc, then a ── b, a ── c (AIV, 1 us); the run did 4 tensormap lookups and 2 inserts
TEST_CASE("the orchestrator pays per submit, per edge and for the run's tensormap work, in every scheme",
          "[sim]") {
    GraphBuilder g;
    const FuncId k = g.kernel("k", 1.0);
    g.alloc();
    const TaskId a = g.task(CoreType::AIV, k);
    g.task(CoreType::AIV, k, 1, {a});
    g.task(CoreType::AIV, k, 1, {a});
    SimConfig cfg = free_config(1, 1);
    cfg.cost.submit_us = 0.5;
    cfg.cost.submit_edge_us = 0.25;
    cfg.cost.tensormap_lookup_us = 1.0;
    cfg.cost.tensormap_insert_us = 0.125;
    const SimReport manual = simulate(g.graph(), cfg);
    CHECK(manual.orch_busy_us == Approx(4 * 0.5 + 2 * 0.25));

    cfg.tensormap_lookups = 4;
    cfg.tensormap_inserts = 2;
    const SimReport tensormap = simulate(g.graph(), cfg);
    CHECK(tensormap.orch_busy_us == Approx(4 * 0.5 + 2 * 0.25 + 4 * 1.0 + 2 * 0.125));
    // The totals are spread over the three kernel submits (lookups 1, 1, 2; inserts 0, 1, 1), none on the
    // alloc: the orchestrator slices show each submit's cost.
    std::vector<double> submit_us;
    for (const TraceSlice& s : tensormap.trace.slices)
        if (s.track == 0) submit_us.push_back(static_cast<double>(s.end_ns - s.start_ns) / 1000.0);
    CHECK(submit_us == std::vector<double>{0.5, 1.5, 1.875, 2.875});
}
