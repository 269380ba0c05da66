// docs/design/reference-graphs.md, conformance: the Qwen3 decode layer computed by the CPU kernels through
// the runtime matches the sequential reference for all four schemes (A, B, and the static-template schemes C
// and D) at every tier, also with random delays before each kernel (RuntimeConfig::timed_jitter), and a
// mismatch is dumped to disk with a readable header.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "pto/examples/qwen3.h"
#include "pto/scope/orchestration.h"
#include "support/graph_checks.h"

using namespace pto::examples;
using namespace pto::examples::qwen3;

namespace {

/// Fixture: one reduced problem and its golden for the whole executable (the reference runs once).
struct Layer {
    Problem problem = Problem::with_memory(Shapes::reduced(), 7);
    Golden golden = reference(problem);
};
Layer& layer() {
    static Layer l;
    return l;
}

/// run_and_check: poisons the layer's outputs, runs one scheme and tier, checks the golden and the
/// recorded execution order.
void run_and_check(double jitter, std::uint64_t seed) {
    const Scheme scheme = GENERATE(from_range(std::begin(kAllSchemes), std::end(kAllSchemes)));
    const SpmdTier tier = GENERATE(from_range(std::begin(kAllTiers), std::end(kAllTiers)));
    INFO("scheme " << letter(scheme) << ", tier " << to_string(tier) << ", jitter " << jitter);
    pto::RuntimeConfig cfg;
    cfg.executor = pto::Executor::Compute;
    cfg.timed_jitter = jitter;
    cfg.seed = seed;
    cfg.record_graph = true;
    cfg.record_subtasks = true;
    pto::Runtime rt(cfg);
    register_kernels(rt);
    Layer& l = layer();
    l.problem.reset();
    DecodeGraph graph(l.problem, tier);
    const pto::RunReport report = pto::run(rt, [&] { graph.submit(scheme); });
    REQUIRE(report.ok());
    CHECK(report.subtasks == 3096);
    CHECK(pto::test::check_exactly_once_records(rt.graph(), rt.subtasks()).empty());
    CHECK(pto::test::check_ordering(rt.graph(), pto::test::spans_from_subtasks(rt.graph(), rt.subtasks()))
              .empty());
    const GoldenReport g = check_golden(
        l.problem, l.golden,
        std::string("test_") + std::string(to_string(scheme)) + "_" + std::string(to_string(tier)));
    INFO(g.summary());
    CHECK(g.ok);
}

}  // namespace

TEST_CASE("schemes A, B, C and D match the reference at every tier on the compute executor",
          "[examples][qwen3][golden]") {
    run_and_check(0.0, 1);
}

TEST_CASE(
    "schemes A, B, C and D still match with a random delay of up to half a kernel duration before each "
    "kernel",
    "[examples][qwen3][golden]") {
    run_and_check(0.5, 12345);
}

TEST_CASE("a layer whose outputs were never computed fails the golden check and is dumped with a header",
          "[examples][qwen3][golden]") {
    Layer& l = layer();
    l.problem.reset();  // outputs are NaN, as if no kernel ran
    const std::filesystem::path root =
        std::filesystem::temp_directory_path() / ("pto_qwen3_golden_" + std::to_string(::getpid()));
    const GoldenReport g = check_golden(l.problem, l.golden, "never run", Tolerance{}, root);
    CHECK_FALSE(g.ok);
    REQUIRE(g.tensors.size() == 3);
    CHECK(g.tensors[0].name == "out");
    CHECK(g.tensors[0].first_bad_index == 0);
    CHECK(g.dump_dir == root / "never_run");
    CHECK_THAT(g.summary(), Catch::Contains("MISMATCH in out"));
    std::ifstream header(g.dump_dir / "out.txt");
    std::stringstream text;
    text << header.rdbuf();
    CHECK_THAT(text.str(), Catch::Contains("name: out"));
    CHECK_THAT(text.str(), Catch::Contains("shape: [90, 640]"));
    CHECK_THAT(text.str(), Catch::Contains("dtype: float32"));
    CHECK_THAT(text.str(), Catch::Contains("first_bad_index: 0 = [0, 0]"));
    CHECK(std::filesystem::file_size(g.dump_dir / "out.golden.bin") == 90 * 640 * sizeof(float));
    CHECK(std::filesystem::file_size(g.dump_dir / "k_cache_new.actual.bin") == 90 * 8 * 16 * sizeof(float));
    std::filesystem::remove_all(root);
}

TEST_CASE(
    "submitting a problem with fake addresses to the compute executor is rejected before any kernel runs",
    "[examples][qwen3][errors]") {
    const Problem problem = Problem::with_fake_addresses(Shapes::reduced());
    pto::RuntimeConfig cfg;
    cfg.executor = pto::Executor::Compute;
    pto::Runtime rt(cfg);
    register_kernels(rt);
    DecodeGraph graph(problem, SpmdTier::AllSpmd);
    try {
        pto::run(rt, [&] { graph.submit(Scheme::Tensormap); });
        FAIL("accepted fake addresses on the compute executor");
    } catch (const pto::Error& e) {
        CHECK(e.code() == pto::ErrorCode::InvalidArgument);
        CHECK_THAT(std::string(e.message()), Catch::Contains("with_memory"));
    }
    CHECK(rt.last_report().submitted == 0);
}
