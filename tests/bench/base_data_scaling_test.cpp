// docs/base-data.md conformance (public API of bench/base_data.h and bench/scaling_factors.h): choosing the
// `_scaling_factors` entry by vendor, word-bounded platform and bottleneck; compared_speedup = raw / factor.
#include "base_data_support.h"

#include "scaling_factors.h"

#include <catch2/catch.hpp>

#include <optional>
#include <string>

using namespace pto::bench;
using Catch::Matchers::Contains;
using pto::bench::test::compared_with;
using pto::bench::test::vs_base;

namespace {

MachineOverride machine(std::string vendor, std::string platform) {
    return MachineOverride{std::move(vendor), std::move(platform)};
}

// Result 0 has raw_ratio 2.0 in every scaling fixture (82.4 ns in the baseline, 41.2 ns measured).
void require_factor(const nlohmann::json& report, std::optional<double> factor, std::size_t result = 0) {
    const auto& vs = vs_base(report, result);
    INFO(vs.dump());
    REQUIRE(vs["matched"] == true);
    const double raw = vs["raw_ratio"].get<double>();
    if (factor) {
        CHECK(vs["factor"].get<double>() == Approx(*factor));
        CHECK(vs["compared_speedup"].get<double>() == Approx(raw / *factor));
    } else {
        CHECK(vs["factor"].is_null());
        CHECK(vs["factor_source"].is_null());
        CHECK(vs["compared_speedup"].get<double>() == raw);
    }
}

}  // namespace

TEST_CASE("on the reference platform the factor is 1.0 and the speedup equals the raw ratio",
          "[bench][base_data]") {
    const nlohmann::json report = compared_with("scaling_reference.json");
    require_factor(report, 1.0);
    CHECK(vs_base(report, 0)["factor_source"] == "reference");
    CHECK(vs_base(report, 0)["factor_chip"] == "AMD EPYC 7B12");
    CHECK(vs_base(report, 0)["compared_speedup"].get<double>() ==
          vs_base(report, 0)["raw_ratio"].get<double>());
    CHECK(report["base_data"]["scaling"]["enabled"] == true);
    CHECK(report["base_data"]["scaling"]["factors_applied"] == 1);

    const nlohmann::json listed = compared_with("scaling_reference_listed.json");
    require_factor(listed, 1.0);
    CHECK(vs_base(listed, 0)["factor_source"] == "measured");
}

TEST_CASE("another platform of the table divides the raw ratio by its factor", "[bench][base_data]") {
    const nlohmann::json report = compared_with("scaling_reference.json", machine("nvidia", "NVIDIA H20"));
    require_factor(report, 2.0);
    CHECK(vs_base(report, 0)["compared_speedup"].get<double>() == Approx(1.0));
    CHECK(vs_base(report, 0)["factor_source"] == "measured");
    CHECK(report["base_data"]["scaling"]["platform"] == "NVIDIA H20");
}

TEST_CASE("platform names match case-insensitively on word boundaries only", "[bench][base_data]") {
    CHECK(platform_match_length("H20", "NVIDIA H20") == 3);
    CHECK(platform_match_length("H20", "H20-3e") == 3);
    CHECK(platform_match_length("h20", "nvidia H20 141GB") == 3);
    CHECK(platform_match_length("H20", "H200") == 0);
    CHECK(platform_match_length("H20", "GH20") == 0);
    CHECK(platform_match_length("H20", "NVIDIA H200, then H20") == 3);
    CHECK(platform_match_length("EPYC 7B12", "AMD EPYC 7B12") == 9);
    CHECK(platform_match_length("", "H20") == 0);

    const auto [platform, factor] = GENERATE(table<std::string, std::optional<double>>({
        {"NVIDIA H20", 2.0},
        {"nvidia h20", 2.0},
        {"H20", 2.0},
        {"NVIDIA H200", 4.0},
        {"NVIDIA H20-3e", 2.5},
        {"NVIDIA H2000", std::nullopt},
        {"NVIDIA H20X", std::nullopt},
    }));
    INFO(platform);
    require_factor(compared_with("scaling_platforms.json", machine("NVIDIA", platform)), factor);
}

TEST_CASE("the longest matching platform name wins", "[bench][base_data]") {
    const nlohmann::json report = compared_with("scaling_platforms.json", machine("nvidia", "NVIDIA H20-3e"));
    require_factor(report, 2.5);
    CHECK(vs_base(report, 0)["factor_chip"] == "H20-3e");
}

TEST_CASE("platform names matching equally long give no factor", "[bench][base_data]") {
    const nlohmann::json report = compared_with("scaling_tie.json");
    require_factor(report, std::nullopt);
    CHECK_THAT(vs_base(report, 0)["factor_note"].get<std::string>(), Contains("tie"));
    CHECK(report["base_data"]["scaling"]["factors_applied"] == 0);
}

TEST_CASE("a single entry for another platform is never used as a fallback", "[bench][base_data]") {
    const nlohmann::json report = compared_with("scaling_single_entry.json", machine("nvidia", "NVIDIA H20"));
    require_factor(report, std::nullopt);
    CHECK_THAT(vs_base(report, 0)["factor_note"].get<std::string>(), Contains("no _scaling_factors entry"));
}

TEST_CASE("vendor names match across case, hyphens and underscores", "[bench][base_data]") {
    const std::string vendor = GENERATE(as<std::string>{}, "t-head", "thead", "T_Head", "T-HEAD", "THead");
    INFO(vendor);
    require_factor(compared_with("scaling_vendor_alias.json", machine(vendor, "XuanTie TH1520")), 0.5);
    CHECK(normalize_token(vendor) == "thead");
}

