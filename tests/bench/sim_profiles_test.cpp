// The model's calibration: the fit recovers costs the model itself generated measurements from, the shipped
// profiles reproduce every device figure they were fitted to within 10 %, the built-in profiles are the
// checked-in fit outputs, and pto-bench's model options resolve (or name the bad value).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "builtin_workloads.h"
#include "fit.h"
#include "pto/runtime/error.h"
#include "pto/runtime/simulate.h"
#include "runtime/sim_test_graph.h"
#include "sim_options.h"

using namespace pto;
using namespace pto::bench;
using pto::test::GraphBuilder;

namespace {

const std::string kProfiles = PTO_SIM_PROFILES_DIR;

nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path);
    REQUIRE(in);
    nlohmann::json j;
    in >> j;
    return j;
}

}  // namespace

TEST_CASE("the fit recovers the costs that generated synthetic measurements", "[fit]") {
    // A chain pays completion + dispatch + start latency per link; a burst of short tasks on one
    // scheduler thread is bound by dispatch + completion per block, and hides the latency when it has
    // pending slots. Together they separate the two free costs.
    GraphBuilder chain;
    const FuncId mm = chain.kernel("mm", 10.0);
    TaskId prev = chain.task(CoreType::AIC, mm);
    for (int i = 1; i < 20; ++i)
        prev = chain.task(CoreType::AIC, mm, 1, {prev});
    GraphBuilder burst;
    const FuncId vec = burst.kernel("vec", 20.0);
    for (int i = 0; i < 96; ++i)
        burst.task(CoreType::AIV, vec);

    CostModel truth = without_aicpu_costs(CostModel{});
    truth.submit_us = 0.1;
    truth.dispatch_us = 2.0;
    truth.completion_us = 2.0;
    truth.start_latency_us = 5.0;

    FitProblem problem;
    SimConfig machine;
    machine.machine.cluster_count = 4;
    machine.machine.scheduler_threads = 1;
    machine.record_trace = false;
    SimConfig no_pending = machine;
    no_pending.use_pending_slots = false;
    problem.cases = {FitCase{&chain.graph(), no_pending}, FitCase{&burst.graph(), machine},
                     FitCase{&burst.graph(), no_pending}};
    const char* ids[3] = {"chain", "burst pending", "burst basic"};
    for (std::size_t i = 0; i < 3; ++i) {
        SimConfig c = problem.cases[i].config;
        c.cost = truth;
        problem.targets.push_back(FitTarget{ids[i], i, std::nullopt, span_us(*problem.cases[i].graph, c)});
    }
    // A ratio target works the same way.
    problem.targets.push_back(
        FitTarget{"burst basic / pending", 2, 1, problem.targets[2].measured / problem.targets[1].measured});
    problem.base = truth;
    problem.base.dispatch_us = problem.base.start_latency_us = 0.0;
    problem.free = {FitParameter{"dispatch_us", 0.1, 50.0}, FitParameter{"start_latency_us", 0.1, 50.0}};
    problem.tied = {FitTie{"completion_us", "dispatch_us"}};

    const FitResult r = fit_costs(problem);
    CAPTURE(r.cost.dispatch_us, r.cost.start_latency_us, r.objective, r.evaluations);
    // Tolerance: 2 % (the model rounds costs to the nanosecond, so the objective is flat within ~1 ns).
    CHECK(r.cost.dispatch_us == Approx(2.0).epsilon(0.02));
    CHECK(r.cost.completion_us == r.cost.dispatch_us);
    CHECK(r.cost.start_latency_us == Approx(5.0).epsilon(0.02));
    for (std::size_t i = 0; i < problem.targets.size(); ++i)
        CHECK(r.predicted[i] == Approx(problem.targets[i].measured).epsilon(0.005));

    // Deterministic: the same problem gives the same answer.
    const FitResult again = fit_costs(problem);
    CHECK(again.cost.dispatch_us == r.cost.dispatch_us);
    CHECK(again.evaluations == r.evaluations);

    problem.free[0].lo = 0.0;
    CHECK_THROWS_AS(fit_costs(problem), Error);
}

