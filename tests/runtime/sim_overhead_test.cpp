// docs/design/virtual-time-model.md, conformance: the overhead metric (measure_overhead) on hand-made
// timelines whose shares are worked out below, including how a waiting MIX block counts for both engines.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "pto/runtime/error.h"
#include "pto/runtime/simulate.h"
#include "support/catch_printers.h"

using namespace pto;

namespace {

constexpr std::int64_t us(double v) {
    return static_cast<std::int64_t>(v * 1000.0 + 0.5);
}

SubtaskRecord rec(std::uint64_t task, CoreType type, std::uint32_t core, std::uint8_t lane, double dispatch,
                  double start, double end) {
    SubtaskRecord r;
    r.task = TaskId{task};
    r.core_type = type;
    r.core = core;
    r.lane = lane;
    r.dispatch_ns = us(dispatch);
    r.start_ns = us(start);
    r.end_ns = us(end);
    r.finish_ns = us(end);
    return r;
}

RuntimeConfig machine(std::uint32_t clusters) {
    RuntimeConfig m;
    m.cluster_count = clusters;
    m.scheduler_threads = 1;
    return m;
}

const CounterSeries* series(const std::vector<CounterSeries>& all, const std::string& name) {
    for (const CounterSeries& s : all)
        if (s.name == name) return &s;
    return nullptr;
}

}  // namespace

// One cluster (AIC core 0, AIV cores 1 and 2), makespan 12:
//   x AIV: ready 0, written 2, runs [2, 10) on core 1
//   y AIC: ready 4, written 6, runs [6, 8)  on core 0
//   m MIX: ready 5, written 10, lanes [10, 12) on cores 0, 1, 2
// AIV overhead [0, 2); AIC overhead [4, 6); m never strands: no cluster is wholly idle while it waits.
// has: [0, 2) (only AIV has work) + [4, 5) (only AIC); from 5 on MIX work makes both engines "have work"
// and the AIV engine is not in overhead.
TEST_CASE("overhead counts idle cores of an engine while its work waits, MIX only on a whole idle cluster",
          "[sim][overhead]") {
    const std::vector<SubtaskRecord> timeline = {
        rec(0, CoreType::AIV, 1, 0, 2, 2, 10), rec(1, CoreType::AIC, 0, 0, 6, 6, 8),
        rec(2, CoreType::MIX, 0, 0, 10, 10, 12), rec(2, CoreType::MIX, 1, 1, 10, 10, 12),
        rec(2, CoreType::MIX, 2, 2, 10, 10, 12)};
    const std::vector<ReadyMark> ready = {ReadyMark{TaskId{0}, CoreType::AIV, 1, us(0)},
                                          ReadyMark{TaskId{1}, CoreType::AIC, 1, us(4)},
                                          ReadyMark{TaskId{2}, CoreType::MIX, 1, us(5)}};
    const OverheadShares s = measure_overhead(timeline, ready, machine(1), us(12));
    CHECK(s.aiv == Approx(2.0 / 12.0));
    CHECK(s.aic == Approx(2.0 / 12.0));
    CHECK(s.mix == Approx(0.0));
    CHECK(s.all == Approx(0.0));
    CHECK(s.has == Approx(3.0 / 12.0));
}

