// docs/bench.md, conformance: pto-bench runs end to end (a short paged-attention sweep and one Qwen3 tier)
// and writes a report whose every field is present, typed and consistent; bad options exit with status 2.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/scratch.h"

#ifndef PTO_BENCH_EXE
#error "PTO_BENCH_EXE must name the pto-bench executable"
#endif

namespace {

namespace fs = std::filesystem;

/// run_bench: runs pto-bench with `arguments`, its output to `out`; returns the exit status.
int run_bench(const std::string& arguments, const fs::path& out) {
    return pto::test::run_program(PTO_BENCH_EXE, arguments, out);
}

nlohmann::json load(const fs::path& path) {
    std::ifstream in(path);
    REQUIRE(in.good());
    return nlohmann::json::parse(in);
}

void check_summary(const nlohmann::json& s) {
    REQUIRE(s.is_object());
    CHECK(s.at("median").is_number());
    CHECK(s.at("min").get<double>() <= s.at("median").get<double>());
    CHECK(s.at("median").get<double>() <= s.at("max").get<double>());
    CHECK(s.at("min").get<double>() > 0.0);
}

void check_result(const nlohmann::json& r) {
    for (const char* key : {"case", "mode", "executor"})
        CHECK(r.at(key).is_string());
    CHECK(r.contains("tier"));
    CHECK(r.at("peer").is_null());
    CHECK(r.at("sizes").is_object());
    for (const char* key : {"tasks", "framework_tasks", "subtasks", "edges", "framework_edges", "reps"})
        CHECK(r.at(key).is_number_unsigned());
    check_summary(r.at("orch_ns_per_task"));
    // Each serial round is pinned to one CPU, and the result says which (null only where pinning failed),
    // and which one CPU they all ran on (null when they did not share one).
    const nlohmann::json& cpus = r.at("orch_pinned_cpus");
    REQUIRE(cpus.is_array());
    REQUIRE_FALSE(cpus.empty());
    bool one_cpu = true;
    for (const nlohmann::json& cpu : cpus) {
        CHECK((cpu.is_null() || cpu.get<int>() >= 0));
        one_cpu = one_cpu && cpu == cpus.at(0);
    }
    CHECK(r.at("orch_pinned_cpu") == (one_cpu ? cpus.at(0) : nlohmann::json()));
    // The same serial runs time the schedulers running what was submitted, one figure per measured run.
    check_summary(r.at("sched_ns_per_task"));
    CHECK(r.at("sched_ns_per_task").at("samples") == r.at("reps"));
    check_summary(r.at("e2e_ns_per_task"));
    // The concurrent runs' orchestration, one figure per measured run; each run's orchestration ends before
    // the run does, so every order statistic is at most end to end's.
    check_summary(r.at("e2e_orch_ns_per_task"));
    CHECK(r.at("e2e_orch_ns_per_task").at("samples") == r.at("e2e_ns_per_task").at("samples"));
    for (const char* stat : {"min", "median", "max"})
        CHECK(r.at("e2e_orch_ns_per_task").at(stat).get<double>() <=
              r.at("e2e_ns_per_task").at(stat).get<double>());
    CHECK(r.at("tasks_per_s").get<double>() > 0.0);
    const nlohmann::json& sim = r.at("sim");
    CHECK(sim.at("makespan_us").get<double>() >= sim.at("lower_bound_us").get<double>());
    CHECK(sim.at("lower_bound_us").get<double>() > 0.0);
    for (const char* engine : {"aic", "aiv", "mix", "all", "has"}) {
        const double pct = sim.at("overhead_pct").at(engine).get<double>();
        CHECK(pct >= 0.0);
        CHECK(pct <= 100.0);
    }
    CHECK(sim.at("orch_busy_us").get<double>() > 0.0);
    CHECK(sim.at("sched_busy_us").get<double>() > 0.0);
}

}  // namespace

