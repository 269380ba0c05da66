// docs/reliability.md, conformance (property): failing compute kernels on random DAGs. Exactly the transitive
// dependants of the failed tasks are cancelled, none of them runs, every other subtask runs exactly once, and
// completed + failed + cancelled = submitted; also when a dependant is submitted after its failed producer
// retired. Seeds are printed so a failure can be replayed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/random_dag.h"
#include "pto/runtime/detail/task_port.h"
#include "pto/runtime/runtime.h"
#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

constexpr FuncId kKernel{0};

enum class Status { Ok, Failed, Cancelled };

/// Injector: the kernel of every node. Node i (scalar 0) fails in its last block, lane 0, when chosen;
/// every call is counted per node.
struct Injector {
    std::vector<char> fails;
    std::unique_ptr<std::atomic<std::uint32_t>[]> runs;
    bool throws = false;

    explicit Injector(std::size_t nodes) : fails(nodes, 0), runs(new std::atomic<std::uint32_t>[nodes]) {
        for (std::size_t i = 0; i < nodes; ++i)
            runs[i].store(0);
    }
    static int kernel(const KernelContext& ctx) {
        auto& in = *static_cast<Injector*>(ctx.user);
        const std::uint64_t node = ctx.scalars[0];
        in.runs[node].fetch_add(1);
        if (in.fails[node] == 0 || ctx.block_idx + 1 != ctx.block_num || ctx.lane != 0) return 0;
        if (in.throws) throw std::runtime_error("injected fault in node " + std::to_string(node));
        return 3;
    }
};

/// expected_status: what the failure rule predicts, computed in submission (= topological) order.
std::vector<Status> expected_status(const std::vector<test::RandomNode>& nodes,
                                    const std::vector<char>& fails) {
    std::vector<Status> s(nodes.size(), Status::Ok);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        for (std::uint32_t d : nodes[i].deps)
            if (s[d] != Status::Ok) s[i] = Status::Cancelled;
        if (s[i] == Status::Ok && fails[i] != 0) s[i] = Status::Failed;
    }
    return s;
}

std::uint32_t lanes(const test::RandomNode& n) {
    return n.core == CoreType::MIX ? 3 : 1;
}

}  // namespace

TEST_CASE("random failing kernels cancel exactly their transitive dependants and nothing else",
          "[runtime][failure][stress]") {
    const std::uint32_t schedulers = GENERATE(1u, 3u);
    const std::uint32_t window = GENERATE(8u, 64u);
    const bool throws = GENERATE(false, true);
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.scheduler_threads = schedulers;
    c.window_tasks = window;
    c.edge_capacity = 1024;
    c.cluster_count = 6;
    c.timed_jitter = 0.5;  // shakes the order in which independent kernels run
    Runtime rt(c);

    for (std::uint32_t round = 0; round < 3 * test::stress_scale(); ++round) {
        const std::uint64_t seed = 7000 + 100 * window + 10 * schedulers + round + (throws ? 50000 : 0);
        INFO("seed " << seed << ", schedulers " << schedulers << ", window " << window << ", throws "
                     << throws);
        test::RandomDagOptions options;
        options.tasks = 300;
        const auto nodes = test::random_dag(seed, options);
        Injector injector(nodes.size());
        injector.throws = throws;
        std::mt19937_64 rng(seed);
        for (std::size_t i = 0; i < nodes.size(); ++i)
            injector.fails[i] = nodes[i].kind == TaskKind::Kernel && rng() % 25 == 0 ? 1 : 0;
        rt.register_kernel(kKernel, KernelInfo{"injected", 2.0, &Injector::kernel, &injector});

        std::vector<TaskId> ids;
        const RunReport r = pto::run(
            rt, [&] { ids = test::submit_random_dag(nodes, kKernel); },
            RunOptions{.throw_on_kernel_failure = false});
        const std::vector<Status> expected = expected_status(nodes, injector.fails);
        std::uint64_t ok = 0, failed = 0, cancelled = 0;
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            const std::uint32_t subtasks =
                nodes[i].kind == TaskKind::Kernel ? nodes[i].block_num * lanes(nodes[i]) : 0;
            INFO("node " << i << " (task " << ids[i].value << ")");
            switch (expected[i]) {
                case Status::Ok:
                    ++ok;
                    CHECK(injector.runs[i].load() == subtasks);
                    break;
                case Status::Failed:
                    ++failed;
                    CHECK(injector.runs[i].load() >= 1);
                    break;
                case Status::Cancelled:
                    ++cancelled;
                    CHECK(injector.runs[i].load() == 0);
                    break;
            }
        }
        CHECK(r.submitted == nodes.size());
        CHECK(r.completed == ok);
        CHECK(r.failed == failed);
        CHECK(r.cancelled == cancelled);
        CHECK(r.completed + r.failed + r.cancelled == r.submitted);
        CHECK(r.failures.size() == std::min<std::uint64_t>(failed, 16));
        for (const TaskFailure& f : r.failures) {
            const auto at = std::find(ids.begin(), ids.end(), f.task);
            REQUIRE(at != ids.end());
            CHECK(expected[static_cast<std::size_t>(at - ids.begin())] == Status::Failed);
            CHECK_THAT(f.message, Catch::Contains(throws ? "injected fault" : "returned 3"));
        }
        CHECK(pto::detail::TaskPort(rt).retired_before() == pto::detail::TaskPort(rt).next_task_id());
    }
}

