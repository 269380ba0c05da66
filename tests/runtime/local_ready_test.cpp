// docs/architecture.md "Threads": a scheduler keeps the kernel tasks it makes ready for its own next
// dispatch round, and hands what it cannot place to the shared queues when its pass ends. White-box for the
// stash itself; black-box for the hand-over (work a busy thread released still reaches an idle one) and for
// long chains that stay on one thread through many rounds.
#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "local_ready.h"
#include "pto/scope/orchestration.h"
#include "support/graph_checks.h"

using namespace pto;
using pto::detail::LocalReady;
using pto::detail::Shape;

TEST_CASE("the stash keeps each shape's tasks in order, up to its capacity", "[runtime][local_ready]") {
    LocalReady stash;
    CHECK(stash.is_empty());
    for (std::uint32_t i = 0; i < LocalReady::kCapacity; ++i) {
        REQUIRE(stash.try_push(Shape::AIC, 100 + i));
    }
    CHECK_FALSE(stash.try_push(Shape::AIC, 999));  // full: the caller pushes to the shared queue instead
    REQUIRE(stash.try_push(Shape::AIV, 7));        // another shape has its own room
    REQUIRE(stash.try_push(Shape::MIX, 8));
    CHECK_FALSE(stash.is_empty(Shape::AIC));

    std::uint32_t slot = 0;
    REQUIRE(stash.try_pop(Shape::AIC, slot));
    CHECK(slot == 100);
    REQUIRE(stash.try_push(Shape::AIC, 200));  // room again, and the ring wraps
    // Dependency-only tasks are never kept: they always go to the shared queue.
    CHECK_FALSE(stash.try_push(Shape::DependencyOnly, 9));
    CHECK(stash.is_empty(Shape::DependencyOnly));
    CHECK_FALSE(stash.try_pop(Shape::DependencyOnly, slot));

    std::vector<std::pair<Shape, std::uint32_t>> drained;
    CHECK(stash.drain([&](Shape s, std::uint32_t t) { drained.emplace_back(s, t); }));
    REQUIRE(drained.size() == LocalReady::kCapacity + 2);
    for (std::uint32_t i = 0; i + 1 < LocalReady::kCapacity; ++i)
        CHECK(drained[i] == std::make_pair(Shape::AIC, 101 + i));
    CHECK(drained[LocalReady::kCapacity - 1] == std::make_pair(Shape::AIC, std::uint32_t{200}));
    CHECK(drained[LocalReady::kCapacity] == std::make_pair(Shape::AIV, std::uint32_t{7}));
    CHECK(drained[LocalReady::kCapacity + 1] == std::make_pair(Shape::MIX, std::uint32_t{8}));
    CHECK(stash.is_empty());
    CHECK_FALSE(stash.drain([&](Shape, std::uint32_t) { FAIL("an empty stash drains nothing"); }));
}

TEST_CASE("work a busy scheduler made ready reaches an idle one", "[runtime][local_ready]") {
    // Two threads with one cluster (one AIC) each. Whichever thread completes the producer makes four AIC
    // consumers ready into its stash, places one, and must hand the other three to the shared queue: the
    // other thread's AIC is idle (so they may not wait in a pending slot), and the kernels are long enough
    // that the releasing thread cannot run them all before the other one wakes.
    RuntimeConfig config;
    config.cluster_count = 2;
    config.scheduler_threads = 2;
    config.executor = Executor::Timed;
    config.timed_scale = 1.0;
    config.record_subtasks = true;
    Runtime rt(config);
    rt.register_kernel(FuncId{0}, KernelInfo{"producer", 100.0, nullptr, nullptr});
    rt.register_kernel(FuncId{1}, KernelInfo{"consumer", 50000.0, nullptr, nullptr});  // 50 ms
    std::set<std::uint64_t> consumers;
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            const TaskId producer = submit_aic(FuncId{0}, Args()).task_id();
            for (int i = 0; i < 4; ++i)
                consumers.insert(
                    submit_aic(FuncId{1}, Args().set_dependencies(&producer, 1)).task_id().value);
        }
    });
    std::set<std::uint32_t> threads;
    std::size_t ran = 0;
    for (const SubtaskRecord& r : rt.subtasks()) {
        if (consumers.count(r.task.value) == 0) continue;
        ++ran;
        threads.insert(r.scheduler);
    }
    CHECK(ran == 4);
    CHECK(threads.size() == 2);
}

TEST_CASE("long chains run whole with the instant executor, each task once and in order",
          "[runtime][local_ready]") {
    // Each chain's next link is made ready by the thread that ran the previous one, so it stays in that
    // thread's stash across many dispatch rounds; several chains, MIX links and SPMD links mix the shapes,
    // and a fan-in closes each chain. Repeated, with three threads on whatever CPUs the host has.
    RuntimeConfig config;
    config.record_subtasks = true;
    config.record_graph = true;
    Runtime rt(config);
    for (std::uint16_t f = 0; f < 3; ++f)
        rt.register_kernel(FuncId{f}, KernelInfo{"k" + std::to_string(f), 1.0, nullptr, nullptr});
    constexpr int kChains = 8;
    constexpr int kLinks = 60;
    for (int rep = 0; rep < 20; ++rep) {
        pto::run(rt, [&] {
            PTO2_SCOPE(MANUAL) {
                std::vector<TaskId> tails;
                for (int c = 0; c < kChains; ++c) {
                    TaskId prev = submit_aiv(FuncId{0}, Args()).task_id();
                    for (int l = 1; l < kLinks; ++l) {
                        Args a;
                        a.set_dependencies(&prev, 1);
                        if (l % 7 == 0)
                            prev = submit_mix(FuncId{0}, FuncId{1}, FuncId{2}, a).task_id();
                        else if (l % 3 == 0)
                            prev = submit_aic(FuncId{1}, a.block_num(static_cast<std::uint32_t>(1 + l % 5)))
                                       .task_id();
                        else
                            prev = submit_aiv(FuncId{2}, a).task_id();
                    }
                    tails.push_back(prev);
                }
                submit_aiv(FuncId{0}, Args().set_dependencies(tails));
            }
        });
        const RunReport& report = rt.last_report();
        REQUIRE(report.completed == report.submitted);
        // Every subtask ran once, and none started before its producers' last subtask ended.
        const GraphRecord& g = rt.graph();
        CHECK(pto::test::check_recorded_run(g, rt.subtasks()).empty());
    }
}
