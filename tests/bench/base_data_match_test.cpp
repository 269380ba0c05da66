// docs/base-data.md conformance (public API of bench/base_data.h): matching a result to a baseline record:
// exact case, then deep type-strict key equality; misses no_case, no_key_match and ambiguous.
#include "base_data_support.h"

#include <catch2/catch.hpp>

#include <string>

using namespace pto::bench;
using Catch::Matchers::Contains;
using pto::bench::test::compared_with;
using pto::bench::test::vs_base;

namespace {

// Result 2 of the sample report is paged_attention/manual, whose sizes carry an int, a bool and an array.
constexpr std::size_t kPagedManual = 2;

void require_no_key_match(const nlohmann::json& report, std::size_t result, const std::string& detail) {
    const auto& vs = vs_base(report, result);
    CHECK(vs["matched"] == false);
    CHECK(vs["reason"] == "no_key_match");
    CHECK(vs["detail"] == detail);
}

}  // namespace

TEST_CASE("a record with the same case and an equal key matches", "[bench][base_data]") {
    const nlohmann::json report = compared_with("exact.json");
    for (std::size_t i = 0; i < 5; ++i) {
        const auto& vs = vs_base(report, i);
        INFO("result " << i << ": " << vs.dump());
        CHECK(vs["matched"] == true);
        CHECK(vs["reason"].is_null());
        CHECK(vs["record_index"] == i);
        CHECK(vs["record_key"]["sizes"] == report["results"][i]["sizes"]);
    }
    CHECK(vs_base(report, 0)["raw_ratio"].get<double>() == Approx(2.0));
    CHECK(vs_base(report, 0)["base_path"] == test::fixture("exact.json"));
}

TEST_CASE("a result whose case no record has misses with no_case", "[bench][base_data]") {
    const nlohmann::json report = compared_with("no_case.json");
    for (std::size_t i = 0; i < 5; ++i) {
        CHECK(vs_base(report, i)["reason"] == "no_case");
        CHECK(vs_base(report, i)["record_index"].is_null());
    }
    CHECK_THAT(vs_base(report, 0)["detail"].get<std::string>(), Contains(R"(no record of case "qwen3")"));
}

TEST_CASE("a key mismatch names the first differing path of the closest record", "[bench][base_data]") {
    const nlohmann::json report = compared_with("key_mismatch.json");
    // Record 0 differs in mode, tier and two sizes; record 1 only in sizes.batch, so it is the one named.
    require_no_key_match(report, 0, "key.sizes.batch: base 96 vs current 90");
    CHECK(vs_base(report, 0)["record_index"] == 1);
    CHECK(vs_base(report, 0)["record_key"]["sizes"]["batch"] == 96);
    // The tensormap result is equally far from both (3 differences each): the earlier record is named,
    // and the identity fields are reported in table order, mode first.
    require_no_key_match(report, 1, R"(key.tier: base "spmd-2" vs current "spmd-4")");
    CHECK(vs_base(report, 1)["record_index"] == 0);
}

TEST_CASE("a key number 4.0 does not match a result's integer 4", "[bench][base_data]") {
    require_no_key_match(compared_with("key_float_vs_int.json"), kPagedManual,
                         "key.sizes.batch: base 4.0 vs current 4");
}

TEST_CASE("a key integer 1 does not match a result's true", "[bench][base_data]") {
    require_no_key_match(compared_with("key_bool_vs_int.json"), kPagedManual,
                         "key.sizes.causal: base 1 vs current true");
}

TEST_CASE("a key string \"2\" does not match a result's integer 2", "[bench][base_data]") {
    require_no_key_match(compared_with("key_string_vs_int.json"), kPagedManual,
                         R"(key.sizes.kv_split: base "2" vs current 2)");
}

TEST_CASE("a key lacking a field does not match a result whose field is null", "[bench][base_data]") {
    require_no_key_match(compared_with("key_missing_vs_null.json"), kPagedManual,
                         "key.tier: base missing vs current null");
}

TEST_CASE("a key with a field the result lacks does not match", "[bench][base_data]") {
    require_no_key_match(compared_with("key_extra_field.json"), kPagedManual,
                         R"(key.dtype: base "fp16" vs current missing)");
}

TEST_CASE("the order of keys in the file does not matter", "[bench][base_data]") {
    const nlohmann::json report = compared_with("key_order.json");
    CHECK(vs_base(report, kPagedManual)["matched"] == true);
    CHECK(vs_base(report, kPagedManual)["raw_ratio"].get<double>() == Approx(2.0));
}

TEST_CASE("the order of array elements matters", "[bench][base_data]") {
    require_no_key_match(compared_with("key_array_order.json"), kPagedManual,
                         "key.sizes.context_lens[0]: base 1024 vs current 512");
}

TEST_CASE("integers of a report built in code match integers read from a file", "[bench][base_data]") {
    // nlohmann stores parsed non-negative integers as unsigned and integers built in C++ as signed; both
    // are the JSON integer 90 and must match.
    nlohmann::json report = {{"schema", "pto-bench/1"},
                             {"machine", {{"vendor", "amd"}, {"platform", "AMD EPYC 7B12"}}},
                             {"results",
                              {{{"case", "qwen3"},
                                {"mode", "manual"},
                                {"tier", "non-spmd"},
                                {"executor", "instant"},
                                {"peer", nullptr},
                                {"sizes", {{"batch", 90}, {"hidden", 5120}, {"tiles", 6}}},
                                {"orch_ns_per_task", {{"median", 41.2}, {"min", 40.0}, {"max", 50.0}}}}}}};
    REQUIRE(report["results"][0]["sizes"]["batch"].is_number_integer());
    REQUIRE_FALSE(report["results"][0]["sizes"]["batch"].is_number_unsigned());
    apply_baseline(report, load_baseline(test::fixture("exact.json")));
    CHECK(vs_base(report, 0)["matched"] == true);

    nlohmann::json negative = report;
    negative["results"][0]["sizes"]["batch"] = -90;
    apply_baseline(negative, load_baseline(test::fixture("exact.json")));
    CHECK(vs_base(negative, 0)["detail"] == "key.sizes.batch: base 90 vs current -90");
}

TEST_CASE("two records with an equal key are ambiguous even when one has a bad metric",
          "[bench][base_data]") {
    const nlohmann::json report = compared_with("ambiguous.json");
    const auto& vs = vs_base(report, 0);
    CHECK(vs["matched"] == false);
    CHECK(vs["reason"] == "ambiguous");
    CHECK(vs["detail"] == "records 0, 1 all match this result");
    CHECK(vs["base_value"].is_null());
    CHECK(vs_base(report, kPagedManual)["matched"] == true);
}
