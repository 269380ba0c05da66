// docs/architecture.md (step 5, bundles), conformance: instances whose boundary node names the same long
// list of producers share a bundle, as dynamic consumers do: they fit an edge pool far smaller than their
// boundary edges, run after every producer, exactly once, and every edge is counted.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "pto/scope/orchestration.h"
#include "pto/static_graph/instance.h"
#include "pto/static_graph/template.h"
#include "support/execution_log.h"
#include "support/graph_checks.h"

using namespace pto;

namespace {

constexpr FuncId kLog{0};
constexpr std::uint32_t kProducers = 8;
constexpr std::uint32_t kInstances = 30;

/// fan_in_template: node 0 (the boundary input) -> node 1, each taking the instance's number as a scalar.
Template fan_in_template(ScalarSlot& number) {
    TemplateBuilder b("fan_in", BoundaryMode::Manual);
    number = b.scalar_slot("number");
    b.add_aic(kLog, NodeArgs().scalar(number));
    b.add_aiv(kLog, NodeArgs().scalar(number));
    b.edge(0, 1);
    b.boundary_input(0);
    return b.finalize();
}

/// submit_fan_in: kProducers tasks, then kInstances instances whose node 0 waits for all of them.
void submit_fan_in(Bindings& bindings, ScalarSlot number) {
    PTO2_SCOPE(MANUAL) {
        std::vector<TaskId> producers;
        for (std::uint32_t i = 0; i < kProducers; ++i) {
            Args args;
            args.scalar(i);
            producers.push_back(submit_aiv(kLog, args).task_id());
        }
        for (std::uint32_t i = 0; i < kInstances; ++i) {
            bindings.scalar(number, i).depend(0, producers);
            instantiate(bindings);
        }
    }
}

}  // namespace

TEST_CASE("instances naming one long boundary list share a bundle", "[static_graph][bundle]") {
    const OrchestrationMode mode = GENERATE(OrchestrationMode::Serial, OrchestrationMode::Concurrent);
    // 240 boundary edges; bundled, the first instance's 8 nodes, 8 + 1 for the bundle and one per later
    // instance: 45, in a pool of 64 (serial mode holds them all at once).
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.orchestration = mode;
    c.window_tasks = 128;
    c.edge_capacity = 64;
    c.record_graph = true;
    Runtime rt(c);
    test::ExecutionLog log(1 << 10);
    rt.register_kernel(kLog, KernelInfo{"log", 1.0, &test::ExecutionLog::kernel, &log});
    ScalarSlot number;
    const Template tpl = fan_in_template(number);
    Bindings bindings(tpl);
    const RunReport r = pto::run(rt, [&] { submit_fan_in(bindings, number); });
    CHECK(r.completed == kProducers + 2 * kInstances);
    CHECK(r.orchestrator.edges_linked + r.orchestrator.edges_to_completed == kProducers * kInstances);
    const GraphRecord& g = rt.graph();
    CHECK(test::check_exactly_once_log(g, log.entries()) == "");
    CHECK(test::check_ordering(g, test::spans_from_log(g, log.entries())) == "");
}
