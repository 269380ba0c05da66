// docs/design/virtual-time-model.md, conformance: properties of the virtual-time model on random and recorded
// graphs: determinism for a seed, dependency order and exactly-once in the simulated timeline, lower bounds
// below the makespan, sampled durations within their quantiles, and the paged-attention shape of
// docs/design/reference-graphs.md.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "pto/runtime/runtime.h"
#include "pto/runtime/simulate.h"
#include "pto/scope/orchestration.h"
#include "sim_test_graph.h"
#include "support/catch_printers.h"
#include "support/graph_checks.h"
#include "support/random_dag.h"

using namespace pto;
using pto::test::free_config;
using pto::test::GraphBuilder;

namespace {

/// random_graph: a GraphRecord of `random_dag(seed)`, every kernel lane running one of four kernels.
GraphRecord random_graph(std::uint64_t seed, std::uint32_t tasks) {
    test::RandomDagOptions o;
    o.tasks = tasks;
    const std::vector<test::RandomNode> nodes = test::random_dag(seed, o);
    GraphBuilder b;
    const FuncId k[4] = {b.kernel("a", 3.0), b.kernel("b", 11.0), b.kernel("c", 29.0), b.kernel("d", 0.5)};
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const test::RandomNode& n = nodes[i];
        std::vector<TaskId> deps;
        for (std::uint32_t d : n.deps)
            deps.push_back(TaskId{d});
        if (n.kind == TaskKind::DependencyOnly) {
            b.dependency_only(deps);
        } else if (n.core == CoreType::MIX) {
            b.mix(k[i % 4], k[(i + 1) % 4], k[(i + 2) % 4], n.block_num, deps);
        } else {
            b.task(n.core, k[i % 4], n.block_num, deps);
        }
    }
    return b.graph();
}

bool same_records(const std::vector<SubtaskRecord>& a, const std::vector<SubtaskRecord>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const SubtaskRecord& x = a[i];
        const SubtaskRecord& y = b[i];
        if (x.task != y.task || x.func != y.func || x.block_idx != y.block_idx || x.core != y.core ||
            x.lane != y.lane || x.scheduler != y.scheduler || x.dispatch_ns != y.dispatch_ns ||
            x.start_ns != y.start_ns || x.end_ns != y.end_ns || x.finish_ns != y.finish_ns)
            return false;
    }
    return true;
}

}  // namespace

TEST_CASE("the same seed gives an identical report and timeline, and another seed samples other durations",
          "[sim][determinism]") {
    const GraphRecord g = random_graph(42, 300);
    SimConfig cfg;
    cfg.cost.durations = GENERATE(DurationModel::Normal, DurationModel::LogNormal);
    cfg.cost.duration_cv = 0.3;
    cfg.seed = 7;
    const SimReport a = simulate(g, cfg);
    const SimReport b = simulate(g, cfg);
    CHECK(same_records(a.timeline, b.timeline));
    CHECK(a.makespan_us == b.makespan_us);
    CHECK(a.lower_bound_us == b.lower_bound_us);
    CHECK(a.overhead.aic == b.overhead.aic);
    CHECK(a.overhead.has == b.overhead.has);
    CHECK(a.sched_busy_us == b.sched_busy_us);
    CHECK(a.trace.slices.size() == b.trace.slices.size());

    cfg.seed = 8;
    const SimReport c = simulate(g, cfg);
    CHECK_FALSE(same_records(a.timeline, c.timeline));
    CHECK(a.makespan_us != c.makespan_us);
}

TEST_CASE("fixed durations make the seed irrelevant", "[sim][determinism]") {
    const GraphRecord g = random_graph(3, 120);
    SimConfig cfg;
    cfg.seed = 1;
    const SimReport a = simulate(g, cfg);
    cfg.seed = 99;
    const SimReport b = simulate(g, cfg);
    CHECK(same_records(a.timeline, b.timeline));
}

