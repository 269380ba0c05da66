// pto-bench's model options end to end: the JSON records the profile and every cost the model used, and a
// bad model option is a usage error (exit 2).
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/scratch.h"

namespace {

const std::filesystem::path kDir = pto::test::scratch_dir("sim_options_smoke");

int run(const std::string& args) {
    return pto::test::run_program(PTO_BENCH_EXE, args, kDir / "output.txt");
}

}  // namespace

TEST_CASE("pto-bench records the model's profile and costs, and rejects bad model options with exit 2",
          "[bench][sim-options]") {
    const std::string json = (kDir / "sim_options.json").string();
    REQUIRE(run("--case paged_attention --mode manual --reps 1 --warmup 0 --sim-profile simpler-a2a3 "
                "--sim-cost dispatch_us=2.5 --pending-slots off --json " +
                json) == 0);
    std::ifstream in(json);
    nlohmann::json report;
    in >> report;
    const nlohmann::json& sim = report.at("results").at(0).at("sim");
    CHECK(sim.at("profile") == "simpler-a2a3");
    CHECK(sim.at("pending_slots") == false);
    CHECK(sim.at("costs").at("dispatch_us") == 2.5);
    CHECK(sim.at("costs").size() == 11);
    CHECK(sim.at("device_orch_cost_us").get<double>() > 0.0);
    CHECK(sim.at("device_orch_cost_ns_per_launch").get<double>() ==
          Approx(1000.0 * sim.at("device_orch_cost_us").get<double>() / 1920.0));
    CHECK(sim.at("capacity_overhead_pct").contains("aic"));
    CHECK(sim.at("head_tail").back().at("kernel") == "all");

    for (const char* bad :
         {"--sim-profile nowhere.json", "--sim-cost dispatch_us", "--sim-cost dispatch_us=-2",
          "--sim-cost unknown_us=1", "--pending-slots sometimes", "--fit-out x.json"}) {
        CAPTURE(bad);
        CHECK(run(std::string("--case paged_attention --mode manual --reps 1 ") + bad) == 2);
        CHECK_THAT(pto::test::read_text(kDir / "output.txt"), Catch::Contains("Usage"));
    }
}
