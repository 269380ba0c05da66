// docs/design/static-graph.md ("One list for several nodes"), conformance: Bindings::depend with a list of
// nodes gives each of them the producers, exactly as one depend per node does: the same recorded edges,
// joined with a node's own producers, merged with a second list given to it, checked by the runtime (a bad
// producer is still refused), consumed by instantiate and dropped by clear(); and the instances run after
// every producer, exactly once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "pto/scope/orchestration.h"
#include "pto/static_graph/instance.h"
#include "pto/static_graph/template.h"
#include "support/catch_printers.h"
#include "support/execution_log.h"
#include "support/expect_error.h"
#include "support/graph_checks.h"

using namespace pto;

namespace {

constexpr FuncId kLog{0};
constexpr std::uint32_t kBoundary = 4;  // nodes 0..3 take producers from outside; node 4 joins them
constexpr std::uint32_t kInstances = 12;
const std::uint32_t kAllBoundary[kBoundary] = {0, 1, 2, 3};

/// fan_template: boundary nodes 0..3, each followed by node 4; every node takes the instance's number.
Template fan_template(ScalarSlot& number) {
    TemplateBuilder b("fan", BoundaryMode::Manual);
    number = b.scalar_slot("number");
    for (std::uint32_t k = 0; k < kBoundary; ++k) {
        b.add_aiv(kLog, NodeArgs().scalar(number));
        b.boundary_input(k);
    }
    b.add_aic(kLog, NodeArgs().scalar(number));
    for (std::uint32_t k = 0; k < kBoundary; ++k)
        b.edge(k, kBoundary);
    return b.finalize();
}

RuntimeConfig recording(Executor executor, OrchestrationMode mode) {
    RuntimeConfig c;
    c.executor = executor;
    c.orchestration = mode;
    c.window_tasks = 256;
    c.record_graph = true;
    return c;
}

std::vector<TaskId> submit_producers(std::uint32_t n) {
    std::vector<TaskId> ids;
    for (std::uint32_t i = 0; i < n; ++i)
        ids.push_back(submit_aiv(kLog, Args().scalar(1000 + i)).task_id());
    return ids;
}

/// producers_of: the recorded producers of task `id`, sorted.
std::vector<TaskId> producers_of(const GraphRecord& g, TaskId id) {
    const std::int64_t i = g.index_of(id);
    REQUIRE(i >= 0);
    const std::span<const TaskId> p = g.producers_of(g.tasks[static_cast<std::size_t>(i)]);
    std::vector<TaskId> sorted(p.begin(), p.end());
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

std::vector<TaskId> sorted_union(std::vector<TaskId> a, const std::vector<TaskId>& b) {
    a.insert(a.end(), b.begin(), b.end());
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    return a;
}

/// InstantFan: the fan template, its bindings and a recording serial runtime on the instant executor.
struct InstantFan {
    ScalarSlot number;
    Template tpl = fan_template(number);
    Runtime rt{recording(Executor::Instant, OrchestrationMode::Serial)};
    Bindings b{tpl};

    InstantFan() { rt.register_kernel(kLog, KernelInfo{"log", 1.0}); }
};

}  // namespace

TEST_CASE("one list for several boundary nodes links each of them as one depend per node does",
          "[static_graph][shared_list]") {
    const OrchestrationMode mode = GENERATE(OrchestrationMode::Serial, OrchestrationMode::Concurrent);
    const std::uint32_t producers = GENERATE(2u, 9u);  // below and above the linker's remembered length
    ScalarSlot number;
    const Template tpl = fan_template(number);
    std::vector<std::vector<TaskId>> edges[2];
    for (const bool shared : {false, true}) {
        Runtime rt(recording(Executor::Compute, mode));
        test::ExecutionLog log(1 << 10);
        rt.register_kernel(kLog, KernelInfo{"log", 1.0, &test::ExecutionLog::kernel, &log});
        Bindings b(tpl);
        std::vector<TaskId> bases;
        const RunReport r = pto::run(rt, [&] {
            PTO2_SCOPE(MANUAL) {
                const std::vector<TaskId> ids = submit_producers(producers);
                for (std::uint32_t i = 0; i < kInstances; ++i) {
                    b.scalar(number, i);
                    if (shared) {
                        b.depend(kAllBoundary, ids);
                    } else {
                        for (const std::uint32_t k : kAllBoundary)
                            b.depend(k, ids);
                    }
                    bases.push_back(instantiate(b).base());
                }
            }
        });
        CHECK(r.completed == producers + kInstances * (kBoundary + 1));
        CHECK(r.orchestrator.edges_linked + r.orchestrator.edges_to_completed ==
              std::uint64_t{producers} * kBoundary * kInstances);
        const GraphRecord& g = rt.graph();
        for (const TaskId base : bases)
            for (std::uint32_t k = 0; k < kBoundary; ++k)
                edges[shared].push_back(producers_of(g, base.plus(k)));
        CHECK(test::check_exactly_once_log(g, log.entries()) == "");
        CHECK(test::check_ordering(g, test::spans_from_log(g, log.entries())) == "");
    }
    REQUIRE(edges[0].size() == std::size_t{kInstances} * kBoundary);
    CHECK(edges[0].front().size() == producers);
    CHECK(edges[1] == edges[0]);
}

TEST_CASE("a shared list joins a node's own producers and a second shared list",
          "[static_graph][shared_list]") {
    InstantFan f;
    std::vector<TaskId> a, own, c;
    TaskId base;
    pto::run(f.rt, [&] {
        PTO2_SCOPE(MANUAL) {
            a = submit_producers(6);
            own = submit_producers(2);
            c = submit_producers(5);
            const std::uint32_t first_three[] = {0, 1, 2};
            const std::uint32_t third[] = {2};
            f.b.scalar(f.number, 0).depend(0, own).depend(first_three, a).depend(third, c);
            f.b.depend(third, std::span<const TaskId>(a).first(3));  // named again: merged
            base = instantiate(f.b).base();
            // Consumed: the next instance has no boundary producers.
            const TaskId next = instantiate(f.b.scalar(f.number, 1)).base();
            CHECK(producers_of(f.rt.graph(), next).empty());
        }
    });
    // Each node's producers linked once: 8, 6 and 11 (the three named again are merged), none for node 3
    // (the recorded lists above are what was named; these are what was linked).
    const OrchestratorStats& stats = f.rt.last_report().orchestrator;
    CHECK(stats.edges_linked + stats.edges_to_completed == 8 + 6 + 11);
    const GraphRecord& g = f.rt.graph();
    CHECK(producers_of(g, base.plus(0)) == sorted_union(a, own));
    CHECK(producers_of(g, base.plus(1)) == sorted_union(a, {}));
    CHECK(producers_of(g, base.plus(2)) == sorted_union(a, c));
    CHECK(producers_of(g, base.plus(3)).empty());
}

TEST_CASE("a shared list is checked: bad nodes change nothing, bad producers are refused, clear drops it",
          "[static_graph][shared_list][errors]") {
    InstantFan f;
    pto::run(f.rt, [&] {
        PTO2_SCOPE(MANUAL) {
            const std::vector<TaskId> ids = submit_producers(5);
            const std::uint32_t with_join[] = {1, kBoundary};
            test::expect_error([&] { f.b.depend(with_join, ids); }, ErrorCode::InvalidArgument,
                               {"template 'fan' node 4", "not a boundary input"});
            // Node 1 was listed before the bad node, and still has no producers.
            TaskId base = instantiate(f.b.scalar(f.number, 0)).base();
            CHECK(producers_of(f.rt.graph(), base.plus(1)).empty());

            std::vector<TaskId> bad = ids;
            bad.push_back(TaskId{base.value + 1000});  // not submitted yet
            f.b.scalar(f.number, 1).depend(kAllBoundary, bad);
            test::expect_error([&] { instantiate(f.b); }, ErrorCode::InvalidDependency,
                               {"not been submitted yet"});
            f.b.clear();
            // A bad producer a node adds to the shared list is refused too.
            const std::uint32_t first_two[] = {0, 1};
            f.b.scalar(f.number, 2).depend(first_two, ids).depend(1, bad.back());
            test::expect_error([&] { instantiate(f.b); }, ErrorCode::InvalidDependency,
                               {"not been submitted yet"});
            f.b.clear();
            base = instantiate(f.b.scalar(f.number, 2)).base();
            for (std::uint32_t k = 0; k < kBoundary; ++k)
                CHECK(producers_of(f.rt.graph(), base.plus(k)).empty());
        }
    });
    CHECK(f.rt.last_report().submitted == 5 + 2 * (kBoundary + 1));
}

TEST_CASE("in tensormap mode a shared list joins what each node's lookups find",
          "[static_graph][shared_list]") {
    // Nodes 0..3 read x (their boundary input, looked up), node 4 writes it; the producers wrote x before.
    TemplateBuilder builder("fan_tensormap", BoundaryMode::Tensormap);
    const TensorSlot x = builder.tensor_slot("x");
    for (std::uint32_t k = 0; k < kBoundary; ++k) {
        builder.add_aiv(kLog, NodeArgs().input(x));
        builder.boundary_input(k, 0);
    }
    builder.add_aic(kLog, NodeArgs().output(x));
    for (std::uint32_t k = 0; k < kBoundary; ++k)
        builder.edge(k, kBoundary);
    const Template tpl = builder.finalize();
    Runtime rt(recording(Executor::Instant, OrchestrationMode::Serial));
    rt.register_kernel(kLog, KernelInfo{"log", 1.0});
    Bindings b(tpl);
    std::vector<float> data(8);
    const TensorView xv = TensorView::contiguous(data.data(), DataType::F32, {8});
    std::vector<TaskId> named, own;
    TaskId writer, base;
    pto::run(rt, [&] {
        writer = submit_aiv(kLog, Args().output(xv)).task_id();
        named = submit_producers(5);
        own = submit_producers(1);
        const std::uint32_t first_two[] = {0, 1};
        base = instantiate(b.tensor(x, xv).depend(first_two, named).depend(1, own)).base();
    });
    const GraphRecord& g = rt.graph();
    CHECK(producers_of(g, base.plus(0)) == sorted_union(named, {writer}));
    CHECK(producers_of(g, base.plus(1)) == sorted_union(sorted_union(named, own), {writer}));
    CHECK(producers_of(g, base.plus(2)) == std::vector<TaskId>{writer});
    CHECK(producers_of(g, base.plus(3)) == std::vector<TaskId>{writer});
}