TEST_CASE("a short paged-attention sweep writes a complete pto-bench/1 report", "[bench][smoke]") {
    const fs::path dir = pto::test::scratch_dir("pto-bench-smoke-pa");
    const fs::path json = dir / "results.json";
    REQUIRE(run_bench("--reps 3 --warmup 1 --case paged_attention --json " + json.string(),
                      dir / "stdout.txt") == 0);
    const nlohmann::json report = load(json);
    CHECK(report.at("schema") == "pto-bench/1");
    for (const char* key : {"cpu", "vendor", "platform", "compiler", "flags", "git_sha", "date"})
        CHECK(report.at("machine").at(key).is_string());
    CHECK(report.at("machine").at("cores").get<int>() >= 1);
    // Measured before and after the sweep; null only when the bench may use a single CPU.
    const nlohmann::json& handoff = report.at("machine").at("core_to_core_ns");
    if (!handoff.is_null()) {
        CHECK(handoff.at("before").get<double>() > 0.0);
        CHECK(handoff.at("after").get<double>() > 0.0);
        CHECK(handoff.at("cpus").size() == 2);
    }
    const nlohmann::json& sharing = report.at("machine").at("cpu_sharing");
    if (!sharing.is_null()) {
        CHECK(sharing.at("before").get<double>() > 0.0);
        CHECK(sharing.at("after").get<double>() > 0.0);
        if (!handoff.is_null()) CHECK(sharing.at("cpus") == handoff.at("cpus"));
    }
    const nlohmann::json& results = report.at("results");
    // One entry per serial round: the CPU it ran on, one of the two probed, and both CPUs' speeds then.
    const nlohmann::json& serial_cpus = report.at("machine").at("serial_cpus");
    if (!serial_cpus.is_null()) {
        if (!handoff.is_null()) CHECK(serial_cpus.at("cpus") == handoff.at("cpus"));
        REQUIRE(serial_cpus.at("rounds").size() == report.at("run").at("rounds").get<std::size_t>());
        for (std::size_t i = 0; i < serial_cpus.at("rounds").size(); ++i) {
            const nlohmann::json& round = serial_cpus.at("rounds").at(i);
            CHECK((round.at("cpu") == serial_cpus.at("cpus").at(0) ||
                   round.at("cpu") == serial_cpus.at("cpus").at(1)));
            REQUIRE(round.at("ns_per_step").size() == 2);
            for (const nlohmann::json& ns : round.at("ns_per_step"))
                CHECK(ns.get<double>() > 0.0);
            for (const nlohmann::json& r : results)
                CHECK(r.at("orch_pinned_cpus").at(i) == round.at("cpu"));  // every scenario's round i
        }
    }
    REQUIRE(results.size() >= 2);  // manual and tensormap at least
    for (const nlohmann::json& r : results) {
        check_result(r);
        CHECK(r.at("case") == "paged_attention");
        CHECK(r.at("tier").is_null());
        CHECK(r.at("tasks") == 1920);
        CHECK(r.at("subtasks") == 1920);
        CHECK(r.at("reps") == 3);
    }
    CHECK(results.at(0).at("mode") == "manual");
    CHECK(results.at(0).at("edges") == 1440);
    const std::string text = pto::test::read_text(dir / "stdout.txt");
    CHECK(text.find("orch ns/task") != std::string::npos);
    CHECK(text.find("sched ns/task") != std::string::npos);
    CHECK(text.find("vs Base") == std::string::npos);  // no baseline, no column
}

TEST_CASE("one Qwen3 tier reports the launch counts of docs/design/reference-graphs.md", "[bench][smoke]") {
    const fs::path dir = pto::test::scratch_dir("pto-bench-smoke-qwen3");
    const fs::path json = dir / "results.json";
    REQUIRE(run_bench("--reps 3 --warmup 1 --case qwen3 --spmd-4 --mode A,B --json " + json.string(),
                      dir / "stdout.txt") == 0);
    const nlohmann::json results = load(json).at("results");
    REQUIRE(results.size() == 2);
    for (const nlohmann::json& r : results) {
        check_result(r);
        CHECK(r.at("tier") == "spmd-4");
        CHECK(r.at("tasks") == 864);
        CHECK(r.at("subtasks") == 3096);
        CHECK(r.at("edges") == 2742);
    }
}

TEST_CASE("bad options print the usage and exit with status 2", "[bench][smoke]") {
    const fs::path dir = pto::test::scratch_dir("pto-bench-smoke-usage");
    for (const char* bad : {"--case nonsense", "--tier 9", "--reps 0", "--rounds 0", "--no-such-option",
                            "--base-data base.json --emit-baseline ./base.json"}) {
        INFO(bad);
        CHECK(run_bench(bad, dir / "out.txt") == 2);
        CHECK(pto::test::read_text(dir / "out.txt").find("Usage:") != std::string::npos);
    }
}

