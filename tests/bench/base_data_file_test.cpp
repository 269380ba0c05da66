// docs/base-data.md conformance (public API of bench/base_data.h): an unreadable or invalid baseline file
// gives exactly one warning and disables the comparison, without throwing or exiting.
#include "base_data_support.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

using namespace pto::bench;
using pto::bench::test::fixture;

namespace {

// The shared expectation of every invalid-file test: one warning naming the file and the problem, a
// disabled baseline, and a report that receives only the disabled summary.
void require_disabled(const Baseline& baseline, const std::string& expected_fragment) {
    INFO("warnings: " << nlohmann::json(baseline.warnings).dump());
    REQUIRE_FALSE(baseline.is_enabled());
    REQUIRE(baseline.warnings.size() == 1);
    CHECK(baseline.warnings.front().find(expected_fragment) != std::string::npos);
    CHECK(baseline.warnings.front().find("comparison disabled") != std::string::npos);
    CHECK(baseline.records.empty());

    nlohmann::json report = test::sample_report();
    const CompareSummary summary = apply_baseline(report, baseline);
    CHECK_FALSE(summary.is_enabled);
    CHECK_FALSE(has_vs_base_column(report));
    for (const auto& result : report["results"]) {
        CHECK_FALSE(result.contains("vs_base"));
    }
    CHECK(report["base_data"]["enabled"] == false);
    CHECK(report["base_data"]["error"].get<std::string>().find(expected_fragment) != std::string::npos);
}

}  // namespace

TEST_CASE("a missing baseline file gives one warning and disables the comparison", "[bench][base_data]") {
    const std::string path = fixture("does_not_exist.json");
    const Baseline baseline = load_baseline(path);
    require_disabled(baseline, "no such file");
    CHECK(baseline.warnings.front().find(path) != std::string::npos);
}

TEST_CASE("a directory given as the baseline gives one warning and disables the comparison",
          "[bench][base_data]") {
    require_disabled(load_baseline(std::string(PTO_BASE_DATA_FIXTURES)), "directory");
}

TEST_CASE("an empty baseline file gives one warning and disables the comparison", "[bench][base_data]") {
    require_disabled(load_baseline(fixture("empty.json")), "empty");
}

TEST_CASE("a truncated baseline file gives one warning naming the position", "[bench][base_data]") {
    require_disabled(load_baseline(fixture("truncated.json")), "not valid JSON (line ");
}

TEST_CASE("a baseline of another format gives one warning and disables the comparison",
          "[bench][base_data]") {
    require_disabled(load_baseline(fixture("wrong_format.json")), R"(format is "ops-baseline")");
}

TEST_CASE("a baseline of another version gives one warning and disables the comparison",
          "[bench][base_data]") {
    require_disabled(load_baseline(fixture("wrong_version.json")), "version is 2");
}

TEST_CASE("the version must be the integer 1, not 1.0 or \"1\"", "[bench][base_data]") {
    require_disabled(load_baseline(fixture("version_float.json")), "version is 1.0");
    require_disabled(load_baseline(fixture("version_string.json")), R"(version is "1")");
}

TEST_CASE("records that are not an array give one warning and disable the comparison", "[bench][base_data]") {
    require_disabled(load_baseline(fixture("records_not_array.json")), "records is object, not an array");
}

TEST_CASE("a duplicate top-level key gives one warning instead of silently keeping the last value",
          "[bench][base_data]") {
    require_disabled(load_baseline(fixture("duplicate_top_key.json")),
                     R"(duplicate key "version" in the top-level object)");
}

TEST_CASE("a duplicate key deep inside a record gives one warning naming where it is", "[bench][base_data]") {
    require_disabled(load_baseline(fixture("duplicate_nested_key.json")),
                     R"(duplicate key "batch" in records[1].key.sizes)");
}

TEST_CASE("a top level that is not an object gives one warning", "[bench][base_data]") {
    require_disabled(load_baseline(fixture("top_level_array.json")), "not an object");
}

TEST_CASE("a record without a case string gives one warning naming the record", "[bench][base_data]") {
    require_disabled(load_baseline(fixture("record_without_case.json")), "records[1].case must be a string");
}

TEST_CASE("a primary metric pto-bench does not measure gives one warning", "[bench][base_data]") {
    require_disabled(load_baseline(fixture("unknown_primary_metric.json")),
                     R"("latency_ms" is not a pto-bench)");
}

TEST_CASE("malformed text given directly is rejected the same way as a file", "[bench][base_data]") {
    const auto [text, fragment] = GENERATE(table<std::string, std::string>({
        {"{", "not valid JSON"},
        {"   \n ", "empty"},
        {R"({"format": "pto-bench-baseline", "version": 1, "primary_metric": "orch_ns_per_task"})",
         R"(no "records")"},
        {R"({"format": "pto-bench-baseline", "version": 1, "records": []})",
         "primary_metric must be a string"},
        {R"({"format": "pto-bench-baseline", "version": 1, "primary_metric": "orch_ns_per_task",
             "records": [{"case": "qwen3", "key": [], "metrics": {}}]})",
         "records[0].key must be an object"},
        {R"({"format": "pto-bench-baseline", "version": 1, "primary_metric": "orch_ns_per_task",
             "records": []} trailing)",
         "not valid JSON"},
    }));
    INFO(text);
    require_disabled(parse_baseline(text, "inline.json"), fragment);
}

TEST_CASE("a valid baseline loads its records and primary metric without warnings", "[bench][base_data]") {
    const Baseline baseline = load_baseline(fixture("exact.json"));
    REQUIRE(baseline.is_enabled());
    CHECK(baseline.warnings.empty());
    CHECK(baseline.records.size() == 5);
    REQUIRE(baseline.primary_metric != nullptr);
    CHECK(baseline.primary_metric->name == "orch_ns_per_task");
    CHECK(std::filesystem::path(baseline.path).is_absolute());
    CHECK_FALSE(baseline.scaling.is_enabled);
}

TEST_CASE("a number beyond the double range spoils only its own value, not the file", "[bench][base_data]") {
    const Baseline baseline = load_baseline(fixture("invalid_base_metrics.json"));
    REQUIRE(baseline.is_enabled());
    CHECK(baseline.warnings.empty());
    CHECK(baseline.records.size() == 5);
}
