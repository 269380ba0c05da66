// docs/architecture.md (step 5, bundles), conformance: consumers that name one long producer list share
// a bundle (one node each, one fanout node per producer) instead of an edge node per edge. They still run
// after every producer, exactly once, are cancelled by a failed producer, are released at the flush when
// their producers completed first, and the edge statistics count every edge; an edge pool far smaller than
// the edges holds them.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "pto/scope/orchestration.h"
#include "support/execution_log.h"
#include "support/expect_error.h"
#include "support/graph_checks.h"

using namespace pto;

namespace {

constexpr FuncId kLog{0};
constexpr FuncId kFail{1};

int failing_kernel(const KernelContext&) {
    return 3;
}

/// Producers: `count` AIV tasks of `kernel` with no dependencies (they allocate nothing, so their consumers
/// hold no references and may be bundled).
std::vector<TaskId> submit_producers(std::uint32_t count, FuncId kernel = kLog) {
    std::vector<TaskId> ids;
    for (std::uint32_t i = 0; i < count; ++i) {
        Args args;
        args.scalar(i);
        ids.push_back(submit_aiv(kernel, args).task_id());
    }
    return ids;
}

/// Consumers: `count` AIC tasks each naming every one of `producers`; after every `short_every`-th, one that
/// names only the first producer (a short list neither uses nor ends a bundle).
std::vector<TaskId> submit_consumers(std::uint32_t count, std::span<const TaskId> producers,
                                     std::uint32_t short_every = 0) {
    std::vector<TaskId> ids;
    for (std::uint32_t i = 0; i < count; ++i) {
        Args args;
        args.scalar(i).set_dependencies(producers);
        ids.push_back(submit_aic(kLog, args).task_id());
        if (short_every != 0 && i % short_every == 0) {
            Args one;
            one.set_dependencies(producers.data(), 1);
            ids.push_back(submit_aiv(kLog, one).task_id());
        }
    }
    return ids;
}

std::uint64_t edges_counted(const OrchestratorStats& s) {
    return s.edges_linked + s.edges_to_completed;
}

/// LoggedRuntime: a compute-executor runtime recording its graph, whose kernel kLog logs each subtask, for
/// check_exactly_once_log and check_ordering.
struct LoggedRuntime {
    explicit LoggedRuntime(RuntimeConfig c = {}) : rt(compute(c)) {
        rt.register_kernel(kLog, KernelInfo{"log", 1.0, &test::ExecutionLog::kernel, &log});
    }
    static RuntimeConfig compute(RuntimeConfig c) {
        c.executor = Executor::Compute;
        c.record_graph = true;
        return c;
    }
    test::ExecutionLog log{1 << 12};
    Runtime rt;  // after `log`, which its kernel writes
};

/// serial_config: serial mode (every node of a run is in use at once, before anything runs) with an edge
/// pool of `edges` nodes.
RuntimeConfig serial_config(std::uint32_t window, std::uint32_t edges) {
    RuntimeConfig c;
    c.orchestration = OrchestrationMode::Serial;
    c.window_tasks = window;
    c.edge_capacity = edges;
    return c;
}

}  // namespace

TEST_CASE("consumers of one long producer list fit an edge pool far smaller than their edges",
          "[runtime][bundle]") {
    // 16 producers x 48 consumers are 768 edges; bundled they take 16 nodes for the first consumer, 16 + 1
    // for the second, which opens the bundle, and one for each after it: 79, in a pool of 128.
    RuntimeConfig c = serial_config(128, 128);
    c.record_graph = true;
    c.record_subtasks = true;
    Runtime rt(c);
    rt.register_kernel(kLog, KernelInfo{"k", 1.0});
    const RunReport r = pto::run(rt, [] {
        PTO2_SCOPE(MANUAL) {
            const std::vector<TaskId> producers = submit_producers(16);
            submit_consumers(48, producers);
        }
    });
    CHECK(r.completed == 16 + 48);
    CHECK(edges_counted(r.orchestrator) == 16 * 48);
    CHECK(r.orchestrator.edges_to_retired == 0);
    CHECK(test::check_recorded_run(rt.graph(), rt.subtasks()) == "");
}

