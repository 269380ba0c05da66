// docs/base-data.md conformance (public API of bench/base_data.h): what the comparison adds to the report and
// table: nothing without --base-data, never a changed measured field, vs_base per result, the base_data
// summary and a "vs Base" column shown only when something matched.
#include "base_data_support.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <string>

using namespace pto::bench;
using pto::bench::test::compared_with;
using pto::bench::test::vs_base;

namespace {

// The report minus what the comparison may add, to compare with the report as measured.
nlohmann::json without_additions(nlohmann::json report) {
    report.erase("base_data");
    for (auto& result : report["results"]) {
        result.erase("vs_base");
    }
    return report;
}

}  // namespace

TEST_CASE("without --base-data the report JSON stays byte-identical and no vs Base column is shown",
          "[bench][base_data]") {
    nlohmann::json report = test::sample_report();
    const std::string before = report.dump(2);
    const std::vector<std::string> warnings = run_base_data(report, BaseDataOptions{});
    CHECK(warnings.empty());
    CHECK(report.dump(2) == before);
    CHECK(report.dump() == test::sample_report().dump());
    CHECK_FALSE(has_vs_base_column(report));
    for (const auto& result : report["results"]) {
        CHECK(format_vs_base_cell(result) == "N/A");
    }
}

TEST_CASE("vendor and platform overrides alone change nothing either", "[bench][base_data]") {
    nlohmann::json report = test::sample_report();
    const std::string before = report.dump();
    BaseDataOptions options;
    options.machine = MachineOverride{"nvidia", "H20"};
    CHECK(run_base_data(report, options).empty());
    CHECK(report.dump() == before);
}

TEST_CASE("comparing adds only vs_base and base_data and never changes a measured field",
          "[bench][base_data]") {
    const std::string fixture_name =
        GENERATE(as<std::string>{}, "exact.json", "no_case.json", "ambiguous.json",
                 "invalid_base_metrics.json", "scaling_reference.json", "truncated.json");
    INFO(fixture_name);
    const nlohmann::json measured = test::sample_report();
    const nlohmann::json report = compared_with(fixture_name);
    CHECK(without_additions(report).dump() == measured.dump());
    CHECK(report.contains("base_data"));
}

TEST_CASE("every vs_base has the same fields whether it matched or not", "[bench][base_data]") {
    const std::set<std::string> expected = {
        "matched", "reason",        "detail",      "base_path",   "record_index",    "record_key",
        "metric",  "unit",          "base_metric", "base_value",  "current_value",   "raw_ratio",
        "factor",  "factor_source", "factor_chip", "factor_note", "compared_speedup"};
    for (const std::string name : {"exact.json", "key_mismatch.json", "ambiguous.json", "no_case.json"}) {
        const nlohmann::json report = compared_with(name);
        for (const auto& result : report["results"]) {
            std::set<std::string> fields;
            for (const auto& item : result["vs_base"].items()) {
                fields.insert(item.key());
            }
            CHECK(fields == expected);
        }
    }
}

TEST_CASE("the vs Base column is shown only when at least one result matched", "[bench][base_data]") {
    CHECK_FALSE(has_vs_base_column(compared_with("no_case.json")));
    CHECK_FALSE(has_vs_base_column(compared_with("invalid_base_metrics.json")));
    CHECK_FALSE(has_vs_base_column(compared_with("empty.json")));
    // ambiguous.json: result 0 is ambiguous, only result 2 matches.
    CHECK(has_vs_base_column(compared_with("ambiguous.json")));
    CHECK(kVsBaseColumnTitle == "vs Base");
}

TEST_CASE("a vs Base cell shows the compared speedup on a match and N/A on a miss", "[bench][base_data]") {
    const nlohmann::json report = compared_with("ambiguous.json");
    CHECK(format_vs_base_cell(report["results"][0]) == "N/A");  // ambiguous
    CHECK(format_vs_base_cell(report["results"][1]) == "N/A");  // no_key_match
    CHECK(format_vs_base_cell(report["results"][2]) == "1.00x");
    const nlohmann::json scaled = compared_with("scaling_reference.json", MachineOverride{"nvidia", "H20"});
    CHECK(format_vs_base_cell(scaled["results"][0]) == "1.00x");  // raw 2.0 / factor 2.0
    CHECK(format_vs_base_cell(compared_with("exact.json")["results"][1]) == "0.50x");
}

