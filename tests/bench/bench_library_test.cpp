// The bench library's registration API (pto/bench/bench.h): what Bench::add refuses, the catalog it builds
// from registered workloads (tiers, schemes, default sweep), and a whole Bench::run of a small tiered
// workload whose JSON report carries the workload's own counts and the tier each run received.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog.h"
#include "pto/bench/bench.h"
#include "pto/runtime/error.h"
#include "pto/scope/orchestration.h"
#include "support/scratch.h"

namespace {

using pto::bench::Bench;
using pto::bench::Scheme;
using pto::bench::Tier;
using pto::bench::WorkloadSpec;

constexpr pto::FuncId kStep{0};

/// Fan: per run, target_width(tier) (or 3 untiered) independent tasks joined by one; counts the tiers seen.
class Fan final : public pto::bench::Workload {
  public:
    explicit Fan(std::map<std::string, int>* tiers_seen) : tiers_seen_(tiers_seen) {}

    void register_kernels(pto::Runtime& rt) override { rt.register_kernel(kStep, {"step", 1.0, nullptr}); }

    void orchestrate(Scheme, std::optional<Tier> tier) override {
        const std::uint32_t width = tier ? std::min<std::uint32_t>(pto::bench::target_width(*tier), 16) : 3;
        if (tiers_seen_) ++(*tiers_seen_)[tier ? std::string(pto::bench::to_string(*tier)) : "none"];
        PTO2_SCOPE(MANUAL) {
            std::vector<pto::TaskId> producers;
            for (std::uint32_t i = 0; i < width; ++i)
                producers.push_back(pto::submit_aiv(kStep, pto::Args()).task_id());
            pto::submit_aiv(kStep, pto::Args().set_dependencies(producers));
        }
    }

    pto::bench::Sizes sizes() const override { return {{"fan", 1}}; }

  private:
    std::map<std::string, int>* tiers_seen_;
};

/// Calls: the tier of every orchestrate call, in order ('4' for spmd-4, '8' for spmd-8).
class Calls final : public pto::bench::Workload {
  public:
    explicit Calls(std::string* calls) : calls_(calls) {}
    void register_kernels(pto::Runtime& rt) override { rt.register_kernel(kStep, {"step", 1.0, nullptr}); }
    void orchestrate(Scheme, std::optional<Tier> tier) override {
        calls_->push_back(tier == Tier::Spmd4 ? '4' : '8');
        pto::submit_aiv(kStep, pto::Args());
    }

  private:
    std::string* calls_;
};

WorkloadSpec fan_spec(std::string name, std::map<std::string, int>* tiers_seen = nullptr) {
    return {.name = std::move(name),
            .description = "a fan of independent tasks joined by one",
            .schemes = {Scheme::Manual},
            .make = [tiers_seen](pto::Executor) { return std::make_unique<Fan>(tiers_seen); }};
}

/// refused: whether Bench::add throws pto::Error{InvalidArgument} for `spec` after a workload named "fan".
bool refused(WorkloadSpec spec) {
    Bench bench;
    bench.add(fan_spec("fan"));
    try {
        bench.add(std::move(spec));
    } catch (const pto::Error& e) {
        return e.code() == pto::ErrorCode::InvalidArgument;
    }
    return false;
}

int run(const Bench& bench, std::vector<std::string> args) {
    args.insert(args.begin(), "test-bench");
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    return bench.run(static_cast<int>(argv.size()), argv.data());
}

}  // namespace

TEST_CASE("Bench::add refuses a workload the command line could not name or run", "[bench][library]") {
    CHECK_FALSE(refused(fan_spec("other")));
    CHECK(refused(fan_spec("")));
    CHECK(refused(fan_spec("fan")));  // repeated
    CHECK(refused(fan_spec("all")));
    CHECK(refused(fan_spec("a,b")));
    CHECK(refused(fan_spec("a/b")));
    WorkloadSpec no_scheme = fan_spec("x");
    no_scheme.schemes.clear();
    CHECK(refused(no_scheme));
    WorkloadSpec twice = fan_spec("x");
    twice.schemes = {Scheme::Manual, Scheme::Manual};
    CHECK(refused(twice));
    WorkloadSpec no_make = fan_spec("x");
    no_make.make = nullptr;
    CHECK(refused(no_make));
}

TEST_CASE("the catalog runs tiered workloads tier by tier and keeps others out of the default sweep",
          "[bench][library]") {
    WorkloadSpec tiered = fan_spec("tiered");
    tiered.tiered = true;
    tiered.schemes = {Scheme::Manual, Scheme::Tensormap};
    WorkloadSpec extra = fan_spec("extra");
    extra.in_default_sweep = false;
    const std::vector<WorkloadSpec> workloads = {tiered, extra};
    const std::vector<pto::bench::Scenario> all = pto::bench::catalog(workloads);
    REQUIRE(all.size() == 5 * 2 + 1);
    CHECK(all[0].id == "tiered/manual/non-spmd");
    CHECK(all[1].id == "tiered/tensormap/non-spmd");
    CHECK(all[9].id == "tiered/tensormap/all-spmd");
    CHECK(all[10].id == "extra/manual");
    CHECK(all[2].measures ==
          "a fan of independent tasks joined by one at spmd-2 (2-wide SPMD target): dynamic submission with "
          "explicit edges (PTO2_SCOPE(MANUAL))");

    CHECK(pto::bench::select(all, {}).size() == 10);  // the default sweep leaves "extra" out
    const auto only_extra = pto::bench::select(all, {.cases = {"extra"}});
    REQUIRE(only_extra.size() == 1);
    CHECK(only_extra[0].workload->name == "extra");
    CHECK(pto::bench::select(all, {.cases = {"tiered"}, .tiers = {Tier::Spmd4}}).size() == 2);
}

