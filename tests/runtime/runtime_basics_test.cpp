// docs/design/machine-model.md and docs/architecture.md, conformance: executors, SPMD block coverage, MIX
// placement, exactly-once release, window wrap-around and in-order retirement, through the public API.
#include <catch2/catch.hpp>

#include <atomic>
#include <algorithm>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "support/catch_printers.h"
#include "support/execution_log.h"
#include "support/graph_checks.h"
#include "pto/runtime/detail/task_port.h"
#include "pto/runtime/runtime.h"
#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

constexpr FuncId kLog{0};

RuntimeConfig recording_config(Executor executor, std::uint32_t schedulers = 3) {
    RuntimeConfig c;
    c.executor = executor;
    c.scheduler_threads = schedulers;
    c.record_graph = true;
    c.record_subtasks = true;
    c.timed_scale = 0.01;  // 1 us of device time = 10 ns here
    return c;
}

}  // namespace

//   a ─┬─ b ─┐
//      ├─ c ─┼─ e (MIX, 3 blocks) ── f (dependency-only) ── g
//      └─ d ─┘
TEST_CASE("every executor runs a small graph to completion in dependency order", "[runtime][executor]") {
    const Executor executor = GENERATE(Executor::Instant, Executor::Timed, Executor::Compute);
    const std::uint32_t schedulers = GENERATE(1u, 3u, 8u);
    test::ExecutionLog log(1024);
    Runtime rt(recording_config(executor, schedulers));
    rt.register_kernel(kLog, KernelInfo{"log", 5.0, &test::ExecutionLog::kernel, &log});
    const RunReport r = pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            const TaskId a = submit_aic(kLog, Args().block_num(2)).task_id();
            const TaskId b = submit_aiv(kLog, Args().set_dependencies(&a, 1)).task_id();
            const TaskId c = submit_aiv(kLog, Args().set_dependencies(&a, 1).block_num(4)).task_id();
            const TaskId d = submit_aic(kLog, Args().set_dependencies(&a, 1)).task_id();
            const TaskId bcd[] = {b, c, d};
            const TaskId e =
                submit_mix(kLog, kLog, kLog, Args().set_dependencies(bcd).block_num(3)).task_id();
            const TaskId f = submit_dependency_only(Args().set_dependencies(&e, 1)).task_id();
            submit_aiv(kLog, Args().set_dependencies(&f, 1));
        }
    });
    CHECK(r.submitted == 7);
    CHECK(r.kernel_tasks == 6);
    CHECK(r.framework_tasks == 1);
    CHECK(r.subtasks == 2 + 1 + 4 + 1 + 3 + 1);
    CHECK(r.completed == 7);
    CHECK(r.ok());
    CHECK(pto::detail::TaskPort(rt).retired_before() == pto::detail::TaskPort(rt).next_task_id());
    const GraphRecord& g = rt.graph();
    CHECK(test::check_recorded_run(g, rt.subtasks()).empty());
    if (executor == Executor::Compute) {
        CHECK(test::check_exactly_once_log(g, log.entries()).empty());
        CHECK(test::check_ordering(g, test::spans_from_log(g, log.entries())).empty());
    }
}

namespace {

struct BlockCoverage {
    std::vector<std::atomic<int>> hits = std::vector<std::atomic<int>>(512);
    static int kernel(const KernelContext& ctx) {
        auto& self = *static_cast<BlockCoverage*>(ctx.user);
        const std::uint64_t chunk = ctx.scalar_as<std::uint64_t>(0) + ctx.block_idx;
        self.hits[chunk].fetch_add(1);
        return 0;
    }
};

}  // namespace

TEST_CASE("an SPMD launch runs each block index exactly once and sees chunk_base + block_idx",
          "[runtime][spmd]") {
    const std::uint32_t width = GENERATE(1u, 2u, 7u, 40u, 100u);
    BlockCoverage coverage;
    RuntimeConfig c;
    c.executor = Executor::Compute;
    Runtime rt(c);
    rt.register_kernel(FuncId{1}, KernelInfo{"cover", 1.0, &BlockCoverage::kernel, &coverage});
    constexpr std::uint32_t kChunks = 200;
    pto::run(rt, [&] {
        for (std::uint32_t base = 0; base < kChunks; base += width)
            submit_aiv(FuncId{1},
                       Args().scalar(std::uint64_t{base}).block_num(std::min(width, kChunks - base)));
    });
    for (std::uint32_t i = 0; i < kChunks; ++i)
        CHECK(coverage.hits[i].load() == 1);
    CHECK(coverage.hits[kChunks].load() == 0);
}