TEST_CASE("the base_data summary counts records, matches, misses by reason and the geometric mean",
          "[bench][base_data]") {
    const nlohmann::json exact = compared_with("exact.json");
    const auto& summary = exact["base_data"];
    CHECK(summary["enabled"] == true);
    CHECK(summary["path"] == test::fixture("exact.json"));
    CHECK(summary["records"] == 5);
    CHECK(summary["results"] == 5);
    CHECK(summary["matched"] == 5);
    CHECK(summary["metric"] == "orch_ns_per_task");
    for (const auto& count : summary["misses"]) {
        CHECK(count == 0);
    }
    CHECK(summary["misses"].size() == kMissReasonCount);
    // Raw ratios 2, 0.5, 1, 2, 2: geometric mean 4^(1/5).
    CHECK(summary["geomean_compared_speedup"].get<double>() == Approx(std::pow(4.0, 0.2)));
    CHECK(summary["geomean_raw_ratio"].get<double>() == Approx(std::pow(4.0, 0.2)));

    const nlohmann::json mixed = compared_with("ambiguous.json");
    CHECK(mixed["base_data"]["matched"] == 1);
    CHECK(mixed["base_data"]["misses"]["ambiguous"] == 1);
    CHECK(mixed["base_data"]["misses"]["no_case"] == 0);
    CHECK(mixed["base_data"]["misses"]["no_key_match"] == 3);
    CHECK(mixed["base_data"]["geomean_compared_speedup"].get<double>() == Approx(1.0));

    const nlohmann::json none = compared_with("no_case.json");
    CHECK(none["base_data"]["misses"]["no_case"] == 5);
    CHECK(none["base_data"]["geomean_compared_speedup"].is_null());
}

TEST_CASE("apply_baseline returns the same counts it writes", "[bench][base_data]") {
    nlohmann::json report = test::sample_report();
    const CompareSummary summary = apply_baseline(report, load_baseline(test::fixture("ambiguous.json")));
    CHECK(summary.is_enabled);
    CHECK(summary.result_count == 5);
    CHECK(summary.matched_count == 1);
    CHECK(summary.miss_counts[static_cast<std::size_t>(MissReason::Ambiguous)] == 1);
    CHECK(summary.miss_counts[static_cast<std::size_t>(MissReason::NoKeyMatch)] == 3);
    REQUIRE(summary.geomean_compared_speedup);
    CHECK(*summary.geomean_compared_speedup == Approx(1.0));
    CHECK(to_string(MissReason::InvalidCurrentMetric) == "invalid_current_metric");
}

TEST_CASE("run_base_data with a bad file warns once, keeps measured fields and shows no column",
          "[bench][base_data]") {
    nlohmann::json report = test::sample_report();
    BaseDataOptions options;
    options.base_data_path = test::fixture("duplicate_top_key.json");
    const std::vector<std::string> warnings = run_base_data(report, options);
    REQUIRE(warnings.size() == 1);
    CHECK(without_additions(report).dump() == test::sample_report().dump());
    CHECK_FALSE(has_vs_base_column(report));
    CHECK(report["base_data"]["enabled"] == false);
}

TEST_CASE("a report that is not an object or has no results is handled without throwing",
          "[bench][base_data]") {
    const Baseline baseline = load_baseline(test::fixture("exact.json"));
    nlohmann::json array = nlohmann::json::array();
    CHECK_NOTHROW(apply_baseline(array, baseline));
    CHECK(array == nlohmann::json::array());
    nlohmann::json empty = nlohmann::json::object();
    const CompareSummary summary = apply_baseline(empty, baseline);
    CHECK(summary.result_count == 0);
    CHECK(empty["base_data"]["results"] == 0);
    CHECK_FALSE(has_vs_base_column(empty));
}

TEST_CASE("a Baseline not made by load_baseline compares as disabled", "[bench][base_data]") {
    nlohmann::json report = test::sample_report();
    const Baseline never_loaded;
    CHECK_FALSE(never_loaded.is_enabled());
    CHECK_FALSE(apply_baseline(report, never_loaded).is_enabled);
    CHECK(report["base_data"]["enabled"] == false);
    CHECK(without_additions(report).dump() == test::sample_report().dump());
}

TEST_CASE("the worked example of docs/base-data.md gives the figures the document shows",
          "[bench][base_data]") {
    const nlohmann::json report =
        compared_with("docs_example.json", MachineOverride{"intel", "Intel(R) Xeon(R) Platinum 8481C CPU"});
    const auto& vs = vs_base(report, 0);
    CHECK(vs["base_metric"] == "orch_us_per_task");
    CHECK(vs["base_value"].get<double>() == Approx(125.0));
    CHECK(vs["raw_ratio"].get<double>() == Approx(125.0 / 41.2));
    CHECK(vs["factor"].get<double>() == 1.25);
    CHECK(vs["factor_source"] == "measured");
    CHECK(vs["compared_speedup"].get<double>() == Approx(125.0 / 41.2 / 1.25));
    CHECK(format_vs_base_cell(report["results"][0]) == "2.43x");
    CHECK(vs_base(report, 2)["detail"] == "key.sizes.batch: base 8 vs current 4");
    CHECK(report["base_data"]["matched"] == 1);
    CHECK(report["base_data"]["misses"]["no_key_match"] == 4);
}
