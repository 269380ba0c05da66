// docs/base-data.md conformance (public API of bench/base_data.h): metric values: which are usable, units in
// metric names and their precedence, and the direction of raw_ratio for latencies and throughput.
#include "base_data_support.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

using namespace pto::bench;
using pto::bench::test::compared_with;
using pto::bench::test::vs_base;

namespace {

void require_miss(const nlohmann::json& report, std::size_t result, const std::string& reason,
                  const std::string& detail) {
    const auto& vs = vs_base(report, result);
    INFO("result " << result << ": " << vs.dump());
    CHECK(vs["matched"] == false);
    CHECK(vs["reason"] == reason);
    CHECK(vs["detail"] == detail);
    CHECK(vs["raw_ratio"].is_null());
    CHECK(vs["compared_speedup"].is_null());
}

}  // namespace

TEST_CASE("zero, negative, overflowing, string and null base metrics miss with invalid_base_metric",
          "[bench][base_data]") {
    const nlohmann::json report = compared_with("invalid_base_metrics.json");
    const std::string suffix = ", not a finite number > 0";
    require_miss(report, 0, "invalid_base_metric", "orch_ns_per_task is 0" + suffix);
    require_miss(report, 1, "invalid_base_metric", "orch_ns_per_task is -5" + suffix);
    require_miss(report, 2, "invalid_base_metric", "orch_ns_per_task is inf" + suffix);
    require_miss(report, 3, "invalid_base_metric", R"(orch_ns_per_task is "12.5")" + suffix);
    require_miss(report, 4, "invalid_base_metric", "orch_ns_per_task is null" + suffix);
    CHECK(report["base_data"]["misses"]["invalid_base_metric"] == 5);
}

TEST_CASE("boolean, underflowing, object and out-of-range converted base metrics are invalid too",
          "[bench][base_data]") {
    const nlohmann::json report = compared_with("invalid_base_metrics_more.json");
    const std::string suffix = ", not a finite number > 0";
    require_miss(report, 0, "invalid_base_metric", "orch_ns_per_task is true" + suffix);
    require_miss(report, 1, "invalid_base_metric", "orch_ns_per_task is -inf" + suffix);
    require_miss(report, 2, "invalid_base_metric", "orch_ns_per_task is 0.0" + suffix);
    require_miss(report, 3, "invalid_base_metric", R"(orch_ns_per_task is {"median":12.5})" + suffix);
    require_miss(report, 4, "invalid_base_metric", "orch_ms_per_task is 1e+305, out of range in ns");
}

TEST_CASE("a record without the primary metric in any unit misses with no_metric", "[bench][base_data]") {
    const nlohmann::json report = compared_with("no_metric.json");
    require_miss(report, 0, "no_metric",
                 "the record has no orch_ns_per_task, orch_us_per_task or orch_ms_per_task");
    CHECK(vs_base(report, 0)["record_index"] == 0);
}

TEST_CASE("zero, negative, NaN, infinite, string or absent current metrics miss with invalid_current_metric",
          "[bench][base_data]") {
    nlohmann::json report = test::sample_report();
    auto& results = report["results"];
    results[0]["orch_ns_per_task"]["median"] = 0.0;
    results[1]["orch_ns_per_task"]["median"] = std::nan("");
    results[2].erase("orch_ns_per_task");
    results[3]["orch_ns_per_task"]["median"] = "12.5";
    results[4]["orch_ns_per_task"]["median"] = std::numeric_limits<double>::infinity();
    apply_baseline(report, load_baseline(test::fixture("exact.json")));

    const std::string suffix = ", not a finite number > 0";
    require_miss(report, 0, "invalid_current_metric", "orch_ns_per_task.median is 0.0" + suffix);
    require_miss(report, 1, "invalid_current_metric", "orch_ns_per_task.median is nan" + suffix);
    require_miss(report, 2, "invalid_current_metric", "the result has no orch_ns_per_task.median");
    require_miss(report, 3, "invalid_current_metric", R"(orch_ns_per_task.median is "12.5")" + suffix);
    require_miss(report, 4, "invalid_current_metric", "orch_ns_per_task.median is inf" + suffix);
    CHECK(vs_base(report, 0)["base_value"].get<double>() == Approx(82.4));
    CHECK(vs_base(report, 0)["current_value"].is_null());
}

TEST_CASE("a missing simulator section makes makespan comparisons miss with invalid_current_metric",
          "[bench][base_data]") {
    nlohmann::json report = test::sample_report();
    report["results"][0].erase("sim");  // as with --no-sim
    apply_baseline(report, load_baseline(test::fixture("makespan_units.json")));
    require_miss(report, 0, "invalid_current_metric", "the result has no sim.makespan_us");
}