TEST_CASE("a MIX block runs its three lanes on one cluster's AIC and AIV cores, started together",
          "[runtime][mix]") {
    const Executor executor = GENERATE(Executor::Instant, Executor::Timed);
    Runtime rt(recording_config(executor));
    rt.register_kernel(kLog, KernelInfo{"mix", 3.0, nullptr, nullptr});
    pto::run(rt, [&] {
        for (int i = 0; i < 20; ++i)
            submit_mix(kLog, kLog, kLog, Args().block_num(5));
        for (int i = 0; i < 20; ++i)
            submit_aiv(kLog, Args().block_num(3));
    });
    const RuntimeConfig& cfg = rt.config();
    std::map<std::pair<std::uint64_t, std::uint32_t>, std::vector<SubtaskRecord>> lanes;
    for (const SubtaskRecord& r : rt.subtasks())
        if (r.core_type == CoreType::MIX) lanes[{r.task.value, r.block_idx}].push_back(r);
    CHECK(lanes.size() == 20 * 5);
    for (const auto& [key, records] : lanes) {
        REQUIRE(records.size() == 3);
        std::uint32_t cluster = ~0u;  // lane 0 runs on the AIC core, whose index is the cluster's
        for (const SubtaskRecord& r : records)
            if (r.lane == 0) cluster = r.core;
        REQUIRE(cluster < cfg.cluster_count);
        for (const SubtaskRecord& r : records) {
            if (r.lane != 0) CHECK(r.core == cfg.aic_count() + cluster * cfg.aiv_per_cluster + (r.lane - 1u));
            CHECK(r.start_ns == records[0].start_ns);
        }
    }
}

// A fan-in of 64 producers into one consumer, repeated: each consumer becomes ready exactly once.
TEST_CASE("a consumer of many producers is released exactly once", "[runtime][fanin]") {
    test::ExecutionLog log(1 << 14);
    RuntimeConfig c = recording_config(Executor::Compute);
    Runtime rt(c);
    rt.register_kernel(kLog, KernelInfo{"log", 1.0, &test::ExecutionLog::kernel, &log});
    pto::run(rt, [&] {
        std::vector<TaskId> producers;
        for (int round = 0; round < 20; ++round) {
            producers.clear();
            for (int i = 0; i < 64; ++i)
                producers.push_back(submit_aiv(kLog, Args()).task_id());
            submit_aic(kLog, Args().set_dependencies(producers).block_num(2));
        }
    });
    CHECK(test::check_exactly_once_log(rt.graph(), log.entries()).empty());
    CHECK(test::check_ordering(rt.graph(), test::spans_from_log(rt.graph(), log.entries())).empty());
}

TEST_CASE("a chain wraps an 8-slot window many times, waiting for retirement", "[runtime][window]") {
    const Executor executor = GENERATE(Executor::Instant, Executor::Timed);
    RuntimeConfig c = recording_config(executor);
    c.window_tasks = 8;
    Runtime rt(c);
    rt.register_kernel(kLog, KernelInfo{"step", 2.0, nullptr, nullptr});
    const RunReport r = pto::run(rt, [&] {
        TaskId previous;
        for (int i = 0; i < 1000; ++i) {
            Args args;
            if (previous.is_valid()) args.set_dependencies(&previous, 1);
            previous = submit_aiv(kLog, args).task_id();
        }
    });
    CHECK(r.completed == 1000);
    CHECK(r.orchestrator.window_waits > 0);
    CHECK(test::check_ordering(rt.graph(), test::spans_from_subtasks(rt.graph(), rt.subtasks())).empty());
}

namespace {

/// SlowSecond: task 1's kernel returns only when the test releases it.
struct SlowSecond {
    std::atomic<int> quick_done{0};
    std::atomic<bool> release{false};
    static int quick(const KernelContext& ctx) {
        static_cast<SlowSecond*>(ctx.user)->quick_done.fetch_add(1);
        return 0;
    }
    static int slow(const KernelContext& ctx) {
        auto& self = *static_cast<SlowSecond*>(ctx.user);
        while (!self.release.load())
            std::this_thread::yield();
        return 0;
    }
};

}  // namespace

