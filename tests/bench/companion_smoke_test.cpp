// The companion benchmarks run end to end: pto-bench-tensormap writes a JSON row per scenario and view
// count, pto-bench-templates measures every body in every mode (it exits 1 itself when a mode builds a
// different number of tasks), and both reject bad options with status 2.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "support/scratch.h"

#ifndef PTO_BENCH_TENSORMAP_EXE
#error "PTO_BENCH_TENSORMAP_EXE must name the pto-bench-tensormap executable"
#endif
#ifndef PTO_BENCH_TEMPLATES_EXE
#error "PTO_BENCH_TEMPLATES_EXE must name the pto-bench-templates executable"
#endif

namespace fs = std::filesystem;
using pto::test::read_text;
using pto::test::run_program;
using pto::test::scratch_dir;

TEST_CASE("pto-bench-tensormap reports every scenario at every view count", "[bench][smoke]") {
    const fs::path dir = scratch_dir("pto-bench-smoke-tensormap");
    const fs::path json = dir / "scaling.json";
    REQUIRE(run_program(PTO_BENCH_TENSORMAP_EXE, "--reps 3 --batch 4 --json " + json.string(),
                        dir / "out.txt") == 0);
    std::ifstream in(json);
    const nlohmann::json report = nlohmann::json::parse(in);
    CHECK(report.at("schema") == "pto-bench-tensormap/1");
    CHECK(report.at("reps") == 3);
    CHECK(report.at("batch") == 4);
    std::set<std::pair<std::string, unsigned>> seen;
    for (const nlohmann::json& row : report.at("results")) {
        const nlohmann::json& ns = row.at("ns_per_op");
        CHECK(ns.at("min").get<double>() > 0.0);
        CHECK(ns.at("min").get<double>() <= ns.at("median").get<double>());
        CHECK(ns.at("median").get<double>() <= ns.at("max").get<double>());
        seen.insert({row.at("scenario").get<std::string>(), row.at("views").get<unsigned>()});
    }
    for (const char* scenario : {"rows", "tiles", "rows-base-scan"})
        for (unsigned views : {1u, 4u, 16u, 64u, 256u, 1024u, 4096u})
            CHECK(seen.count({scenario, views}) == 1);
    CHECK(seen.size() == 21);
}

TEST_CASE("pto-bench-templates measures every body in every mode", "[bench][smoke]") {
    const fs::path dir = scratch_dir("pto-bench-smoke-templates");
    REQUIRE(run_program(PTO_BENCH_TEMPLATES_EXE, "--reps 2 --warmup 0", dir / "out.txt") == 0);
    const std::string text = read_text(dir / "out.txt");
    for (const char* body : {"chain4 ", "diamond10 ", "qwen3_s3 "})
        for (const char* mode : {" manual ", " static-manual ", " tensormap ", " static-tensormap "}) {
            INFO(body << mode);
            const std::size_t line = text.find(std::string(body));
            REQUIRE(line != std::string::npos);
            CHECK(text.find(mode, line) != std::string::npos);
        }
}

TEST_CASE("the companion benchmarks reject bad options with status 2", "[bench][smoke]") {
    const fs::path dir = scratch_dir("pto-bench-smoke-companions");
    CHECK(run_program(PTO_BENCH_TENSORMAP_EXE, "--order diagonal", dir / "out.txt") == 2);
    CHECK(run_program(PTO_BENCH_TENSORMAP_EXE, "--reps 0", dir / "out.txt") == 2);
    CHECK(run_program(PTO_BENCH_TEMPLATES_EXE, "--body nonsense", dir / "out.txt") == 2);
    CHECK(run_program(PTO_BENCH_TEMPLATES_EXE, "--no-such-option", dir / "out.txt") == 2);
}
