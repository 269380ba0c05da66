// docs/architecture.md and docs/design/reference-graphs.md, conformance: per-kernel and per-core-type timing
// statistics (nearest-index percentiles, MIX instances as their longest lane) on hand-made timelines.
#include <catch2/catch.hpp>

#include <sstream>
#include <vector>

#include "pto/runtime/export.h"
#include "sim_test_graph.h"

using namespace pto;

namespace {

SubtaskRecord rec(std::uint64_t task, FuncId f, CoreType type, std::uint32_t block, std::uint8_t lane,
                  double duration_us) {
    SubtaskRecord r;
    r.task = TaskId{task};
    r.func = f;
    r.core_type = type;
    r.block_idx = block;
    r.lane = lane;
    r.start_ns = 1000;
    r.end_ns = 1000 + static_cast<std::int64_t>(duration_us * 1000.0 + 0.5);
    return r;
}

}  // namespace

TEST_CASE("percentiles use the nearest index, reproducing the seed's six-sample rows", "[export][timing]") {
    // The seed's qk_norm row (6 instances): median 13.03, P90 13.62, P99 14.18 = max.
    const TimingStats s = summarize_durations({13.62, 12.58, 14.18, 13.03, 12.90, 13.20});
    CHECK(s.instances == 6);
    CHECK(s.min_us == 12.58);
    CHECK(s.max_us == 14.18);
    CHECK(s.median_us == 13.03);  // index round(2.5) = 2 (halves to even)
    CHECK(s.p90_us == 13.62);     // index round(4.5) = 4
    CHECK(s.p99_us == 14.18);     // index round(4.95) = 5
    CHECK(s.mean_us == Approx((13.62 + 12.58 + 14.18 + 13.03 + 12.90 + 13.20) / 6.0));

    const TimingStats ten = summarize_durations({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
    CHECK(ten.total_us == 55.0);
    CHECK(ten.mean_us == 5.5);
    CHECK(ten.median_us == 5.0);  // index round(4.5) = 4
    CHECK(ten.p90_us == 9.0);     // index round(8.1) = 8
    CHECK(ten.p99_us == 10.0);    // index round(8.91) = 9

    const TimingStats none = summarize_durations({});
    CHECK(none.instances == 0);
    CHECK(none.total_us == 0.0);
}

TEST_CASE("timing rows group subtasks per kernel and core type, and a MIX instance lasts its longest lane",
          "[export][timing]") {
    pto::test::GraphBuilder b;
    const FuncId qk = b.kernel("qk", 10.0);
    const FuncId sm = b.kernel("softmax", 5.0);
    std::vector<SubtaskRecord> records;
    for (int i = 1; i <= 10; ++i)
        records.push_back(rec(static_cast<std::uint64_t>(i), qk, CoreType::AIC, 0, 0, i));
    records.push_back(rec(20, sm, CoreType::AIV, 0, 0, 2.0));
    records.push_back(rec(20, sm, CoreType::AIV, 1, 0, 4.0));
    // One MIX task, two blocks: lanes (3, 5, 4) and (2, 2, 7) -> instances of 5 and 7 us, named by lane 0.
    records.push_back(rec(30, qk, CoreType::MIX, 0, 0, 3.0));
    records.push_back(rec(30, sm, CoreType::MIX, 0, 1, 5.0));
    records.push_back(rec(30, sm, CoreType::MIX, 0, 2, 4.0));
    records.push_back(rec(30, qk, CoreType::MIX, 1, 0, 2.0));
    records.push_back(rec(30, sm, CoreType::MIX, 1, 1, 2.0));
    records.push_back(rec(30, sm, CoreType::MIX, 1, 2, 7.0));

    const std::vector<TimingStats> rows = timing_by_kernel(b.graph(), records);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].label == "qk");
    CHECK(rows[0].core == CoreType::AIC);
    CHECK(rows[0].instances == 10);
    CHECK(rows[0].median_us == 5.0);
    CHECK(rows[1].label == "qk");
    CHECK(rows[1].core == CoreType::MIX);
    CHECK(rows[1].instances == 2);
    CHECK(rows[1].total_us == 12.0);
    CHECK(rows[1].max_us == 7.0);
    CHECK(rows[1].min_us == 5.0);
    CHECK(rows[2].label == "softmax");
    CHECK(rows[2].core == CoreType::AIV);
    CHECK(rows[2].mean_us == 3.0);

    const std::vector<TimingStats> cores = timing_by_core_type(records);
    REQUIRE(cores.size() == 4);
    CHECK(cores[0].label == "AIC");
    CHECK(cores[0].instances == 10);
    CHECK(cores[1].label == "AIV");
    CHECK(cores[1].instances == 2);
    CHECK(cores[2].label == "MIX");
    CHECK(cores[2].instances == 2);
    CHECK(cores[3].label == "all");
    CHECK(cores[3].instances == 14);
    CHECK(cores[3].total_us == Approx(55.0 + 6.0 + 12.0));

    std::ostringstream table;
    write_timing_table(table, rows);
    CHECK(table.str().find("softmax") != std::string::npos);
    CHECK(table.str().find("P99") != std::string::npos);
}