TEST_CASE("tasks retire in id order: finished tasks behind a running one stay in the window",
          "[runtime][window]") {
    SlowSecond state;
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.window_tasks = 8;
    Runtime rt(c);
    rt.register_kernel(FuncId{1}, KernelInfo{"quick", 1.0, &SlowSecond::quick, &state});
    rt.register_kernel(FuncId{2}, KernelInfo{"slow", 1.0, &SlowSecond::slow, &state});
    TaskId first;
    TaskId retired_while_slow;
    pto::run(rt, [&] {
        first = submit_aiv(FuncId{1}, Args()).task_id();  // task 0: quick
        submit_aiv(FuncId{2}, Args());                    // task 1: slow
        for (int i = 0; i < 6; ++i)
            submit_aiv(FuncId{1}, Args());
        while (state.quick_done.load() < 7)
            std::this_thread::yield();
        // Tasks 0 and 2..7 finished; task 0 retires, but nothing behind the running task 1 may.
        do {
            retired_while_slow = pto::detail::TaskPort(rt).try_retire();
            std::this_thread::yield();
        } while (retired_while_slow == first);
        for (int i = 0; i < 1000; ++i)
            retired_while_slow = std::max(retired_while_slow, pto::detail::TaskPort(rt).try_retire());
        state.release.store(true);
    });
    CHECK(retired_while_slow == first.plus(1));
}

TEST_CASE("a runtime serves many runs; ids keep increasing across runs", "[runtime][lifecycle]") {
    Runtime rt(recording_config(Executor::Instant));
    TaskId last;
    for (int run = 0; run < 5; ++run) {
        TaskId first;
        const RunReport r = pto::run(rt, [&] {
            first = submit_aiv(kLog, Args()).task_id();
            submit_aic(kLog, Args().set_dependencies(&first, 1));
        });
        CHECK(r.completed == 2);
        if (last.is_valid()) CHECK(first > last);
        last = first;
        CHECK(rt.graph().tasks.size() == 2);
    }
}

TEST_CASE("serial mode runs nothing before the orchestration function returns", "[runtime][serial]") {
    std::atomic<int> ran{0};
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.orchestration = OrchestrationMode::Serial;
    Runtime rt(c);
    rt.register_kernel(kLog, KernelInfo{"count", 1.0,
                                        [](const KernelContext& ctx) {
                                            static_cast<std::atomic<int>*>(ctx.user)->fetch_add(1);
                                            return 0;
                                        },
                                        &ran});
    int ran_during_orchestration = -1;
    const RunReport r = pto::run(rt, [&] {
        for (int i = 0; i < 100; ++i)
            submit_aiv(kLog, Args());
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        ran_during_orchestration = ran.load();
    });
    CHECK(ran_during_orchestration == 0);
    CHECK(ran.load() == 100);
    CHECK(r.completed == 100);
}

TEST_CASE("the orchestrator's phase counters fill only when profiling is on", "[runtime][profile]") {
    // Submits are compiled twice, with and without the timing; each run must take the copy its config asks
    // for. Only zero and non-zero are compared: the values are wall time.
    for (const bool profile : {false, true}) {
        CAPTURE(profile);
        RuntimeConfig c;
        c.profile_orchestrator = profile;
        Runtime rt(c);
        rt.register_kernel(kLog, KernelInfo{"nop", 1.0, nullptr, nullptr});
        const RunReport r = pto::run(rt, [] {
            PTO2_SCOPE(MANUAL) {
                TaskId previous = submit_aiv(kLog, Args()).task_id();
                for (int i = 0; i < 200; ++i)
                    previous = submit_aic(kLog, Args().after(previous)).task_id();
            }
        });
        REQUIRE(r.completed == 201);
        const OrchestratorStats& o = r.orchestrator;
        CHECK((o.ring_alloc_ns > 0) == profile);
        CHECK((o.arg_copy_ns > 0) == profile);
        CHECK((o.fanin_ns > 0) == profile);
        CHECK((o.scope_end_ns > 0) == profile);
    }
}