TEST_CASE("each shipped profile reproduces every device figure it was fitted to within 10 %",
          "[fit][profiles]") {
    for (const char* name : {"proxy-a2a3", "simpler-a2a3"}) {
        CAPTURE(name);
        const SimProfile* builtin = sim_profile(name);
        REQUIRE(builtin != nullptr);
        // The built-in costs are the checked-in fit output.
        const nlohmann::json profile = read_json(kProfiles + "/" + name + ".profile.json");
        CHECK(profile.at("name") == name);
        for (const CostParameter& p : cost_parameters()) {
            CAPTURE(p.name);
            CHECK(builtin->cost.*p.field ==
                  Approx(profile.at("costs").at(p.name).get<double>()).epsilon(1e-12));
        }
        const std::vector<pto::bench::WorkloadSpec> workloads = pto::bench::builtin_workloads();
        const nlohmann::json rows = evaluate_measurements(
            pto::bench::catalog(workloads), kProfiles + "/" + name + ".measured.json", builtin->cost);
        REQUIRE(rows.size() == profile.at("residuals").size());
        for (const nlohmann::json& row : rows) {
            CAPTURE(row.dump());
            CHECK(std::abs(row.at("error_pct").get<double>()) <= 10.0);
        }
    }
}

TEST_CASE("dropping alloc tasks renumbers the graph and keeps the kernel edges", "[fit]") {
    GraphBuilder g(100);
    const FuncId k = g.kernel("k", 1.0);
    const TaskId scratch = g.alloc();
    const TaskId a = g.task(CoreType::AIC, k);
    g.task(CoreType::AIV, k, 1, {a, scratch});
    const GraphRecord out = without_alloc_tasks(g.graph());
    REQUIRE(out.tasks.size() == 2);
    CHECK(out.tasks[0].id == TaskId{100});
    CHECK(out.tasks[1].id == TaskId{101});
    REQUIRE(out.tasks[1].producer_count == 1);
    CHECK(out.producers_of(out.tasks[1])[0] == TaskId{100});
    CHECK(count_graph(out).framework_tasks == 0);
}

TEST_CASE("the model's command-line settings resolve profiles, overrides and pending slots",
          "[sim-options]") {
    const SimSettings d = resolve_sim_settings("", {}, "");
    CHECK(d.profile == "proxy-a2a3");
    CHECK(d.use_pending_slots);
    CHECK(d.cost.dispatch_us == CostModel{}.dispatch_us);

    const SimSettings s = resolve_sim_settings("simpler-a2a3", {"dispatch_us=3.5", "poll_us=0.25"}, "off");
    CHECK(s.cost.dispatch_us == 3.5);
    CHECK(s.cost.poll_us == 0.25);
    CHECK(s.cost.fanout_edge_us == sim_profile("simpler-a2a3")->cost.fanout_edge_us);
    CHECK_FALSE(s.use_pending_slots);
    CHECK(s.overridden == std::vector<std::string>{"dispatch_us", "poll_us"});

    // Every cost parameter can be overridden by name.
    for (const CostParameter& p : cost_parameters()) {
        const SimSettings one = resolve_sim_settings("", {std::string(p.name) + "=0.125"}, "on");
        CHECK(one.cost.*p.field == 0.125);
    }

    const SimSettings host = resolve_sim_settings("host:simpler-a2a3", {"host_frequency_scale=2"}, "");
    CHECK(host.host);
    CHECK(host.host_frequency_scale == 2.0);
    GraphBuilder g;
    const FuncId k = g.kernel("k", 1.0);
    g.alloc();
    g.task(CoreType::AIC, k);
    g.task(CoreType::AIC, k);
    // 300 ns per kernel task measured, 2 kernel tasks over 3 submits, x2 scale: 0.4 us per submit.
    const SimConfig c = sim_config_for(host, g.graph(), OrchestratorStats{}, 300.0);
    CHECK(c.cost.submit_us == Approx(0.4));
    CHECK(c.cost.submit_edge_us == 0.0);
    CHECK(c.cost.tensormap_lookup_us == 0.0);
    CHECK(c.cost.dispatch_us == sim_profile("simpler-a2a3")->cost.dispatch_us);

    const SimSettings file = resolve_sim_settings(kProfiles + "/simpler-a2a3.profile.json", {}, "");
    CHECK(file.cost.fanout_edge_us == sim_profile("simpler-a2a3")->cost.fanout_edge_us);

    for (const auto& [profile, cost, pending] :
         std::vector<std::tuple<std::string, std::string, std::string>>{{"no-such-profile", "", ""},
                                                                        {"host:no-such-profile", "", ""},
                                                                        {"", "dispatch_us", ""},
                                                                        {"", "dispatch_us=fast", ""},
                                                                        {"", "dispatch_us=-1", ""},
                                                                        {"", "dispatch_us=1e999", ""},
                                                                        {"", "mode_multiplier=2", ""},
                                                                        {"", "host_frequency_scale=0", ""},
                                                                        {"", "", "maybe"}}) {
        CAPTURE(profile, cost, pending);
        std::vector<std::string> costs;
        if (!cost.empty()) costs.push_back(cost);
        CHECK_THROWS_AS(resolve_sim_settings(profile, costs, pending), Error);
    }
}
