// docs/design/reference-graphs.md, conformance: the compute mode of paged attention. All four schemes (A, B,
// and the static- template schemes C and D) run the real CPU kernels (several groups per sequence, varied
// context lengths) and must match the dense golden, also with random delays before each kernel; a mismatch
// writes both tensors with a readable header.
//
//   QK(g) --> SF(g) --> PV(g) --> UP(g) --> UP(g+1) ... --> out      (one chain per sequence and head tile)
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <string>

#include "pto/examples/paged_attention.h"
#include "support/graph_checks.h"
#include "support/scratch.h"

using namespace pto;
using namespace pto::examples;
using namespace pto::examples::paged_attention;

namespace {

struct ComputeRun {
    GoldenResult golden;
    std::string ordering;
    std::string exactly_once;
};

ComputeRun run_compute(Problem& problem, Scheme scheme, double jitter, std::uint64_t seed) {
    RuntimeConfig cfg;
    cfg.executor = Executor::Compute;
    cfg.record_graph = true;
    cfg.record_subtasks = true;
    cfg.timed_jitter = jitter;
    cfg.seed = seed;
    Runtime rt(cfg);
    register_kernels(rt);
    problem.poison_out();
    pto::run(rt, [&] { build(problem, scheme); });
    ComputeRun r;
    const std::string dir = test::scratch_dir("pto_pa_compute_test").string();
    r.golden = check_golden(problem, "paged_attention_" + std::string(1, letter(scheme)), dir);
    r.ordering = test::check_ordering(rt.graph(), test::spans_from_subtasks(rt.graph(), rt.subtasks()));
    r.exactly_once = test::check_exactly_once_records(rt.graph(), rt.subtasks());
    return r;
}

}  // namespace

TEST_CASE("compute mode matches the dense golden in schemes A, B, C and D",
          "[examples][paged_attention][compute]") {
    const Scheme scheme = GENERATE(from_range(std::begin(kAllSchemes), std::end(kAllSchemes)));
    Problem problem(compute_case(), Memory::Real, 7);
    REQUIRE(problem.shape().group_count() > problem.shape().scope_count());  // several groups per scope
    const ComputeRun r = run_compute(problem, scheme, 0.0, 1);
    INFO("scheme " << letter(scheme) << ": max abs error " << r.golden.max_abs_error << ", tolerance "
                   << r.golden.tolerance << ", first bad " << r.golden.first_bad);
    CHECK(r.golden.ok);
    CHECK(r.ordering.empty());
    CHECK(r.exactly_once.empty());
}

TEST_CASE("with random delays before every kernel all four schemes still match the golden",
          "[examples][paged_attention][compute]") {
    const Scheme scheme = GENERATE(from_range(std::begin(kAllSchemes), std::end(kAllSchemes)));
    const std::uint64_t seed = GENERATE(11u, 12u);
    Problem problem(compute_case(), Memory::Real, seed);
    const ComputeRun r = run_compute(problem, scheme, 0.5, seed);
    INFO("scheme " << letter(scheme) << ", seed " << seed << ": max abs error " << r.golden.max_abs_error);
    CHECK(r.golden.ok);
    CHECK(r.ordering.empty());
}

TEST_CASE("one head tile per KV head and single-group sequences also match",
          "[examples][paged_attention][compute]") {
    Shape s = compute_case();
    s.kv_head_num = 1;  // q_tile 8, one tile per sequence
    s.n_unroll = 64;    // every sequence in one group: no online merge at all
    Problem problem(s, Memory::Real, 3);
    REQUIRE(problem.shape().group_count() == problem.shape().scope_count());
    for (Scheme scheme : kAllSchemes) {
        INFO("scheme " << letter(scheme));
        CHECK(run_compute(problem, scheme, 0.0, 1).golden.ok);
    }
}

TEST_CASE("a golden mismatch writes golden and actual tensors with a readable header",
          "[examples][paged_attention][golden]") {
    const std::filesystem::path dir = test::scratch_dir("pto_pa_mismatch_test");
    std::filesystem::remove_all(dir);
    const std::vector<float> golden = {0.f, 1.f, 2.f, 3.f, 4.f, 5.f};
    std::vector<float> actual = golden;
    actual[4] = 4.5f;
    actual[5] = NAN;
    const std::uint32_t shape[] = {2, 3};
    const GoldenResult r = compare_with_golden("pa/out", actual, golden, shape, 1e-3, dir.string());
    CHECK_FALSE(r.ok);
    CHECK(r.first_bad == 4);
    CHECK(std::isinf(r.max_abs_error));  // NaN counts as an infinite error
    REQUIRE(r.dump_prefix == (dir / "pa_out").string());
    const std::string g = test::read_text(r.dump_prefix + ".golden.txt");
    const std::string a = test::read_text(r.dump_prefix + ".actual.txt");
    CHECK_THAT(g, Catch::Contains("# name: pa/out"));
    CHECK_THAT(g, Catch::Contains("# shape: [2, 3]"));
    CHECK_THAT(g, Catch::Contains("# dtype: f32"));
    CHECK_THAT(g, Catch::Contains("# first_bad_index: 4 [1, 1]"));
    CHECK_THAT(g, Catch::Contains("max_abs_error"));
    CHECK_THAT(g, Catch::Contains("max_rel_error"));
    CHECK_THAT(g, Catch::Contains("[1, 0] 3 4 5"));
    CHECK_THAT(a, Catch::Contains("# tensor: actual"));
    CHECK_THAT(a, Catch::Contains("[1, 0] 3 4.5 nan"));

    const GoldenResult fine = compare_with_golden("pa/ok", golden, golden, shape, 1e-3, dir.string());
    CHECK(fine.ok);
    CHECK(fine.dump_prefix.empty());
    CHECK_FALSE(std::filesystem::exists(dir / "pa_ok.golden.txt"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("a kernel handed BF16 data fails its task instead of computing garbage",
          "[examples][paged_attention][compute]") {
    // Real memory is F32 only; a BF16 scratch tensor (pij) reaches softmax_prepare when the shape says BF16.
    Shape s = compute_case();
    RuntimeConfig cfg;
    cfg.executor = Executor::Compute;
    Runtime rt(cfg);
    register_kernels(rt);
    const RunReport report = pto::run(
        rt,
        [&] {
            PTO2_SCOPE(MANUAL) {
                const ScopeDesc sd = scope_desc(s, 0, 0);
                auto infos = scratch_infos(s, sd.group_count);
                infos[1].dtype = DataType::BF16;
                const TaskHandle alloc = alloc_tensors(infos);
                const ScopeTensors t = scope_tensors(alloc);
                Args a;
                softmax_prepare_args(sd, t, group_desc(s, sd, 0), a);
                submit_aiv(kSoftmaxPrepare, a);
            }
        },
        RunOptions{.throw_on_kernel_failure = false});
    REQUIRE(report.failed == 1);
    CHECK_THAT(report.failures.at(0).message, Catch::Contains("F32"));
}