TEST_CASE("an output path that cannot be written stops the run before measuring, with status 2",
          "[bench][smoke][outputs]") {
    const fs::path dir = pto::test::scratch_dir("pto-bench-smoke-paths");
    for (const char* option :
         {"--json", "--trace", "--sim-trace", "--dot", "--dot-summary", "--plot", "--report"}) {
        INFO(option);
        const std::string bad = "/nonexistent-pto-bench-dir/out.file";
        const std::string json =
            option == std::string("--json") ? "" : " --json " + (dir / "r.json").string();
        CHECK(run_bench("--case paged_attention --reps 1 --warmup 0" + json + " " + option + " " + bad,
                        dir / "out.txt") == 2);
        const std::string text = pto::test::read_text(dir / "out.txt");
        CHECK(text.find(std::string("cannot write ") + option + " " + bad) != std::string::npos);
        CHECK(text.find("does not exist") != std::string::npos);
        CHECK(text.find("orch ns/task") == std::string::npos);  // nothing was measured
        CHECK_FALSE(fs::exists(dir / "r.json"));
    }
}

TEST_CASE("a refused export leaves the JSON written and announced, and exits with status 1",
          "[bench][smoke][outputs]") {
    const fs::path dir = pto::test::scratch_dir("pto-bench-smoke-keep");
    const fs::path json = dir / "r.json";
    // Qwen3 non-spmd has 3096 tasks, more than --dot draws.
    CHECK(run_bench("--case qwen3 --non-spmd --mode manual --reps 1 --warmup 0 --no-sim --json " +
                        json.string() + " --dot " + (dir / "g.dot").string() + " --dot-summary " +
                        (dir / "k.dot").string(),
                    dir / "out.txt") == 1);
    const std::string text = pto::test::read_text(dir / "out.txt");
    CHECK(text.find("--dot-summary for the kernel-level graph") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "g.dot"));
    CHECK(text.find("wrote " + (dir / "k.dot").string()) != std::string::npos);
    CHECK(text.find("wrote " + json.string() + " (report)") != std::string::npos);
    CHECK(load(json).at("results").size() == 1);
}

TEST_CASE("pto-bench --profile, --report and --plot add the phase profile and announce every file",
          "[bench][smoke]") {
    const fs::path dir = pto::test::scratch_dir("pto-bench-smoke-profile");
    const fs::path json = dir / "r.json";
    REQUIRE(run_bench("--case paged_attention --mode manual --reps 3 --warmup 1 --profile --json " +
                          json.string() + " --report " + (dir / "r.html").string() + " --plot " +
                          (dir / "r.svg").string(),
                      dir / "out.txt") == 0);
    const nlohmann::json report = load(json);
    CHECK(report.at("run").at("reps") == 3);
    CHECK(report.at("run").at("warmup") == 1);
    CHECK(report.at("run").at("rounds") == 3);  // the default 20, at most one per repetition
    CHECK(report.at("run").at("command_line").at(1) == "--case");
    const nlohmann::json& r = report.at("results").at(0);
    for (const char* key : {"min", "p10", "median", "p90", "max"})
        CHECK(r.at("orch_ns_per_task").contains(key));
    const nlohmann::json& profile = r.at("profile");
    for (const char* phase :
         {"arg_copy", "ring_alloc", "dep_lookup", "insert", "fanin", "scope_end", "other"})
        CHECK(profile.at("orchestrator_ns_per_task").at(phase).at("median").is_number());
    CHECK(profile.at("orchestrator_ns_per_task").at("arg_copy").at("median").get<double>() > 0.0);
    CHECK(profile.at("schedulers").at("loops_per_task").get<double>() > 0.0);
    const double awake_pct = profile.at("schedulers").at("awake_at_start_pct").get<double>();
    CHECK(awake_pct >= 0.0);
    CHECK(awake_pct <= 100.0);
    const double orchestrator_pct = profile.at("schedulers").at("orchestrator_loop_pct").get<double>();
    CHECK(orchestrator_pct >= 0.0);
    CHECK(orchestrator_pct <= 100.0);
    const std::string text = pto::test::read_text(dir / "out.txt");
    CHECK(text.find("orchestrator phases") != std::string::npos);
    CHECK(text.find("awake%") != std::string::npos);
    CHECK(text.find("orch%") != std::string::npos);
    CHECK(text.find("bound us") != std::string::npos);
    for (const char* file : {"r.json", "r.html", "r.svg"})
        CHECK(text.find("wrote " + (dir / file).string()) != std::string::npos);
    CHECK(pto::test::read_text(dir / "r.html").find("data-chart='paged_attention'") != std::string::npos);
}
