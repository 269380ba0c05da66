// pto-bench's cost fit: a line through the tiers of one case and mode recovers the per-task and per-edge
// costs it was generated from; peers, paged attention (no tiers) and single-tier modes are not fitted.
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
    CHECK(fits[0].per_task_ns == Approx(15.0));
    CHECK(fits[0].per_edge_ns == Approx(5.4));
    CHECK(fits[0].max_residual_ns == Approx(0.0).margin(1e-9));
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
    CHECK(fits[0].per_task_ns == Approx(15.0));
    CHECK(fits[0].per_edge_ns == Approx(5.0));
}