TEST_CASE("a simulated timeline runs every subtask once and never before its producers ended",
          "[sim][property]") {
    const std::uint64_t seed = GENERATE(1u, 2u, 3u, 4u);
    const std::uint32_t threads = GENERATE(1u, 3u);
    const bool pending = GENERATE(false, true);
    INFO("random_dag seed " << seed << ", " << threads << " scheduler threads, pending slots " << pending);
    const GraphRecord g = random_graph(seed, 400);
    SimConfig cfg;
    cfg.machine.cluster_count = 6;
    cfg.machine.scheduler_threads = threads;
    cfg.machine.window_tasks = 32;  // small enough to exercise back-pressure and retirement
    cfg.use_pending_slots = pending;
    cfg.cost.durations = DurationModel::LogNormal;
    cfg.seed = seed;
    const SimReport r = simulate(g, cfg);
    CHECK(test::check_exactly_once_records(g, r.timeline).empty());
    CHECK(test::check_ordering(g, test::spans_from_timeline(g, r.timeline)).empty());
    CHECK(r.makespan_us >= r.lower_bound_us);
    CHECK(r.makespan_us >= r.bounds.critical_path_us);
    CHECK(r.makespan_us >= r.bounds.orchestration_path_us);
    CHECK(r.utilisation_aic <= 1.0);
    CHECK(r.utilisation_aiv <= 1.0);
    for (double share : {r.overhead.aic, r.overhead.aiv, r.overhead.mix, r.overhead.all, r.overhead.has}) {
        CHECK(share >= 0.0);
        CHECK(share <= 1.0);
    }
    CHECK(r.overhead.all <= std::min(r.overhead.aic, r.overhead.aiv) + 1e-12);
    // No core runs two subtasks at once.
    std::vector<SubtaskRecord> by_core = r.timeline;
    std::sort(by_core.begin(), by_core.end(), [](const SubtaskRecord& a, const SubtaskRecord& b) {
        return a.core != b.core ? a.core < b.core : a.start_ns < b.start_ns;
    });
    for (std::size_t i = 1; i < by_core.size(); ++i)
        if (by_core[i].core == by_core[i - 1].core) CHECK(by_core[i].start_ns >= by_core[i - 1].end_ns);
}

TEST_CASE("quantile sampling keeps the kernel's mean and the shape of its quantiles", "[sim]") {
    // The paged-attention QK quantiles: the curve through them has a mean below 51.63 us, so unscaled
    // draws would shift the AIC work.
    GraphBuilder b;
    const FuncId qk = b.kernel("QK", 51.63);
    for (int i = 0; i < 20000; ++i)
        b.task(CoreType::AIC, qk);
    SimConfig cfg = free_config(24, 3);
    cfg.cost.durations = DurationModel::Quantiles;
    const double q[5] = {43.06, 51.79, 55.00, 57.95, 59.94};
    cfg.cost.kernels.push_back(KernelCost{FuncId{}, "QK", 51.63, q[0], q[1], q[2], q[3], q[4]});
    const double curve_mean = 0.5 * (q[0] + q[1]) / 2 + 0.4 * (q[1] + q[2]) / 2 + 0.09 * (q[2] + q[3]) / 2 +
                              0.01 * (q[3] + q[4]) / 2;
    const double scale = 51.63 / curve_mean;
    REQUIRE(scale > 1.005);  // renormalising matters for this kernel
    const SimReport r = simulate(b.graph(), cfg);
    std::vector<double> d;
    double sum = 0.0;
    for (const SubtaskRecord& s : r.timeline) {
        d.push_back(static_cast<double>(s.end_ns - s.start_ns) / 1000.0);
        sum += d.back();
    }
    const double mean = sum / static_cast<double>(d.size());
    CHECK(std::abs(mean / 51.63 - 1.0) < 0.005);
    std::sort(d.begin(), d.end());
    CHECK(d.front() >= q[0] * scale - 0.001);
    CHECK(d.back() <= q[4] * scale + 0.001);
    CHECK(d[d.size() / 2] == Approx(q[1] * scale).margin(0.5));
}

TEST_CASE("the model replays a graph the runtime recorded", "[sim][runtime]") {
    RuntimeConfig rc;
    rc.record_graph = true;
    Runtime rt(rc);
    rt.register_kernel(FuncId{0}, KernelInfo{"mm", 20.0, nullptr, nullptr});
    rt.register_kernel(FuncId{1}, KernelInfo{"vec", 5.0, nullptr, nullptr});
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            const TaskId a = submit_aic(FuncId{0}, Args().block_num(8)).task_id();
            const TaskId b = submit_aiv(FuncId{1}, Args().set_dependencies(&a, 1).block_num(16)).task_id();
            const TaskId ab[] = {a, b};
            const TaskId m =
                submit_mix(FuncId{0}, FuncId{1}, FuncId{1}, Args().set_dependencies(ab).block_num(4))
                    .task_id();
            const TaskId d = submit_dependency_only(Args().set_dependencies(&m, 1)).task_id();
            submit_aiv(FuncId{1}, Args().set_dependencies(&d, 1));
        }
    });
    const GraphRecord& g = rt.graph();
    REQUIRE(g.tasks.size() == 5);
    const SimReport r = simulate(g, SimConfig{});
    CHECK(r.kernel_tasks == 4);
    CHECK(r.subtasks == 8 + 16 + 4 + 1);
    CHECK(r.timeline.size() == 8 + 16 + 4 * 3 + 1);
    CHECK(test::check_exactly_once_records(g, r.timeline).empty());
    CHECK(test::check_ordering(g, test::spans_from_timeline(g, r.timeline)).empty());
    // The chain a -> b -> m -> (d) -> last is at least 20 + 5 + 20 + 5 us of kernel time.
    CHECK(r.bounds.critical_path_us == Approx(50.0));
    CHECK(r.makespan_us > r.bounds.critical_path_us);
}

