// SPEC §7, conformance: the overhead metric (measure_overhead) on hand-made timelines whose shares are
// worked out below, including how a waiting MIX block counts for both engines.
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