TEST_CASE("baseline values in us or ms are converted to our ns before the ratio", "[bench][base_data]") {
    const nlohmann::json report = compared_with("units.json");
    const auto& us = vs_base(report, 0);
    CHECK(us["base_metric"] == "orch_us_per_task");
    CHECK(us["metric"] == "orch_ns_per_task");
    CHECK(us["unit"] == "ns");
    CHECK(us["base_value"].get<double>() == Approx(82.4));
    CHECK(us["raw_ratio"].get<double>() == Approx(2.0));
    const auto& ms = vs_base(report, 1);
    CHECK(ms["base_metric"] == "orch_ms_per_task");
    CHECK(ms["base_value"].get<double>() == Approx(60.0));
    CHECK(ms["raw_ratio"].get<double>() == Approx(0.5));
    CHECK(vs_base(report, 2)["raw_ratio"].get<double>() == Approx(1.0));
}

TEST_CASE("baseline values in ns or ms are converted to our us for the makespan", "[bench][base_data]") {
    const nlohmann::json report = compared_with("makespan_units.json");
    CHECK(report["base_data"]["unit"] == "us");
    CHECK(vs_base(report, 0)["base_value"].get<double>() == Approx(4201.0));
    CHECK(vs_base(report, 0)["raw_ratio"].get<double>() == Approx(2.0));
    CHECK(vs_base(report, 2)["base_metric"] == "makespan_ms");
    CHECK(vs_base(report, 2)["base_value"].get<double>() == Approx(400.0));
    CHECK(vs_base(report, 2)["raw_ratio"].get<double>() == Approx(0.5));
}

TEST_CASE("a metric given in several units is read in our unit first, then ns, us, ms",
          "[bench][base_data]") {
    const nlohmann::json ns = compared_with("unit_precedence.json");
    CHECK(vs_base(ns, 0)["base_metric"] == "orch_ns_per_task");
    CHECK(vs_base(ns, 0)["base_value"].get<double>() == Approx(82.4));
    CHECK(vs_base(ns, 1)["base_metric"] == "orch_us_per_task");
    CHECK(vs_base(ns, 1)["base_value"].get<double>() == Approx(60.0));

    // makespan is ours in us: makespan_us beats makespan_ns; without it, makespan_ns beats makespan_ms.
    const nlohmann::json us = compared_with("makespan_units.json");
    CHECK(vs_base(us, 0)["base_metric"] == "makespan_ns");
    CHECK(vs_base(us, 1)["base_metric"] == "makespan_us");
    CHECK(vs_base(us, 1)["base_value"].get<double>() == Approx(4600.0));
}

TEST_CASE("the first spelling present decides even when its value is unusable", "[bench][base_data]") {
    const nlohmann::json report = compared_with("unit_precedence.json");
    require_miss(report, 2, "invalid_base_metric", "orch_ns_per_task is 0, not a finite number > 0");
    CHECK(vs_base(report, 2)["base_metric"] == "orch_ns_per_task");
}

TEST_CASE("the primary metric may be named in another unit and is compared in ours", "[bench][base_data]") {
    const nlohmann::json report = compared_with("primary_in_us.json");
    CHECK(report["base_data"]["primary_metric"] == "orch_us_per_task");
    CHECK(report["base_data"]["metric"] == "orch_ns_per_task");
    CHECK(vs_base(report, 0)["base_value"].get<double>() == Approx(82.4));
    CHECK(vs_base(report, 0)["raw_ratio"].get<double>() == Approx(2.0));
}

TEST_CASE("latency ratios are base over current, so above 1 means we are faster", "[bench][base_data]") {
    const nlohmann::json report = compared_with("e2e_latency.json");
    CHECK(report["base_data"]["direction"] == "lower_is_better");
    CHECK(vs_base(report, 0)["base_value"].get<double>() == Approx(300.0));
    CHECK(vs_base(report, 0)["current_value"].get<double>() == Approx(150.0));
    CHECK(vs_base(report, 0)["raw_ratio"].get<double>() == Approx(2.0));
}

TEST_CASE("throughput ratios are current over base, so above 1 means we are faster", "[bench][base_data]") {
    const nlohmann::json report = compared_with("throughput.json");
    CHECK(report["base_data"]["direction"] == "higher_is_better");
    CHECK(report["base_data"]["unit"] == "tasks/s");
    CHECK(vs_base(report, 0)["raw_ratio"].get<double>() == Approx(2.0));  // 6.6e6 now vs 3.3e6 before
    CHECK(vs_base(report, 1)["raw_ratio"].get<double>() == Approx(0.5));  // 2.5e6 now vs 5e6 before
}

TEST_CASE("every metric of the field table is found by each of its unit spellings", "[bench][base_data]") {
    CHECK(find_metric("orch_ns_per_task")->name == "orch_ns_per_task");
    CHECK(find_metric("orch_ms_per_task")->name == "orch_ns_per_task");
    CHECK(find_metric("e2e_us_per_task")->name == "e2e_ns_per_task");
    CHECK(find_metric("makespan_ns")->name == "makespan_us");
    CHECK(find_metric("tasks_per_s")->name == "tasks_per_s");
    CHECK(find_metric("tasks_per_ms") == nullptr);
    CHECK(find_metric("orch_ns") == nullptr);
    CHECK(find_metric("mode") == nullptr);
}