TEST_CASE("Bench::run measures a registered workload and reports it in the JSON", "[bench][library]") {
    const std::filesystem::path dir = pto::test::scratch_dir("bench_library_test");
    const std::string json_path = (dir / "report.json").string();
    std::map<std::string, int> tiers_seen;
    Bench bench("test-bench");
    WorkloadSpec spec = fan_spec("fan", &tiers_seen);
    spec.tiered = true;
    bench.add(std::move(spec));

    REQUIRE(run(bench, {"--tier", "spmd-4,spmd-8", "--reps", "2", "--warmup", "0", "--peers", "--json",
                        json_path}) == 0);
    CHECK(tiers_seen.size() == 2);
    CHECK(tiers_seen["spmd-4"] > 0);
    CHECK(tiers_seen["spmd-8"] > 0);

    std::ifstream in(json_path);
    const nlohmann::json report = nlohmann::json::parse(in);
    const nlohmann::json& results = report.at("results");
    REQUIRE(results.size() == 2 * 3);  // two tiers, ours and two peers each
    for (const nlohmann::json& r : results) {
        CAPTURE(r.dump());
        CHECK(r.at("case") == "fan");
        CHECK(r.at("mode") == "manual");
        CHECK(r.at("sizes") == nlohmann::json{{"fan", 1}});
        const std::uint32_t width = r.at("tier") == "spmd-4" ? 4 : 8;
        CHECK(r.at("tasks") == width + 1);
        CHECK(r.at("edges") == width);
        if (r.at("peer").is_null()) CHECK(r.contains("sim"));
    }

    CHECK(run(bench, {"--case", "nonsense", "--json", json_path}) == 2);
    std::filesystem::remove_all(dir);
}

TEST_CASE("with --peers every system gets exactly the measured repetitions asked for, in rounds of blocks",
          "[bench][library]") {
    const std::filesystem::path dir = pto::test::scratch_dir("bench_library_peer_rounds_test");
    const std::string json_path = (dir / "report.json").string();
    Bench bench("test-bench");
    bench.add(fan_spec("fan", nullptr));

    // 7 repetitions do not split evenly over the rounds: blocks of 2, 2, 1, 1, 1.
    REQUIRE(run(bench, {"--reps", "7", "--warmup", "1", "--peers", "--no-sim", "--json", json_path}) == 0);
    std::ifstream in(json_path);
    const nlohmann::json results = nlohmann::json::parse(in).at("results");
    REQUIRE(results.size() == 3);
    for (const nlohmann::json& r : results) {
        CAPTURE(r.dump());
        CHECK(r.at("e2e_ns_per_task").at("samples") == 7);
        if (r.at("peer").is_null()) continue;
        // Only measured repetitions count: flow_graph runs each graph twice (build + run, then a replay).
        const std::uint64_t runs_per_rep = r.at("peer") == "tbb_flow_graph" ? 2 : 1;
        CHECK(r.at("checksum").get<std::uint64_t>() == 7 * runs_per_rep * r.at("tasks").get<std::uint64_t>());
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("a sweep measures in rounds: one block of every scenario per round, each after its own warm-up",
          "[bench][library]") {
    const std::filesystem::path dir = pto::test::scratch_dir("bench_library_rounds_test");
    const std::string json_path = (dir / "report.json").string();
    std::string calls;
    Bench bench("test-bench");
    bench.add({.name = "calls",
               .description = "one task",
               .schemes = {Scheme::Manual},
               .tiered = true,
               .make = [&calls](pto::Executor) { return std::make_unique<Calls>(&calls); }});

    // 5 repetitions over 2 rounds: blocks of 3 and 2, each after one warm-up run (2 spread over 2 rounds).
    REQUIRE(run(bench, {"--tier", "spmd-4,spmd-8", "--reps", "5", "--rounds", "2", "--warmup", "2",
                        "--no-sim", "--json", json_path}) == 0);
    // The probes; then round 1 (a warm-up and 3 reps of each scenario) and round 2 (a warm-up and 2 reps),
    // first of the serial runs, then of the end-to-end runs.
    const std::string rounds = std::string("4444") + "8888" + "444" + "888";
    CHECK(calls == "48" + rounds + rounds);

    std::ifstream in(json_path);
    const nlohmann::json report = nlohmann::json::parse(in);
    CHECK(report.at("run").at("rounds") == 2);
    for (const nlohmann::json& r : report.at("results")) {
        CAPTURE(r.dump());
        CHECK(r.at("orch_ns_per_task").at("samples") == 5);
        CHECK(r.at("e2e_ns_per_task").at("samples") == 5);
    }

    // With --peers the end-to-end rounds are the same, each of our blocks followed by the peers' (which
    // replay the recorded graph and call no orchestrate).
    calls.clear();
    REQUIRE(run(bench, {"--tier", "spmd-4,spmd-8", "--reps", "5", "--rounds", "2", "--warmup", "2",
                        "--no-sim", "--peers", "--json", json_path}) == 0);
    CHECK(calls == "48" + rounds + rounds);
    std::ifstream with_peers(json_path);
    const nlohmann::json peers_report = nlohmann::json::parse(with_peers);
    for (const nlohmann::json& r : peers_report.at("results")) {
        CAPTURE(r.dump());
        CHECK(r.at("e2e_ns_per_task").at("samples") == 5);
    }

    // More rounds than repetitions: one repetition per round.
    calls.clear();
    REQUIRE(run(bench, {"--tier", "spmd-4", "--reps", "2", "--rounds", "5", "--warmup", "0", "--no-sim",
                        "--json", json_path}) == 0);
    CHECK(calls == "44444");  // the probe, then two serial rounds and two end-to-end rounds of one run
    std::filesystem::remove_all(dir);
}
