// Conformance: the reference graphs check clean under the dependency checker. Every scheme of Qwen3 (all
// five tiers) and of paged attention (Case1 and the varied compute shape) declares or discovers every
// hazard its kernels' views imply, and declares no kernel edge that orders no hazard.
#include <catch2/catch.hpp>

#include "pto/examples/paged_attention.h"
#include "pto/examples/qwen3.h"
#include "pto/scope/orchestration.h"

using namespace pto::examples;

namespace {

pto::RuntimeConfig checked_serial() {
    pto::RuntimeConfig cfg;
    cfg.check_dependencies = pto::DependencyCheck::Error;  // a missing edge throws at its submit
    cfg.orchestration = pto::OrchestrationMode::Serial;
    cfg.window_tasks = 1u << 13;
    cfg.edge_capacity = 1u << 16;
    return cfg;
}

}  // namespace

TEST_CASE("every Qwen3 scheme checks clean at every tier", "[examples][qwen3][checker]") {
    const qwen3::Problem problem = qwen3::Problem::with_fake_addresses();
    pto::Runtime rt(checked_serial());
    qwen3::register_kernels(rt);
    pto::Orchestrator orchestrator(rt);
    for (SpmdTier tier :
         {SpmdTier::NonSpmd, SpmdTier::Spmd2, SpmdTier::Spmd4, SpmdTier::Spmd8, SpmdTier::AllSpmd}) {
        qwen3::DecodeGraph graph(problem, tier);
        for (Scheme scheme : kAllSchemes) {
            INFO("tier " << to_string(tier) << ", scheme " << letter(scheme));
            const pto::RunReport report = orchestrator.run([&] { graph.submit(scheme); });
            CHECK(report.missing_dependencies == 0);
            CHECK(report.unexplained_edges == 0);
            CHECK(report.ok());
        }
    }
}

TEST_CASE("every paged-attention scheme checks clean", "[examples][paged_attention][checker]") {
    for (const paged_attention::Shape& shape : {paged_attention::case1(), paged_attention::compute_case()}) {
        pto::RuntimeConfig cfg = checked_serial();
        paged_attention::fit_whole_graph(cfg, shape);
        pto::Runtime rt(cfg);
        paged_attention::register_kernels(rt);
        const paged_attention::Problem problem(shape, paged_attention::Memory::Virtual);
        for (Scheme scheme : kAllSchemes) {
            INFO("scheme " << letter(scheme));
            const pto::RunReport report = pto::run(rt, [&] { paged_attention::build(problem, scheme); });
            CHECK(report.missing_dependencies == 0);
            CHECK(report.unexplained_edges == 0);
            CHECK(report.ok());
        }
    }
}