// Two clusters: AIC cores 0, 1; AIV cores 2, 3 (cluster 0) and 4, 5 (cluster 1); makespan 10.
//   x AIV: ready 0, written 2, [2, 10) on core 2
//   y AIC: ready 4, written 6, [6, 8)  on core 0
//   m MIX: ready 5, written 7, lanes [7, 9) on cores 1, 4, 5 (cluster 1, idle until then)
// mix [5, 7) = 2; aic = [4, 6) u [5, 7) = 3; aiv = [0, 2) + [5, 7) = 4; all = [5, 7) = 2;
// has = [0, 2) + [4, 7) = 5.
TEST_CASE("a MIX block stranded next to an idle cluster is overhead for both engines", "[sim][overhead]") {
    const std::vector<SubtaskRecord> timeline = {
        rec(0, CoreType::AIV, 2, 0, 2, 2, 10), rec(1, CoreType::AIC, 0, 0, 6, 6, 8),
        rec(2, CoreType::MIX, 1, 0, 7, 7, 9), rec(2, CoreType::MIX, 4, 1, 7, 7, 9),
        rec(2, CoreType::MIX, 5, 2, 7, 7, 9)};
    const std::vector<ReadyMark> ready = {ReadyMark{TaskId{0}, CoreType::AIV, 1, us(0)},
                                          ReadyMark{TaskId{1}, CoreType::AIC, 1, us(4)},
                                          ReadyMark{TaskId{2}, CoreType::MIX, 1, us(5)}};
    std::vector<CounterSeries> counters;
    const OverheadShares s = measure_overhead(timeline, ready, machine(2), us(10), &counters);
    CHECK(s.mix == Approx(0.2));
    CHECK(s.aic == Approx(0.3));
    CHECK(s.aiv == Approx(0.4));
    CHECK(s.all == Approx(0.2));
    CHECK(s.has == Approx(0.5));

    const CounterSeries* aiv = series(counters, "overhead AIV");
    REQUIRE(aiv != nullptr);
    const std::vector<std::pair<std::int64_t, double>> expected = {
        {0, 1.0}, {us(2), 0.0}, {us(5), 1.0}, {us(7), 0.0}};
    REQUIRE(aiv->samples.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CHECK(aiv->samples[i].time_ns == expected[i].first);
        CHECK(aiv->samples[i].value == expected[i].second);
    }
    const CounterSeries* idle_aic = series(counters, "idle AIC cores");
    REQUIRE(idle_aic != nullptr);
    CHECK(idle_aic->samples.front().value == 2.0);
    CHECK(series(counters, "ready MIX blocks") != nullptr);
    CHECK(counters.size() == 10);
}

TEST_CASE("an SPMD task counts each unwritten block, and a full engine is no overhead", "[sim][overhead]") {
    // One cluster, two AIV cores. A 4-block AIV task is ready at 0; blocks are written at 0, 0 (running)
    // and 0, 0 (pending, starting at 5). Both AIV cores are busy throughout, so waiting blocks are no
    // overhead; then at [10, 12) nothing is ready.
    const std::vector<SubtaskRecord> timeline = {
        rec(0, CoreType::AIV, 1, 0, 0, 0, 5), rec(0, CoreType::AIV, 2, 0, 0, 0, 5),
        rec(0, CoreType::AIV, 1, 0, 0, 5, 10), rec(0, CoreType::AIV, 2, 0, 0, 5, 10)};
    const std::vector<ReadyMark> ready = {ReadyMark{TaskId{0}, CoreType::AIV, 4, 0}};
    const OverheadShares s = measure_overhead(timeline, ready, machine(1), us(12));
    CHECK(s.aiv == Approx(0.0));
    CHECK(s.has == Approx(0.0));

    // The same blocks written late (at 3 and 4) strand the two idle AIV cores for [0, 3) and one for [3, 4).
    const std::vector<SubtaskRecord> late = {
        rec(0, CoreType::AIV, 1, 0, 3, 3, 8), rec(0, CoreType::AIV, 2, 0, 4, 4, 9),
        rec(0, CoreType::AIV, 1, 0, 4, 8, 13), rec(0, CoreType::AIV, 2, 0, 4, 9, 14)};
    const OverheadShares t = measure_overhead(late, ready, machine(1), us(14));
    CHECK(t.aiv == Approx(4.0 / 14.0));
}

TEST_CASE("measure_overhead rejects a core outside the machine", "[sim][overhead][errors]") {
    const std::vector<SubtaskRecord> timeline = {rec(0, CoreType::AIV, 9, 0, 0, 0, 1)};
    try {
        (void)measure_overhead(timeline, {}, machine(1), us(1));
        FAIL("no error");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::InvalidArgument);
        CHECK_THAT(std::string(e.what()), Catch::Contains("core 9"));
    }
}

