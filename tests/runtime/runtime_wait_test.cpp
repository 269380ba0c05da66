// docs/api.md "Waiting for tasks", conformance (pto::wait / pto::wait_for) and white-box (a deadlock proven
// while the orchestrator waits): the orchestration function waits until tasks completed, reads what they
// wrote and submits accordingly, in every scope mode and in serial mode; failures, bad ids and stalls give
// coded errors instead of a hang, and the runtime stays usable.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "pto/scope/orchestration.h"
#include "runtime_impl.h"
#include "support/catch_printers.h"
#include "support/expect_error.h"
#include "support/stall_timeouts.h"

using namespace pto;

namespace {

constexpr FuncId kCount{0};  // writes scalar 0 into its output (an int32 scalar view)
constexpr FuncId kTick{1};   // counts its runs
constexpr FuncId kFail{2};   // throws
constexpr FuncId kBlock{3};  // blocks until the gate opens

struct Counters {
    std::atomic<int> ticks{0};
    std::atomic<bool> open{false};
    void release() {
        open.store(true);
        open.notify_all();
    }
};

int count_kernel(const KernelContext& ctx) {
    *ctx.tensors[0].view.data<std::int32_t>() = ctx.scalar_as<std::int32_t>(0);
    return 0;
}
int tick_kernel(const KernelContext& ctx) {
    static_cast<Counters*>(ctx.user)->ticks.fetch_add(1);
    return 0;
}
int fail_kernel(const KernelContext&) {
    throw std::runtime_error("router exploded");
}
int block_kernel(const KernelContext& ctx) {
    static_cast<Counters*>(ctx.user)->open.wait(false);
    return 0;
}

RuntimeConfig compute_config(std::uint32_t schedulers, OrchestrationMode mode) {
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.cluster_count = 3;  // one per scheduler thread at most
    c.scheduler_threads = schedulers;
    c.compute_threads = 2;
    c.orchestration = mode;
    c.record_graph = true;
    return c;
}

void register_all(Runtime& rt, Counters& counters) {
    rt.register_kernel(kCount, KernelInfo{"count", 1.0, &count_kernel, nullptr});
    rt.register_kernel(kTick, KernelInfo{"tick", 1.0, &tick_kernel, &counters});
    rt.register_kernel(kFail, KernelInfo{"fail", 1.0, &fail_kernel, nullptr});
    rt.register_kernel(kBlock, KernelInfo{"block", 1.0, &block_kernel, &counters});
}

TensorView scalar_view(std::int32_t& x) {
    return TensorView::contiguous(&x, DataType::I32, {1});
}

/// data_dependent_graph: a "router" decides a count; the orchestration waits for it, reads the count and
/// submits that many tick launches.
///
///   count (writes n) --wait--> tick x n
std::uint64_t data_dependent_graph(Runtime& rt, std::optional<ScopeMode> mode, std::int32_t n) {
    std::int32_t routed = -1;
    const auto body = [&] {
        const TaskHandle router = submit_aiv(kCount, Args().output(scalar_view(routed)).scalar(n));
        pto::wait(router);
        const TaskId after = router.task_id();
        for (std::int32_t i = 0; i < routed; ++i)
            submit_aiv(kTick, Args().input(scalar_view(routed)).set_dependencies(&after, 1));
    };
    const RunReport r = pto::run(rt, [&] {
        if (!mode) {
            body();
        } else {
            ScopeGuard guard(*mode);
            body();
        }
    });
    CHECK(routed == n);
    CHECK(r.ok());
    CHECK(r.orchestrator.waits == 1);
    return r.kernel_tasks;
}

}  // namespace