//   per batch b (480 of them, independent):  QK (AIC) -> softmax (AIV) -> PV (AIC) -> update (AIV)
TEST_CASE("paged attention (480 groups x 4 tasks) simulates on the default a2a3 model",
          "[sim][paged_attention]") {
    GraphBuilder b;
    const FuncId qk = b.kernel("QK", 51.63);
    const FuncId sf = b.kernel("softmax_prepare", 58.82);
    const FuncId pv = b.kernel("PV", 52.61);
    const FuncId up = b.kernel("online_update", 2.56);
    for (int i = 0; i < 480; ++i) {
        const TaskId t0 = b.task(CoreType::AIC, qk);
        const TaskId t1 = b.task(CoreType::AIV, sf, 1, {t0});
        const TaskId t2 = b.task(CoreType::AIC, pv, 1, {t1});
        b.task(CoreType::AIV, up, 1, {t2});
    }
    SimConfig cfg;
    cfg.cost.submit_us = 0.437;
    cfg.cost.submit_edge_us = 0.0;
    const SimReport r = simulate(b.graph(), cfg);
    CHECK(r.kernel_tasks == 1920);
    CHECK(r.timeline.size() == 1920);
    CHECK(test::check_ordering(b.graph(), test::spans_from_timeline(b.graph(), r.timeline)).empty());
    // 480 x (51.63 + 52.61) us of AIC work on 24 AIC cores.
    CHECK(r.bounds.aic_work_us == Approx(480.0 * (51.63 + 52.61) / 24.0));
    CHECK(r.bounds.critical_path_us == Approx(51.63 + 58.82 + 52.61 + 2.56));
    CHECK(r.orch_busy_us == Approx(1920 * 0.437));
    // Run with -s to see the figures docs/design/virtual-time-model.md quotes in these expansions.
    CHECK(r.makespan_us >= r.lower_bound_us);
    CHECK(r.lower_bound_us == Approx(r.bounds.aic_work_us));
    CHECK(r.bounds.orchestration_path_us > r.bounds.orchestration_us);
    CHECK(r.overhead.mix == 0.0);  // no MIX work
    CHECK(r.overhead.aic >= 0.0);
    CHECK(r.overhead.aiv >= 0.0);
    CHECK(r.overhead.all >= 0.0);
    CHECK(r.overhead.has >= 0.0);
    CHECK(r.utilisation_aic > 0.0);
    CHECK(r.sched_busy_us > 0.0);

    // The AICPU tracks: one submit slice per task on the orchestrator, passes on each scheduler.
    REQUIRE(r.trace.tracks.size() == 4);
    CHECK(r.trace.tracks[0] == "orchestrator");
    CHECK(r.trace.tracks[3] == "scheduler 2");
    std::size_t submits = 0;
    std::size_t dispatches = 0;
    for (const TraceSlice& s : r.trace.slices) {
        if (s.track == 0) ++submits;
        if (s.track > 0 && s.name == "dispatch") ++dispatches;
    }
    CHECK(submits == 1920);
    CHECK(dispatches > 0);

    // Without scheduler costs the same graph runs close to its AIC-work bound.
    cfg.cost.dispatch_us = cfg.cost.completion_us = cfg.cost.fanout_edge_us = 0.0;
    cfg.cost.start_latency_us = 0.0;
    const SimReport free = simulate(b.graph(), cfg);
    CHECK(free.makespan_us >= free.lower_bound_us);
    CHECK(free.makespan_us < r.makespan_us);

    // The device orchestration + scheduling cost is the makespan over the zero-cost machine's.
    const DeviceOrchestrationCost d = device_orchestration_cost(b.graph(), cfg, free);
    CHECK(d.cost_us == Approx(free.makespan_us - d.zero_cost_makespan_us));
    cfg.cost.submit_us = 0.0;
    const SimReport zero = simulate(b.graph(), cfg);
    CHECK(d.zero_cost_makespan_us == Approx(zero.makespan_us));
    CHECK(d.ns_per_launch == Approx(1000.0 * d.cost_us / 1920.0));
}
