// pto-bench's cost fit: a line through the tiers of one case and mode recovers the per-task and per-edge
// costs it was generated from, through the medians and through the mins apart; peers, paged attention (no
// tiers) and single-tier modes are not fitted.
#include <catch2/catch.hpp>

#include "cost_fit.h"

using pto::bench::fit_costs;

namespace {

nlohmann::json result(const char* mode, const char* tier, double launches, double edges, double ns,
                      const char* peer = nullptr) {
    nlohmann::json r = {{"case", "qwen3"},   {"mode", mode},   {"tier", tier},
                        {"tasks", launches}, {"edges", edges}, {"orch_ns_per_task", {{"median", ns}}}};
    r["peer"] = peer == nullptr ? nlohmann::json(nullptr) : nlohmann::json(peer);
    return r;
}

}  // namespace

TEST_CASE("the fit recovers per-task and per-edge costs from exact data", "[bench][fit]") {
    // ns per launch = 15 + 5.4 x edges per launch, at the Qwen3 tiers' launch and edge counts.
    const double launches[] = {3096, 1602, 864, 678, 522}, edges[] = {27450, 8130, 2742, 1584, 888};
    nlohmann::json results = nlohmann::json::array();
    for (int i = 0; i < 5; ++i)
        results.push_back(result("manual", "t", launches[i], edges[i], 15.0 + 5.4 * edges[i] / launches[i]));
    results.push_back(result("manual", "t", 3096, 27450, 1e6, "tbb"));  // a peer: ignored
    const auto fits = fit_costs(results);
    REQUIRE(fits.size() == 1);
    CHECK(fits[0].mode == "manual");
    CHECK(fits[0].tiers == 5);
    CHECK(fits[0].median.per_task_ns == Approx(15.0));
    CHECK(fits[0].median.per_edge_ns == Approx(5.4));
    CHECK(fits[0].median.max_residual_ns == Approx(0.0).margin(1e-9));
    CHECK_FALSE(fits[0].min.has_value());  // no tier carried a min
}

TEST_CASE("the mins are fitted apart from the medians", "[bench][fit]") {
    // Medians on a slow level of the machine (2x the mins, plus noise on one tier); mins on the exact line
    // 20 + 0.5 x edges per launch.
    const double launches[] = {3096, 1602, 864, 678, 522}, edges[] = {27450, 8130, 2742, 1584, 888};
    nlohmann::json results = nlohmann::json::array();
    for (int i = 0; i < 5; ++i) {
        const double min = 20.0 + 0.5 * edges[i] / launches[i];
        nlohmann::json r = result("manual", "t", launches[i], edges[i], 2.0 * min + (i == 2 ? 30.0 : 0.0));
        r["orch_ns_per_task"]["min"] = min;
        results.push_back(r);
    }
    const auto fits = fit_costs(results);
    REQUIRE(fits.size() == 1);
    REQUIRE(fits[0].min.has_value());
    CHECK(fits[0].min->per_task_ns == Approx(20.0));
    CHECK(fits[0].min->per_edge_ns == Approx(0.5));
    CHECK(fits[0].min->max_residual_ns == Approx(0.0).margin(1e-9));
    CHECK(fits[0].median.per_task_ns > 40.0);
    CHECK(fits[0].median.max_residual_ns > 10.0);

    const nlohmann::json j = pto::bench::to_json(fits[0]);
    CHECK(j["per_task_ns"].get<double>() == Approx(fits[0].median.per_task_ns));
    CHECK(j["min"]["per_task_ns"].get<double>() == Approx(20.0));
    CHECK(j["min"]["per_edge_ns"].get<double>() == Approx(0.5));

    // One tier without a min: the medians are still fitted, the mins are not.
    results[3]["orch_ns_per_task"].erase("min");
    const auto partial = fit_costs(results);
    REQUIRE(partial.size() == 1);
    CHECK_FALSE(partial[0].min.has_value());
    CHECK_FALSE(pto::bench::to_json(partial[0]).contains("min"));
}

TEST_CASE("modes are fitted apart, and a mode with one tier or no tier is not fitted", "[bench][fit]") {
    nlohmann::json results = nlohmann::json::array();
    results.push_back(result("manual", "a", 100, 100, 20));
    results.push_back(result("manual", "b", 100, 300, 30));
    results.push_back(result("tensormap", "a", 100, 100, 50));  // one tier only
    nlohmann::json pa = result("manual", "x", 1920, 1440, 100);
    pa["case"] = "paged_attention";
    pa["tier"] = nullptr;
    results.push_back(pa);
    const auto fits = fit_costs(results);
    REQUIRE(fits.size() == 1);
    CHECK(fits[0].median.per_task_ns == Approx(15.0));
    CHECK(fits[0].median.per_edge_ns == Approx(5.0));
}