TEST_CASE("the orchestration function waits for a task and submits what its output says", "[runtime][wait]") {
    const std::uint32_t schedulers = GENERATE(1u, 2u, 3u);
    const OrchestrationMode orchestration =
        GENERATE(OrchestrationMode::Concurrent, OrchestrationMode::Serial);
    const auto mode = GENERATE(std::optional<ScopeMode>{}, std::optional<ScopeMode>{ScopeMode::Auto},
                               std::optional<ScopeMode>{ScopeMode::Manual});
    const bool is_serial = orchestration == OrchestrationMode::Serial;
    const int scope_kind = !mode ? 0 : *mode == ScopeMode::Auto ? 1 : 2;  // none, AUTO, MANUAL
    CAPTURE(schedulers, is_serial, scope_kind);
    Counters counters;
    Runtime rt(compute_config(schedulers, orchestration));
    register_all(rt, counters);
    for (std::int32_t n : {0, 1, 7}) {
        counters.ticks = 0;
        CHECK(data_dependent_graph(rt, mode, n) == 1 + static_cast<std::uint64_t>(n));
        CHECK(counters.ticks.load() == n);
        // The wait is in the recorded graph: before the first tick, the router.
        const GraphRecord& g = rt.graph();
        REQUIRE(g.waits.size() == 1);
        CHECK(g.waits[0].awaited == g.tasks[0].id);
        CHECK(g.waits[0].before.value == g.tasks[0].id.value + 1);
    }
}

//   a -> b (edge staged in the open MANUAL scope) ; wait(b) inside the scope
TEST_CASE("a wait inside an open MANUAL scope flushes its staged edges and sees the chain complete",
          "[runtime][wait]") {
    Counters counters;
    Runtime rt(compute_config(2, OrchestrationMode::Concurrent));
    register_all(rt, counters);
    int seen = -1;
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            const TaskId a = submit_aiv(kTick, Args()).task_id();
            const TaskId b = submit_aiv(kTick, Args().set_dependencies(&a, 1)).task_id();
            const TaskId both[] = {a, b};
            pto::wait_for(both);
            seen = counters.ticks.load();
            pto::wait_for(both);  // completed already: returns at once
        }
    });
    CHECK(seen == 2);
    CHECK(rt.last_report().orchestrator.waits == 2);
}

TEST_CASE("in serial mode a wait runs what was submitted, then nothing runs until orchestration returns",
          "[runtime][wait]") {
    Counters counters;
    Runtime rt(compute_config(2, OrchestrationMode::Serial));
    register_all(rt, counters);
    int at_wait = -1, at_end = -1;
    const RunReport r = pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            TaskId last{};
            for (int i = 0; i < 5; ++i)
                last = submit_aiv(kTick, Args()).task_id();
            pto::wait(last);  // serial: every task submitted so far, not only `last`
            at_wait = counters.ticks.load();
            for (int i = 0; i < 3; ++i)
                submit_aiv(kTick, Args());
            at_end = counters.ticks.load();
        }
    });
    CHECK(at_wait == 5);
    CHECK(at_end == 5);  // the schedulers were paused again after the wait
    CHECK(counters.ticks.load() == 8);
    CHECK(r.completed == 8);
}

//   fail -> tick (cancelled)
TEST_CASE("waiting for a task that failed or was cancelled throws KernelFailed naming it",
          "[runtime][wait]") {
    Counters counters;
    Runtime rt(compute_config(2, OrchestrationMode::Concurrent));
    register_all(rt, counters);
    const bool wait_for_dependant = GENERATE(false, true);
    TaskId failed{}, cancelled{};
    test::expect_error(
        [&] {
            pto::run(rt, [&] {
                PTO2_SCOPE(MANUAL) {
                    failed = submit_aiv(kFail, Args()).task_id();
                    cancelled = submit_aiv(kTick, Args().set_dependencies(&failed, 1)).task_id();
                    pto::wait(wait_for_dependant ? cancelled : failed);
                    FAIL("the wait returned");
                }
            });
        },
        ErrorCode::KernelFailed,
        // The runtime is fresh: the failing task is task 0, its dependant task 1.
        {wait_for_dependant ? "task 1 (kernel tick) was cancelled" : "task 0 (kernel fail) failed",
         "router exploded"});
    CHECK(failed == TaskId{0});
    CHECK(cancelled == TaskId{1});
    const RunReport& aborted = rt.last_report();
    CHECK(aborted.failed == 1);
    CHECK(aborted.cancelled == 1);
    CHECK(counters.ticks.load() == 0);
    // The runtime stays usable.
    CHECK(data_dependent_graph(rt, ScopeMode::Manual, 3) == 4);
}