TEST_CASE("bundled consumers run after every producer, exactly once, with short lists between them",
          "[runtime][bundle]") {
    const std::uint32_t schedulers = GENERATE(1u, 3u);
    const OrchestrationMode mode = GENERATE(OrchestrationMode::Concurrent, OrchestrationMode::Serial);
    RuntimeConfig c;
    c.orchestration = mode;
    c.scheduler_threads = schedulers;
    c.window_tasks = 256;
    LoggedRuntime logged(c);
    Runtime& rt = logged.rt;
    test::ExecutionLog& log = logged.log;
    for (int round = 0; round < 3; ++round) {
        log.clear();
        const RunReport r = pto::run(rt, [] {
            PTO2_SCOPE(MANUAL) {
                const std::vector<TaskId> first = submit_producers(6);
                const std::vector<TaskId> a = submit_consumers(10, first, 3);
                // A second list, made of the first list's consumers: a new bundle.
                const std::vector<TaskId> second(a.begin(), a.begin() + 5);
                submit_consumers(7, second);
            }
        });
        INFO("schedulers " << schedulers << ", round " << round);
        CHECK(r.completed == r.submitted);
        const GraphRecord& g = rt.graph();
        CHECK(test::check_exactly_once_log(g, log.entries()) == "");
        CHECK(test::check_ordering(g, test::spans_from_log(g, log.entries())) == "");
        CHECK(edges_counted(r.orchestrator) + r.orchestrator.edges_to_retired ==
              6 * 10 + 4 /* short lists */ + 5 * 7);
        CHECK(detail::TaskPort(rt).retired_before() == detail::TaskPort(rt).next_task_id());
    }
}

TEST_CASE("a failed producer cancels every member of its bundle", "[runtime][bundle][failure]") {
    LoggedRuntime logged;
    Runtime& rt = logged.rt;
    rt.register_kernel(kFail, KernelInfo{"fail", 1.0, &failing_kernel, nullptr});
    const RunReport r = pto::run(
        rt,
        [] {
            PTO2_SCOPE(MANUAL) {
                std::vector<TaskId> producers = submit_producers(5);
                Args bad;
                producers.push_back(submit_aiv(kFail, bad).task_id());
                const std::vector<TaskId> members = submit_consumers(9, producers);
                // A consumer of the members is cancelled in turn.
                Args last;
                last.set_dependencies(members);
                submit_aiv(kLog, last);
            }
        },
        RunOptions{.throw_on_kernel_failure = false});
    CHECK(r.failed == 1);
    CHECK(r.cancelled == 9 + 1);
    CHECK(r.completed == 5);
    CHECK(r.completed + r.failed + r.cancelled == r.submitted);
    CHECK(logged.log.entries().size() == 5);  // no cancelled task ran
}

TEST_CASE("producers that completed before the flush release their bundle at the flush",
          "[runtime][bundle]") {
    LoggedRuntime logged;
    const test::ExecutionLog& log = logged.log;
    const RunReport r = pto::run(logged.rt, [] {
        PTO2_SCOPE(MANUAL) {
            // The outer scope keeps the producers from retiring: completed, they are still linked to.
            const std::vector<TaskId> producers = submit_producers(8);
            pto::wait_for(producers);
            PTO2_SCOPE(MANUAL) {
                submit_consumers(12, producers);
            }
        }
    });
    CHECK(r.completed == 8 + 12);
    CHECK(r.orchestrator.edges_to_completed == 8 * 12);
    CHECK(r.orchestrator.edges_linked == 0);
    const GraphRecord& g = logged.rt.graph();
    CHECK(test::check_exactly_once_log(g, log.entries()) == "");
    CHECK(test::check_ordering(g, test::spans_from_log(g, log.entries())) == "");
}

TEST_CASE("consumers of producers that allocated outputs are not bundled: each keeps its references",
          "[runtime][bundle]") {
    // Their references are dropped through their own edge nodes, one per edge, so the pool must hold
    // every edge: 8 x 16 = 128 nodes do not fit 64 in serial mode.
    Runtime rt(serial_config(64, 64));
    rt.register_kernel(kLog, KernelInfo{"k", 1.0});
    test::expect_error(
        [&] {
            pto::run(rt, [] {
                PTO2_SCOPE(MANUAL) {
                    std::vector<TaskId> producers;
                    for (int i = 0; i < 8; ++i) {
                        Args args;
                        args.output(TensorCreateInfo(DataType::F32, {16}));
                        producers.push_back(submit_aiv(kLog, args).task_id());
                    }
                    submit_consumers(16, producers);
                }
            });
        },
        ErrorCode::CapacityDeadlock, {"edge_capacity"});
    // The runtime stays usable, and the same graph of producers that allocate nothing fits.
    const RunReport r = pto::run(rt, [] {
        PTO2_SCOPE(MANUAL) {
            submit_consumers(16, submit_producers(8));
        }
    });
    CHECK(r.completed == 8 + 16);
    CHECK(edges_counted(r.orchestrator) == 8 * 16);
}
