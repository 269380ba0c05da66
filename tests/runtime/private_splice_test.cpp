// docs/architecture.md (step 5, splicing without a CAS), conformance: a producer whose own edges were staged
// in the same scope is spliced with a plain store at the scope's end, and the same producer is spliced
// with a CAS when later scopes name it again. Chains inside scopes, producers named across scope ends (with
// and without outputs, so with and without references) and a scope that fills the staging all run every
// task once, after its producers, count every edge and retire everything, in serial and concurrent runs.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "pto/scope/orchestration.h"
#include "support/execution_log.h"
#include "support/graph_checks.h"

using namespace pto;

namespace {

constexpr FuncId kLog{0};

/// Graph: what the orchestration below submitted, and how many edges it named.
struct Graph {
    std::vector<TaskId> tasks;
    std::uint64_t edges = 0;
};

/// submit_task: an AIV task after `producers`; with `allocates`, it also owns a runtime-allocated output,
/// so its consumers hold references on it.
TaskId submit_task(Graph& g, std::vector<TaskId> producers, bool allocates) {
    Args args;
    args.scalar(static_cast<std::uint64_t>(g.tasks.size()));
    if (allocates) args.output(TensorCreateInfo(DataType::F32, {16}));
    if (!producers.empty()) args.set_dependencies(producers);
    g.edges += producers.size();
    const TaskId id = submit_aiv(kLog, args).task_id();
    g.tasks.push_back(id);
    return id;
}

/// chains: `scopes` manual scopes, each a chain of `length` tasks whose first task waits for the last two
/// tasks of the scope before and the first task of the very first scope (named again by every scope:
/// spliced privately at its own scope's end, then with a CAS each time after).
void chains(Graph& g, int scopes, int length) {
    std::vector<TaskId> previous;
    TaskId root{};
    for (int s = 0; s < scopes; ++s) {
        PTO2_SCOPE(MANUAL) {
            std::vector<TaskId> producers = previous;
            if (s > 0) producers.push_back(root);
            TaskId last = submit_task(g, producers, s % 2 == 0);
            if (s == 0) root = last;
            std::vector<TaskId> chain{last};
            for (int i = 1; i < length; ++i) {
                last = submit_task(g, {last}, i % 3 == 0);
                chain.push_back(last);
            }
            previous.assign(chain.end() - 2, chain.end());
        }
    }
}

/// edges_counted: every producer a task named was linked, found completed or retired, or merged as a
/// duplicate (the second task of the long chain names the first twice).
std::uint64_t edges_counted(const OrchestratorStats& s) {
    return s.edges_linked + s.edges_to_completed + s.edges_to_retired + s.edges_duplicate;
}

}  // namespace

TEST_CASE("producers staged in their own scope and named again by later scopes release every consumer",
          "[runtime][linker]") {
    const OrchestrationMode mode = GENERATE(OrchestrationMode::Serial, OrchestrationMode::Concurrent);
    const std::uint32_t schedulers = GENERATE(1u, 3u);
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.record_graph = true;
    c.orchestration = mode;
    c.scheduler_threads = schedulers;
    c.window_tasks = 1024;
    test::ExecutionLog log{1 << 12};
    Runtime rt(c);
    rt.register_kernel(kLog, KernelInfo{"log", 1.0, &test::ExecutionLog::kernel, &log});
    for (int round = 0; round < 3; ++round) {
        log.clear();
        Graph g;
        const RunReport r = pto::run(rt, [&] { chains(g, 12, 8); });
        INFO("schedulers " << schedulers << ", round " << round);
        CHECK(r.completed == g.tasks.size());
        CHECK(r.completed == r.submitted);
        CHECK(edges_counted(r.orchestrator) == g.edges);
        const GraphRecord& graph = rt.graph();
        CHECK(test::check_exactly_once_log(graph, log.entries()) == "");
        CHECK(test::check_ordering(graph, test::spans_from_log(graph, log.entries())) == "");
        CHECK(detail::TaskPort(rt).retired_before() == detail::TaskPort(rt).next_task_id());
    }
}

TEST_CASE("a scope longer than the staging splices its chain in several flushes", "[runtime][linker]") {
    // A chain of 5,000 tasks in one scope stages more than EdgeLinker::kMaxStagedEdges edges, so the scope
    // flushes while it is open: the task at each flush boundary is private in one flush and shared in the
    // next.
    const OrchestrationMode mode = GENERATE(OrchestrationMode::Serial, OrchestrationMode::Concurrent);
    RuntimeConfig c;
    c.orchestration = mode;
    c.window_tasks = 1u << 13;
    Runtime rt(c);
    rt.register_kernel(kLog, KernelInfo{"k", 1.0});
    Graph g;
    const RunReport r = pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            TaskId last = submit_task(g, {}, false);
            for (int i = 1; i < 5000; ++i)
                last = submit_task(g, {last, g.tasks.front()}, i % 7 == 0);
        }
    });
    CHECK(r.completed == 5000);
    CHECK(edges_counted(r.orchestrator) == g.edges);
    CHECK(r.orchestrator.edges_duplicate == 1);
    // Each of the 4,999 producers of the chain spliced once, and the first task again at every later flush.
    CHECK(r.orchestrator.link_flushes > 4999);
    CHECK(detail::TaskPort(rt).retired_before() == detail::TaskPort(rt).next_task_id());
}