TEST_CASE("an entry of another vendor is not used even when the platform matches", "[bench][base_data]") {
    require_factor(compared_with("scaling_vendor_alias.json", machine("sophgo", "TH1520")), std::nullopt);
    require_factor(compared_with("scaling_reference.json", machine("intel", "AMD EPYC 7B12")), std::nullopt);
}

TEST_CASE("an unknown machine vendor or platform gives no factor", "[bench][base_data]") {
    require_factor(compared_with("scaling_reference.json", machine("", "AMD EPYC 7B12")), std::nullopt);
    nlohmann::json report = test::sample_report();
    report["machine"].erase("platform");
    apply_baseline(report, load_baseline(test::fixture("scaling_reference.json")));
    require_factor(report, std::nullopt);
    CHECK(report["base_data"]["scaling"]["platform"].is_null());
}

TEST_CASE("measured is preferred over nominal and bad factors fall back or give none", "[bench][base_data]") {
    const auto [platform, factor, source] = GENERATE(table<std::string, std::optional<double>, std::string>({
        {"P1", 2.0, "measured"},   // both usable
        {"P2", 3.0, "nominal"},    // measured 0
        {"P3", std::nullopt, ""},  // measured a string, nominal negative
        {"P4", 4.0, "nominal"},    // measured 1e400
        {"P5", 5.0, "nominal"},    // nominal only
        {"P6", 6.0, "nominal"},    // measured null
        {"P7", std::nullopt, ""},  // no factor at all
    }));
    INFO(platform);
    const nlohmann::json report = compared_with("scaling_fallback.json", machine("ACME", "acme " + platform));
    require_factor(report, factor);
    if (factor) CHECK(vs_base(report, 0)["factor_source"] == source);
    if (platform == "P2") {
        CHECK_THAT(vs_base(report, 0)["factor_note"].get<std::string>(), Contains("measured 0"));
    }
    if (platform == "P3") {
        CHECK_THAT(vs_base(report, 0)["factor_note"].get<std::string>(), Contains("no usable"));
    }
}

TEST_CASE("a record's bottleneck picks the entry for that bottleneck, else the generic one",
          "[bench][base_data]") {
    const nlohmann::json report = compared_with("scaling_bottleneck.json", machine("nvidia", "NVIDIA H20"));
    require_factor(report, 4.0, 0);  // "orchestration"
    require_factor(report, 5.0, 1);  // "Scheduling" matches "scheduling"; nominal only
    require_factor(report, 2.0, 2);  // no bottleneck: generic entry
    require_factor(report, 2.0, 3);  // "memory": no specific entry, generic one
}

TEST_CASE("a malformed _scaling_factors gives one warning and disables only scaling", "[bench][base_data]") {
    const Baseline baseline = load_baseline(test::fixture("scaling_malformed.json"));
    REQUIRE(baseline.is_enabled());
    REQUIRE(baseline.warnings.size() == 1);
    CHECK_THAT(baseline.warnings.front(), Contains("malformed _scaling_factors: chips must be an array"));
    CHECK_THAT(baseline.warnings.front(), Contains("comparing without scaling"));

    nlohmann::json report = test::sample_report();
    apply_baseline(report, baseline);
    require_factor(report, std::nullopt);
    CHECK(report["base_data"]["scaling"]["enabled"] == false);
    CHECK_THAT(report["base_data"]["scaling"]["reason"].get<std::string>(), Contains("malformed"));
}

TEST_CASE("each structural fault of _scaling_factors is reported as malformed", "[bench][base_data]") {
    const auto [scaling, fault] = GENERATE(table<std::string, std::string>({
        {"null", "must be an object"},
        {"[]", "must be an object"},
        {R"({"chips": [1]})", "chips[0] must be an object"},
        {R"({"chips": [{"platform": "H20", "measured": 2}]})", "chips[0].vendor must be a non-empty string"},
        {R"({"chips": [{"vendor": "nvidia", "platform": "", "measured": 2}]})", "chips[0].platform must be"},
        {R"({"chips": [{"vendor": "nvidia", "platform": 20}]})", "chips[0].platform must be"},
        {R"({"chips": [{"vendor": "nvidia", "platform": "H20", "bottleneck": 3}]})", "chips[0].bottleneck"},
        {R"({"reference": "amd"})", "reference must be an object"},
        {R"({"reference": {"vendor": "amd"}})", "reference.platform must be"},
    }));
    INFO(scaling);
    const std::string text =
        R"({"format": "pto-bench-baseline", "version": 1, "primary_metric": "tasks_per_s",
        "records": [], "_scaling_factors": )" +
        scaling + "}";
    const Baseline baseline = parse_baseline(text, "inline.json");
    REQUIRE(baseline.is_enabled());
    REQUIRE(baseline.warnings.size() == 1);
    CHECK_THAT(baseline.warnings.front(), Contains(fault));
    CHECK_FALSE(baseline.scaling.is_enabled);
}

TEST_CASE("a baseline without _scaling_factors compares unscaled without a warning", "[bench][base_data]") {
    const Baseline baseline = load_baseline(test::fixture("exact.json"));
    CHECK(baseline.warnings.empty());
    nlohmann::json report = test::sample_report();
    apply_baseline(report, baseline);
    require_factor(report, std::nullopt);
    CHECK(report["base_data"]["scaling"]["enabled"] == false);
    CHECK(report["base_data"]["scaling"]["reason"] == "the baseline has no _scaling_factors");
}

TEST_CASE("the machine override replaces the report's vendor and platform", "[bench][base_data]") {
    const nlohmann::json report = compared_with("scaling_reference.json", machine("nvidia", "H20"));
    require_factor(report, 2.0);
    CHECK(report["base_data"]["scaling"]["vendor"] == "nvidia");
    CHECK(report["machine"]["vendor"] == "amd");  // the measured machine description is untouched
}