//   bad (fails, then retires)  ...  late1 (submitted afterwards, depends on bad) -- late2
TEST_CASE("a task submitted after its failed producer retired is still cancelled", "[runtime][failure]") {
    std::atomic<int> ran{0};
    struct Kernels {
        static int bad(const KernelContext&) { return 1; }
        static int ok(const KernelContext& ctx) {
            static_cast<std::atomic<int>*>(ctx.user)->fetch_add(1);
            return 0;
        }
    };
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.window_tasks = 8;
    Runtime rt(c);
    rt.register_kernel(FuncId{0}, KernelInfo{"bad", 1.0, &Kernels::bad, nullptr});
    rt.register_kernel(FuncId{1}, KernelInfo{"ok", 1.0, &Kernels::ok, &ran});
    TaskId bad, late1, late2;
    const RunReport r = pto::run(
        rt,
        [&] {
            Runtime& runtime = current_runtime();
            bad = submit_aiv(FuncId{0}, Args()).task_id();
            const TaskId cancelled_early = submit_aiv(FuncId{1}, Args().set_dependencies(&bad, 1)).task_id();
            while (pto::detail::TaskPort(runtime).retired_before().value <= cancelled_early.value)
                pto::detail::TaskPort(runtime).wait_for_retirement("window_tasks");
            late1 = submit_aiv(FuncId{1}, Args().set_dependencies(&bad, 1)).task_id();
            late2 = submit_aic(FuncId{1}, Args().set_dependencies(&cancelled_early, 1)).task_id();
            submit_aiv(FuncId{1}, Args());
        },
        RunOptions{.throw_on_kernel_failure = false});
    CHECK(r.submitted == 5);
    CHECK(r.failed == 1);
    CHECK(r.cancelled == 3);
    CHECK(r.completed == 1);
    CHECK(ran.load() == 1);
    REQUIRE(r.failures.size() == 1);
    CHECK(r.failures[0].task == bad);

    // The next run starts clean: ids of the failed run are not remembered as failed producers.
    ran = 0;
    const RunReport again = pto::run(rt, [] {
        const TaskId a = submit_aiv(FuncId{1}, Args()).task_id();
        submit_aiv(FuncId{1}, Args().set_dependencies(&a, 1));
    });
    CHECK(again.completed == 2);
    CHECK(ran.load() == 2);
}