TEST_CASE("waiting for a task this run did not submit is InvalidArgument", "[runtime][wait]") {
    Counters counters;
    Runtime rt(compute_config(1, OrchestrationMode::Concurrent));
    register_all(rt, counters);
    TaskId earlier{};
    pto::run(rt, [&] { earlier = submit_aiv(kTick, Args()).task_id(); });
    test::expect_error(
        [&] { pto::run(rt, [&] { pto::wait(TaskId{pto::detail::TaskPort(rt).next_task_id().value + 5}); }); },
        ErrorCode::InvalidArgument, {"not submitted yet"});
    test::expect_error([&] { pto::run(rt, [&] { pto::wait(earlier); }); }, ErrorCode::InvalidArgument,
                       {"task " + std::to_string(earlier.value), "earlier run"});
    test::expect_error([&] { pto::wait(earlier); }, ErrorCode::NoActiveRun, {"pto::wait"});
    CHECK(data_dependent_graph(rt, std::nullopt, 2) == 3);
}

//   block (runs past stall_timeout_ms) ; wait(block)
TEST_CASE("a wait on a kernel that runs too long ends in Stall instead of hanging", "[runtime][wait]") {
    Counters counters;
    RuntimeConfig c = compute_config(2, OrchestrationMode::Concurrent);
    c.stall_timeout_ms = test::kStallTimeoutMs;  // as the watchdog tests: a loaded machine is no stall
    Runtime rt(c);
    register_all(rt, counters);
    TaskId stuck{};
    test::expect_error(
        [&] {
            pto::run(rt, [&] {
                stuck = submit_aiv(kBlock, Args()).task_id();
                pto::wait(stuck);
            });
        },
        ErrorCode::Stall, {"kernel running too long", "waited for task"});
    counters.release();
    pto::detail::TaskPort(rt).begin_run();  // finishes the aborted run once the kernel returned
    pto::detail::TaskPort(rt).end_run();
    CHECK(data_dependent_graph(rt, ScopeMode::Auto, 1) == 2);
}

//   p -> lost (its fanin never reaches zero) ; wait(lost)
TEST_CASE("a wait for a task that can never become ready is proven a deadlock without the timeout",
          "[runtime][wait][white-box]") {
    RuntimeConfig c;
    c.stall_timeout_ms = 60'000;  // the proof must not need it
    Runtime::Impl rt(c);
    TaskSpec spec;
    spec.core = CoreType::AIV;
    spec.funcs[0] = spec.funcs[1] = spec.funcs[2] = FuncId{0};
    rt.begin_run();
    rt.quiesce_schedulers();
    const TaskId p = rt.submit(spec, {}, false);
    const TaskId lost = rt.submit(spec, std::vector<TaskId>{p}, false);
    // A release that will never come: what a lost fanin decrement would look like.
    rt.engine.tasks[rt.window.slot_of(lost.value)].fanin_pending.fetch_add(1);
    rt.resume_dispatch();
    const TaskId awaited[] = {lost};
    test::expect_error([&] { rt.wait_for(awaited); }, ErrorCode::Stall,
                       {"dependency deadlock", "wait_for (task " + std::to_string(lost.value) + ")"});
    try {
        rt.end_run();
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::Stall);
    }
    rt.begin_run();
    const TaskId x = rt.submit(spec, {}, false);
    const TaskId xs[] = {x};
    rt.wait_for(xs);
    CHECK(rt.end_run().completed == 1);
}
