// docs/base-data.md conformance (public API of bench/base_data.h): --emit-baseline writes a baseline that
// load_baseline accepts; comparing a report with the baseline emitted from it matches every result at 1.0.
#include "base_data_support.h"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <system_error>
#include <unistd.h>

using namespace pto::bench;
using Catch::Matchers::Contains;
using pto::bench::test::vs_base;

namespace {

// A file path private to this test process, removed when the guard goes out of scope.
class TempFile {
  public:
    explicit TempFile(const std::string& name)
        : path_(std::filesystem::temp_directory_path() /
                ("pto-base-data-" + std::to_string(::getpid()) + "-" + name)) {}
    ~TempFile() {
        std::error_code ignored;
        std::filesystem::remove(path_, ignored);
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    [[nodiscard]] std::string path() const { return path_.string(); }

  private:
    std::filesystem::path path_;
};

}  // namespace

TEST_CASE("an emitted baseline compared with its own report matches every result at ratio 1.0",
          "[bench][base_data]") {
    const nlohmann::json measured = test::sample_report();
    TempFile file("round-trip.json");
    std::vector<std::string> warnings;
    REQUIRE(try_write_baseline(measured, file.path(), EmitOptions{}, warnings));
    CHECK(warnings.empty());

    const Baseline baseline = load_baseline(file.path());
    REQUIRE(baseline.is_enabled());
    CHECK(baseline.warnings.empty());
    CHECK(baseline.records.size() == measured["results"].size());

    nlohmann::json report = measured;
    apply_baseline(report, baseline);
    for (std::size_t i = 0; i < report["results"].size(); ++i) {
        const auto& vs = vs_base(report, i);
        INFO("result " << i << ": " << vs.dump());
        CHECK(vs["matched"] == true);
        CHECK(vs["raw_ratio"].get<double>() == 1.0);
        CHECK(vs["factor"].get<double>() == 1.0);
        CHECK(vs["factor_source"] == "reference");
        CHECK(vs["compared_speedup"].get<double>() == 1.0);
    }
    CHECK(report["base_data"]["matched"] == measured["results"].size());
    CHECK(report["base_data"]["geomean_compared_speedup"].get<double>() == 1.0);
}

TEST_CASE("every metric of an emitted baseline round-trips at ratio 1.0", "[bench][base_data]") {
    const std::string metric =
        GENERATE(as<std::string>{}, "orch_ns_per_task", "e2e_ns_per_task", "tasks_per_s", "makespan_us");
    INFO(metric);
    const nlohmann::json measured = test::sample_report();
    EmitOptions options;
    options.primary_metric = metric;
    const EmittedBaseline emitted = make_baseline(measured, options);
    CHECK(emitted.warnings.empty());
    const Baseline baseline = parse_baseline(emitted.baseline.dump(), "emitted.json");
    REQUIRE(baseline.is_enabled());
    nlohmann::json report = measured;
    apply_baseline(report, baseline);
    for (std::size_t i = 0; i < report["results"].size(); ++i) {
        CHECK(vs_base(report, i)["matched"] == true);
        CHECK(vs_base(report, i)["raw_ratio"].get<double>() == 1.0);
    }
}

TEST_CASE("an emitted baseline names its format, primary metric and this machine as the 1.0 reference",
          "[bench][base_data]") {
    const nlohmann::json measured = test::sample_report();
    const nlohmann::json baseline = make_baseline(measured).baseline;
    CHECK(baseline["format"] == kBaselineFormat);
    CHECK(baseline["version"] == kBaselineVersion);
    CHECK(baseline["primary_metric"] == "orch_ns_per_task");
    CHECK(baseline["_scaling_factors"]["reference"]["vendor"] == "amd");
    CHECK(baseline["_scaling_factors"]["reference"]["platform"] == "AMD EPYC 7B12");
    CHECK(baseline["source"]["machine"] == measured["machine"]);

    const auto& record = baseline["records"][2];
    CHECK(record["case"] == "paged_attention");
    CHECK(record["key"] == nlohmann::json{{"mode", "manual"},
                                          {"tier", nullptr},
                                          {"executor", "instant"},
                                          {"peer", nullptr},
                                          {"sizes", measured["results"][2]["sizes"]}});
    CHECK(record["metrics"] == nlohmann::json{{"orch_ns_per_task", 30.0},
                                              {"e2e_ns_per_task", 100.0},
                                              {"tasks_per_s", 1.0e7},
                                              {"makespan_us", 800.0}});
}

TEST_CASE("emitting with --vendor/--platform makes that machine the reference", "[bench][base_data]") {
    EmitOptions options;
    options.machine = MachineOverride{"nvidia", "NVIDIA H20"};
    const nlohmann::json baseline = make_baseline(test::sample_report(), options).baseline;
    CHECK(baseline["_scaling_factors"]["reference"]["platform"] == "NVIDIA H20");

    // Compared on the report's own machine (amd), the reference entry no longer applies.
    nlohmann::json report = test::sample_report();
    apply_baseline(report, parse_baseline(baseline.dump(), "emitted.json"));
    CHECK(vs_base(report, 0)["matched"] == true);
    CHECK(vs_base(report, 0)["factor"].is_null());
}

TEST_CASE("a result repeating an emitted identity is skipped with a warning", "[bench][base_data]") {
    nlohmann::json measured = test::sample_report();
    measured["results"].push_back(measured["results"][1]);
    measured["results"].back()["orch_ns_per_task"]["median"] = 999.0;
    const EmittedBaseline emitted = make_baseline(measured);
    CHECK(emitted.baseline["records"].size() == 5);
    REQUIRE(emitted.warnings.size() == 1);
    CHECK_THAT(emitted.warnings.front(), Contains("results[5] repeats the identity of results[1]"));
}

TEST_CASE("unusable metrics are left out of an emitted record with a warning for the primary one",
          "[bench][base_data]") {
    nlohmann::json measured = test::sample_report();
    measured["results"][0]["orch_ns_per_task"]["median"] = 0.0;
    measured["results"][0].erase("sim");
    const EmittedBaseline emitted = make_baseline(measured);
    const auto& metrics = emitted.baseline["records"][0]["metrics"];
    CHECK_FALSE(metrics.contains("orch_ns_per_task"));
    CHECK_FALSE(metrics.contains("makespan_us"));
    CHECK(metrics.contains("e2e_ns_per_task"));
    REQUIRE(emitted.warnings.size() == 1);
    CHECK_THAT(emitted.warnings.front(), Contains("results[0] has no usable orch_ns_per_task"));
}

TEST_CASE("a machine without vendor or platform emits no _scaling_factors, with a warning",
          "[bench][base_data]") {
    nlohmann::json measured = test::sample_report();
    measured["machine"].erase("vendor");
    const EmittedBaseline emitted = make_baseline(measured);
    CHECK_FALSE(emitted.baseline.contains("_scaling_factors"));
    REQUIRE(emitted.warnings.size() == 1);
    CHECK_THAT(emitted.warnings.front(), Contains("vendor or platform is unknown"));
    CHECK(parse_baseline(emitted.baseline.dump(), "emitted.json").is_enabled());
}

TEST_CASE("an unknown primary metric for emission falls back to orch_ns_per_task with a warning",
          "[bench][base_data]") {
    EmitOptions options;
    options.primary_metric = "latency_ms";
    const EmittedBaseline emitted = make_baseline(test::sample_report(), options);
    CHECK(emitted.baseline["primary_metric"] == "orch_ns_per_task");
    REQUIRE(emitted.warnings.size() == 1);
    CHECK_THAT(emitted.warnings.front(), Contains("\"latency_ms\" is not a pto-bench metric"));
}

TEST_CASE("an unwritable --emit-baseline path gives a warning and no exception", "[bench][base_data]") {
    std::vector<std::string> warnings;
    const std::string path = test::fixture("no_such_dir/baseline.json");
    CHECK_FALSE(try_write_baseline(test::sample_report(), path, EmitOptions{}, warnings));
    REQUIRE(warnings.size() == 1);
    CHECK_THAT(warnings.front(), Contains("cannot be opened for writing"));
}

TEST_CASE("run_base_data emits from the measured report and then compares with the given baseline",
          "[bench][base_data]") {
    TempFile file("run.json");
    nlohmann::json report = test::sample_report();
    BaseDataOptions options;
    options.emit_baseline_path = file.path();
    options.base_data_path = test::fixture("exact.json");
    CHECK(run_base_data(report, options).empty());
    CHECK(report["base_data"]["matched"] == 5);

    // The emitted file holds no vs_base: it was written before the comparison ran.
    const nlohmann::json emitted = test::read_json(file.path());
    CHECK(emitted["records"].size() == 5);
    CHECK(emitted.dump().find("vs_base") == std::string::npos);
}
