// SPEC §8, conformance: pto-bench runs end to end (a short paged-attention sweep and one Qwen3 tier) and
// writes a report whose every field is present, typed and consistent; bad options exit with status 2.
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
    check_summary(r.at("e2e_ns_per_task"));
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
    const nlohmann::json& results = report.at("results");
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
    CHECK(text.find("vs Base") == std::string::npos);  // no baseline, no column
}

TEST_CASE("one Qwen3 tier reports the launch counts of SPEC §6.1", "[bench][smoke]") {
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
    for (const char* bad : {"--case nonsense", "--tier 9", "--reps 0", "--no-such-option",
                            "--base-data base.json --emit-baseline ./base.json"}) {
        INFO(bad);
        CHECK(run_bench(bad, dir / "out.txt") == 2);
        CHECK(pto::test::read_text(dir / "out.txt").find("Usage:") != std::string::npos);
    }
}