// The capacity-weighted shares of the two examples above.
//   One cluster (1 AIC, 2 AIV), makespan 12: AIV loses 1 core on [0, 2) (x waits, two AIV idle); AIC loses
//   1 core on [4, 6) (y waits); m never finds a wholly idle cluster. AIV 2 / (2 * 12), AIC 2 / (1 * 12).
//   Two clusters, makespan 10: AIC: [4, 5) 1 (y), [5, 6) 2 (y and m, two idle AIC), [6, 7) 1 (m, one idle
//   AIC) = 4 / (2 * 10); AIV: [0, 2) 1 (x) + [5, 7) 2 (m's two AIV lanes, three idle AIV) = 6 / (4 * 10).
TEST_CASE("capacity-weighted overhead counts the cores that could have run waiting blocks",
          "[sim][overhead]") {
    SECTION("one cluster") {
        const std::vector<SubtaskRecord> timeline = {
            rec(0, CoreType::AIV, 1, 0, 2, 2, 10), rec(1, CoreType::AIC, 0, 0, 6, 6, 8),
            rec(2, CoreType::MIX, 0, 0, 10, 10, 12), rec(2, CoreType::MIX, 1, 1, 10, 10, 12),
            rec(2, CoreType::MIX, 2, 2, 10, 10, 12)};
        const std::vector<ReadyMark> ready = {ReadyMark{TaskId{0}, CoreType::AIV, 1, us(0)},
                                              ReadyMark{TaskId{1}, CoreType::AIC, 1, us(4)},
                                              ReadyMark{TaskId{2}, CoreType::MIX, 1, us(5)}};
        const OverheadShares s = measure_overhead(timeline, ready, machine(1), us(12));
        CHECK(s.capacity_aiv == Approx(2.0 / 24.0));
        CHECK(s.capacity_aic == Approx(2.0 / 12.0));
    }
    SECTION("two clusters") {
        const std::vector<SubtaskRecord> timeline = {
            rec(0, CoreType::AIV, 2, 0, 2, 2, 10), rec(1, CoreType::AIC, 0, 0, 6, 6, 8),
            rec(2, CoreType::MIX, 1, 0, 7, 7, 9), rec(2, CoreType::MIX, 4, 1, 7, 7, 9),
            rec(2, CoreType::MIX, 5, 2, 7, 7, 9)};
        const std::vector<ReadyMark> ready = {ReadyMark{TaskId{0}, CoreType::AIV, 1, us(0)},
                                              ReadyMark{TaskId{1}, CoreType::AIC, 1, us(4)},
                                              ReadyMark{TaskId{2}, CoreType::MIX, 1, us(5)}};
        const OverheadShares s = measure_overhead(timeline, ready, machine(2), us(10));
        CHECK(s.capacity_aic == Approx(4.0 / 20.0));
        CHECK(s.capacity_aiv == Approx(6.0 / 40.0));
    }
}

// One AIC core runs a (kernel k1): dispatch 0, start 1, end 5, handled 6; b (k1) written into the pending
// slot at 2, starts 5, ends 9, handled 12; c (k2): dispatch 12, start 14, end 20, handled 20.
//   head = start - max(dispatch, core free): a 1, b 0, c 2; tail = handled - end: a 1, b 3, c 0.
TEST_CASE("head and tail overhead per kernel, with means and nearest-rank P90", "[sim][overhead]") {
    GraphRecord graph;
    graph.kernels = {KernelSummary{FuncId{1}, "k1", 4.0}, KernelSummary{FuncId{2}, "k2", 6.0}};
    std::vector<SubtaskRecord> timeline = {rec(0, CoreType::AIC, 0, 0, 0, 1, 5),
                                           rec(1, CoreType::AIC, 0, 0, 2, 5, 9),
                                           rec(2, CoreType::AIC, 0, 0, 12, 14, 20)};
    timeline[0].func = FuncId{1};
    timeline[1].func = FuncId{1};
    timeline[2].func = FuncId{2};
    timeline[0].finish_ns = us(6);
    timeline[1].finish_ns = us(12);
    // Shuffled, to show the order of the timeline does not matter.
    std::swap(timeline[0], timeline[2]);
    const std::vector<KernelHeadTail> h = measure_head_tail(timeline, graph);
    REQUIRE(h.size() == 3);
    CHECK(h[0].name == "k2");  // first in timeline order
    CHECK(h[0].head_mean_us == Approx(2.0));
    CHECK(h[0].tail_mean_us == Approx(0.0));
    CHECK(h[1].name == "k1");
    CHECK(h[1].subtasks == 2);
    CHECK(h[1].head_mean_us == Approx(0.5));
    CHECK(h[1].head_p90_us == Approx(1.0));
    CHECK(h[1].tail_mean_us == Approx(2.0));
    CHECK(h[1].tail_p90_us == Approx(3.0));
    CHECK(h[2].name == "all");
    CHECK(h[2].subtasks == 3);
    CHECK(h[2].head_mean_us == Approx(1.0));
    CHECK(h[2].head_p90_us == Approx(2.0));
    CHECK(h[2].tail_mean_us == Approx(4.0 / 3.0));
    CHECK(h[2].tail_p90_us == Approx(3.0));
}
