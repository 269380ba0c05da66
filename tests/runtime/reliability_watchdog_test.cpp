// docs/reliability.md, conformance and white-box: the watchdog turns "no progress for stall_timeout_ms" into
// a classified stall report with the stuck task ids instead of a hang. Kernel-too-long is provoked through
// the public API (a compute kernel blocked on a flag, a timed kernel of a quarter of an hour);
// ready-but-not-dispatched and dependency deadlock cannot happen in a correct runtime, so they are provoked
// through Runtime::Impl (schedulers quiesced, a fanin counter inflated); starvation is an orchestration
// function gone quiet.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "pto/runtime/runtime.h"
#include "pto/scope/orchestration.h"
#include "runtime_impl.h"
#include "support/stall_timeouts.h"
#include "watchdog.h"

using namespace pto;

namespace {

constexpr FuncId kBlock{0};
constexpr FuncId kOk{1};
constexpr std::uint32_t kTimeoutMs = test::kStallTimeoutMs;

/// Gate: a kernel that blocks until the test opens the gate, so "a kernel running too long" is real
/// without a kernel that never returns.
struct Gate {
    std::atomic<bool> open{false};
    std::atomic<int> entered{0};
    std::atomic<int> returned{0};
    std::atomic<int> ok_runs{0};

    void release() {
        open.store(true);
        open.notify_all();
    }
    static int blocking(const KernelContext& ctx) {
        auto* g = static_cast<Gate*>(ctx.user);
        g->entered.fetch_add(1);
        g->open.wait(false);
        g->returned.fetch_add(1);
        return 0;
    }
    static int ok(const KernelContext& ctx) {
        static_cast<Gate*>(ctx.user)->ok_runs.fetch_add(1);
        return 0;
    }
};

RuntimeConfig small_compute_config() {
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.cluster_count = 2;
    c.scheduler_threads = 2;
    c.compute_threads = 2;
    c.stall_timeout_ms = kTimeoutMs;
    return c;
}

/// wait_until: polls `done` (a hang guard of 60 s, never a synchronisation by sleeping).
template <class Pred>
bool wait_until(Pred done) {
    const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!done()) {
        if (std::chrono::steady_clock::now() > limit) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

/// submit_allocs: `n` alloc tasks of one small buffer each, outside any scope; the last one's id.
TaskId submit_allocs(Runtime::Impl& rt, int n) {
    const TensorCreateInfo info(DataType::F32, {16});
    TaskId last;
    for (int i = 0; i < n; ++i)
        last = rt.submit_alloc(std::span<const TensorCreateInfo>(&info, 1), false);
    return last;
}

TaskSpec kernel_spec(CoreType core = CoreType::AIV) {
    TaskSpec s;
    s.core = core;
    s.funcs[0] = s.funcs[1] = s.funcs[2] = FuncId{0};
    return s;
}

}  // namespace

//   stuck (blocks until the gate opens) -- d1 -- d2
TEST_CASE("a compute kernel running past stall_timeout_ms aborts the run with a kernel-too-long report",
          "[runtime][watchdog]") {
    Gate gate;
    Runtime rt(small_compute_config());
    rt.register_kernel(kBlock, KernelInfo{"block", 1.0, &Gate::blocking, &gate});
    rt.register_kernel(kOk, KernelInfo{"ok", 1.0, &Gate::ok, &gate});
    TaskId stuck;
    try {
        pto::run(rt, [&] {
            stuck = submit_aiv(kBlock, Args()).task_id();
            const TaskId d1 = submit_aiv(kOk, Args().set_dependencies(&stuck, 1)).task_id();
            submit_aic(kOk, Args().set_dependencies(&d1, 1));
        });
        FAIL("expected Stall");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::Stall);
        CHECK_THAT(e.what(), Catch::Contains("kernel running too long") &&
                                 Catch::Contains("RuntimeConfig::stall_timeout_ms") &&
                                 Catch::Contains("stuck task ids: " + std::to_string(stuck.value)) &&
                                 Catch::Contains("still run after the grace period"));
    }
    // The kernel still runs: the report so far says what happened; counts come when the run drained.
    {
        const RunReport& r = rt.last_report();
        CHECK(r.aborted);
        CHECK(r.submitted == 3);
        REQUIRE(r.stalls.size() == 1);
        CHECK(r.stalls[0].kind == StallKind::KernelTooLong);
        CHECK(r.stalls[0].tasks == std::vector<TaskId>{stuck});
        CHECK(r.stalls[0].aborted_run);
        CHECK(r.stalls[0].at_ns >= std::int64_t{kTimeoutMs} * 1'000'000);
    }
    CHECK(gate.entered.load() == 1);
    try {
        rt.register_kernel(FuncId{5}, KernelInfo{"late", 1.0, &Gate::ok, &gate});
        FAIL("expected RunInProgress");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::RunInProgress);
        CHECK_THAT(e.what(), Catch::Contains("aborted run"));
    }

    // Once the kernel returns, the next run first finishes the aborted one: its dependants were cancelled.
    gate.release();
    pto::detail::TaskPort(rt).begin_run();
    const RunReport drained = rt.last_report();
    pto::detail::TaskPort(rt).end_run();
    CHECK(drained.aborted);
    CHECK(drained.submitted == 3);
    CHECK(drained.completed == 1);  // the stuck kernel itself returned successfully
    CHECK(drained.cancelled == 2);
    CHECK(drained.failed == 0);
    REQUIRE_FALSE(drained.stalls.empty());
    CHECK(drained.stalls[0].kind == StallKind::KernelTooLong);
    CHECK(gate.ok_runs.load() == 0);

    const RunReport good = pto::run(rt, [] {
        const TaskId a = submit_aiv(kOk, Args()).task_id();
        submit_aic(kOk, Args().set_dependencies(&a, 1));
    });
    CHECK(good.completed == 2);
    CHECK(good.stalls.empty());
    CHECK_FALSE(good.aborted);
    CHECK(gate.ok_runs.load() == 2);
}

//   long (a quarter of an hour, simulated) -- d1 -- d2;  mix (independent, short)
TEST_CASE("a timed kernel far longer than stall_timeout_ms is cut short by the abort",
          "[runtime][watchdog]") {
    RuntimeConfig c;
    c.executor = Executor::Timed;
    c.cluster_count = 2;
    c.scheduler_threads = 2;
    c.stall_timeout_ms = kTimeoutMs;
    Runtime rt(c);
    rt.register_kernel(kBlock, KernelInfo{"long", 900e6, nullptr, nullptr});
    rt.register_kernel(kOk, KernelInfo{"short", 1.0, nullptr, nullptr});
    TaskId long_task;
    try {
        pto::run(rt, [&] {
            long_task = submit_aic(kBlock, Args()).task_id();
            const TaskId d1 = submit_aiv(kOk, Args().set_dependencies(&long_task, 1)).task_id();
            submit_mix(kOk, kOk, kOk, Args().set_dependencies(&d1, 1));
        });
        FAIL("expected Stall");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::Stall);
        CHECK_THAT(e.what(), Catch::Contains("kernel running too long") &&
                                 Catch::Contains("stuck task ids: " + std::to_string(long_task.value)) &&
                                 Catch::Contains(
                                     "the run was aborted: 2 task(s) cancelled, 1 failed, 0 completed of 3"));
    }
    const RunReport& r = rt.last_report();
    CHECK(r.aborted);
    CHECK(r.submitted == 3);
    CHECK(r.failed == 1);
    CHECK(r.cancelled == 2);
    CHECK(r.completed + r.failed + r.cancelled == r.submitted);
    REQUIRE(r.failures.size() == 1);
    CHECK(r.failures[0].task == long_task);
    CHECK_THAT(r.failures[0].message, Catch::Contains("aborted"));
    REQUIRE(r.stalls.size() == 1);
    CHECK(r.stalls[0].kind == StallKind::KernelTooLong);
    CHECK(r.stalls[0].tasks == std::vector<TaskId>{long_task});

    const RunReport good = pto::run(rt, [] { submit_aiv(kOk, Args().block_num(4)); });
    CHECK(good.completed == 1);
    CHECK(good.stalls.empty());
}

TEST_CASE("a stall while the orchestrator waits for a window slot aborts the run from the submit",
          "[runtime][watchdog][capacity]") {
    Gate gate;
    RuntimeConfig c = small_compute_config();
    c.window_tasks = 8;
    Runtime rt(c);
    rt.register_kernel(kBlock, KernelInfo{"block", 1.0, &Gate::blocking, &gate});
    rt.register_kernel(kOk, KernelInfo{"ok", 1.0, &Gate::ok, &gate});
    TaskId stuck;
    std::uint64_t submitted = 0;
    try {
        pto::run(rt, [&] {
            stuck = submit_aiv(kBlock, Args()).task_id();
            TaskId previous = stuck;
            // Each task waits for the one before: the window fills behind the stuck kernel.
            for (int i = 0; i < 100; ++i) {
                previous = submit_aiv(kOk, Args().set_dependencies(&previous, 1)).task_id();
                ++submitted;
            }
        });
        FAIL("expected Stall");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::Stall);
        CHECK_THAT(e.what(), Catch::Contains("kernel running too long") &&
                                 Catch::Contains("while waiting for RuntimeConfig::window_tasks") &&
                                 Catch::Contains("stuck task ids: " + std::to_string(stuck.value)));
    }
    CHECK(submitted == 7);  // the window holds 8 tasks
    gate.release();
    pto::detail::TaskPort(rt).begin_run();
    const RunReport drained = rt.last_report();
    pto::detail::TaskPort(rt).end_run();
    CHECK(drained.aborted);
    CHECK(drained.submitted == 8);
    CHECK(drained.completed == 1);
    CHECK(drained.cancelled == 7);
    REQUIRE_FALSE(drained.stalls.empty());
    CHECK(drained.stalls[0].kind == StallKind::KernelTooLong);
    CHECK(drained.stalls[0].aborted_run);
    CHECK(gate.ok_runs.load() == 0);
}

TEST_CASE("SPMD blocks that keep finishing are progress even when no task ends for longer than the timeout",
          "[runtime][watchdog]") {
    RuntimeConfig c;
    c.executor = Executor::Timed;
    c.cluster_count = 1;  // 2 AIV cores: 24 blocks of 200 ms take 2.4 s, with one task in flight
    c.scheduler_threads = 1;
    c.stall_timeout_ms = kTimeoutMs;
    Runtime rt(c);
    rt.register_kernel(kOk, KernelInfo{"block", 200e3, nullptr, nullptr});
    const RunReport r = pto::run(rt, [] { submit_aiv(kOk, Args().block_num(24)); });
    CHECK(r.completed == 1);
    CHECK(r.stalls.empty());
    CHECK_FALSE(r.aborted);
}

TEST_CASE("a runtime destroyed while an aborted run's kernel still runs waits for the kernel",
          "[runtime][watchdog]") {
    Gate gate;
    std::thread releaser;
    {
        Runtime rt(small_compute_config());
        rt.register_kernel(kBlock, KernelInfo{"block", 1.0, &Gate::blocking, &gate});
        CHECK_THROWS_AS(pto::run(rt, [] { submit_aiv(kBlock, Args()); }), Error);
        // Either order of "release" and "destroy" must be safe: the destructor waits for the kernel.
        releaser = std::thread([&] { gate.release(); });
    }
    // Checked before joining the releaser: only the runtime's destructor can have waited for the kernel.
    CHECK(gate.returned.load() == 1);
    releaser.join();
    CHECK(gate.entered.load() == 1);
}

// ---- White-box: the watchdog's own thread -----------------------------------------------------------------

TEST_CASE("starting and ending runs does not wake the watchdog's thread", "[runtime][watchdog][white-box]") {
    // It samples on its own period (a quarter of the timeout, 15 s here): waking it at every run's start
    // cost each run a futex call on the orchestrator and a thread switch beside the schedulers.
    RuntimeConfig c;
    c.stall_timeout_ms = 60'000;
    Runtime::Impl rt(c);
    const std::uint64_t before = rt.watchdog->wakeups();
    for (int i = 0; i < 20; ++i) {
        rt.begin_run();
        rt.submit(kernel_spec(), {}, false);
        CHECK(rt.end_run().completed == 1);
    }
    CHECK(rt.watchdog->wakeups() == before);
}

// ---- White-box: classes a correct runtime never produces, provoked through Runtime::Impl ------------------

TEST_CASE(
    "tasks queued while no scheduler dispatches are reported as ready but not dispatched, and cancelled",
    "[runtime][watchdog][white-box]") {
    RuntimeConfig c;
    c.stall_timeout_ms = kTimeoutMs;
    Runtime::Impl rt(c);
    rt.begin_run();
    rt.quiesce_schedulers();  // the schedulers stop dispatching: the failure this class describes
    const TaskId a = rt.submit(kernel_spec(), {}, false);
    const TaskId b = rt.submit(kernel_spec(CoreType::AIC), std::vector<TaskId>{a}, false);
    const TaskId d = rt.submit(kernel_spec(CoreType::MIX), {}, false);
    try {
        rt.end_run();
        FAIL("expected Stall");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::Stall);
        CHECK_THAT(e.what(), Catch::Contains("ready but not dispatched") &&
                                 Catch::Contains("the run was aborted: 3 task(s) cancelled, 0 failed"));
    }
    const RunReport& r = rt.last_report;
    CHECK(r.cancelled == 3);
    CHECK(r.completed + r.failed + r.cancelled == r.submitted);
    REQUIRE(r.stalls.size() == 1);
    CHECK(r.stalls[0].kind == StallKind::ReadyNotDispatched);
    CHECK(r.stalls[0].tasks == std::vector<TaskId>{a, b, d});
    CHECK(r.stalls[0].aborted_run);

    rt.begin_run();  // dispatch is enabled again
    const TaskId x = rt.submit(kernel_spec(), {}, false);
    rt.submit(kernel_spec(), std::vector<TaskId>{x}, false);
    const RunReport good = rt.end_run();
    CHECK(good.completed == 2);
    CHECK(good.stalls.empty());
}

TEST_CASE("a task whose fanin never reaches zero is reported as a dependency deadlock and cancelled",
          "[runtime][watchdog][white-box]") {
    RuntimeConfig c;
    c.stall_timeout_ms = kTimeoutMs;
    Runtime::Impl rt(c);
    rt.begin_run();
    rt.quiesce_schedulers();
    const TaskId p = rt.submit(kernel_spec(), {}, false);
    const TaskId lost = rt.submit(kernel_spec(), std::vector<TaskId>{p}, false);
    const TaskId after = rt.submit(kernel_spec(), std::vector<TaskId>{lost}, false);
    // A release that will never come: what a lost fanin decrement would look like.
    rt.engine.tasks[rt.window.slot_of(lost.value)].fanin_pending.fetch_add(1);
    rt.resume_dispatch();
    try {
        rt.end_run();
        FAIL("expected Stall");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::Stall);
        CHECK_THAT(e.what(), Catch::Contains("dependency deadlock") &&
                                 Catch::Contains("stuck task ids: " + std::to_string(lost.value) + " " +
                                                 std::to_string(after.value)));
    }
    const RunReport& r = rt.last_report;
    CHECK(r.completed == 1);
    CHECK(r.cancelled == 2);
    CHECK(r.completed + r.failed + r.cancelled == r.submitted);
    REQUIRE(r.stalls.size() == 1);
    CHECK(r.stalls[0].kind == StallKind::DependencyDeadlock);
    CHECK(r.stalls[0].tasks == std::vector<TaskId>{lost, after});

    rt.begin_run();
    const TaskId x = rt.submit(kernel_spec(), {}, false);
    rt.submit(kernel_spec(), std::vector<TaskId>{x}, false);
    const RunReport good = rt.end_run();
    CHECK(good.completed == 2);
    CHECK(good.stalls.empty());
}

TEST_CASE("an orchestration function gone quiet is reported as orchestrator starvation without an abort",
          "[runtime][watchdog][white-box]") {
    const OrchestrationMode mode = GENERATE(OrchestrationMode::Concurrent, OrchestrationMode::Serial);
    RuntimeConfig c;
    c.stall_timeout_ms = kTimeoutMs;
    c.orchestration = mode;
    Runtime::Impl rt(c);
    rt.begin_run();
    const TaskId a = rt.submit(kernel_spec(), {}, false);
    rt.submit(kernel_spec(), std::vector<TaskId>{a}, false);
    // The orchestration function "computes" here; the watchdog notices, but only reports.
    REQUIRE(wait_until([&] { return rt.watchdog->latest().message.size() > 0; }));
    CHECK_FALSE(rt.watchdog->stalled());
    rt.submit(kernel_spec(), {}, false);
    const RunReport r = rt.end_run();
    CHECK(r.completed == 3);
    CHECK_FALSE(r.aborted);
    REQUIRE(r.stalls.size() == 1);
    CHECK(r.stalls[0].kind == StallKind::OrchestratorStarvation);
    CHECK(r.stalls[0].tasks.empty());
    CHECK_FALSE(r.stalls[0].aborted_run);
    CHECK_THAT(r.stalls[0].message,
               Catch::Contains("orchestrator starvation") &&
                   Catch::Contains(mode == OrchestrationMode::Serial ? "serial mode: 2 submitted task(s) wait"
                                                                     : "all 2 submitted task(s) finished"));
}

TEST_CASE("a stall report counts the tasks that ended on the orchestrator and wait to be counted",
          "[runtime][watchdog][white-box]") {
    // Alloc tasks end at submission and join the run's finished count in batches; the watchdog must see
    // them anyway, or it would call them unfinished.
    RuntimeConfig c;
    c.stall_timeout_ms = kTimeoutMs;
    Runtime::Impl rt(c);
    rt.begin_run();
    submit_allocs(rt, 3);
    rt.submit(kernel_spec(), {}, false);
    REQUIRE(wait_until([&] { return rt.watchdog->latest().message.size() > 0; }));
    const RunReport r = rt.end_run();
    CHECK(r.completed == 4);
    REQUIRE(r.stalls.size() == 1);
    CHECK(r.stalls[0].kind == StallKind::OrchestratorStarvation);
    CHECK_THAT(r.stalls[0].message, Catch::Contains("all 4 submitted task(s) finished"));
}

TEST_CASE("every task that ends on the orchestrator is counted when the run ends",
          "[runtime][watchdog][white-box]") {
    // The orchestrator counts its own completions in batches (Runtime::Impl::kFinishedBatch); whatever
    // the batch holds when orchestration ends must still reach the count the end of the run waits for.
    const int allocs = GENERATE(1, 63, 64, 65, 200);
    RuntimeConfig c;
    c.stall_timeout_ms = kTimeoutMs;
    Runtime::Impl rt(c);
    rt.begin_run();
    const TaskId last = submit_allocs(rt, allocs);
    rt.submit(kernel_spec(), std::vector<TaskId>{last}, false);
    const RunReport r = rt.end_run();
    CHECK(r.completed == static_cast<std::uint64_t>(allocs) + 1);
    CHECK(r.stalls.empty());
    CHECK_FALSE(r.aborted);
}

TEST_CASE("the stall classifier follows its decision table", "[runtime][watchdog][white-box]") {
    detail::StallFacts f;
    f.timeout_ms = 250;
    f.submitted = 10;
    f.finished = 4;
    f.oldest_unretired = 100;
    f.unfinished = {104, 105, 107};
    f.orchestrator_waiting = true;

    SECTION("a busy core is a kernel running too long, naming the running tasks") {
        f.busy_cores = 3;
        f.running = {105, 104, 105};
        f.oldest_running_ns = 1'500'000'000;
        const StallReport r = detail::classify_stall(f);
        CHECK(r.kind == StallKind::KernelTooLong);
        CHECK(r.tasks == std::vector<TaskId>{TaskId{104}, TaskId{105}});
        CHECK_THAT(r.message,
                   Catch::StartsWith("stall: kernel running too long after 250 ms without progress "
                                     "(RuntimeConfig::stall_timeout_ms): 3 core(s) busy, the oldest "
                                     "subtask running for 1500 ms") &&
                       Catch::EndsWith("stuck task ids: 104 105"));
    }
    SECTION("queued work with idle cores is ready but not dispatched") {
        f.ready_queued = true;
        const StallReport r = detail::classify_stall(f);
        CHECK(r.kind == StallKind::ReadyNotDispatched);
        CHECK(r.tasks == std::vector<TaskId>{TaskId{104}, TaskId{105}, TaskId{107}});
    }
    SECTION("queued work in serial mode while the orchestration function runs is starvation") {
        f.ready_queued = true;
        f.dispatch_enabled = false;
        f.orchestrator_waiting = false;
        CHECK(detail::classify_stall(f).kind == StallKind::OrchestratorStarvation);
    }
    SECTION("unfinished work nobody can start is a dependency deadlock once the orchestrator waits") {
        const StallReport r = detail::classify_stall(f);
        CHECK(r.kind == StallKind::DependencyDeadlock);
        CHECK(r.tasks == std::vector<TaskId>{TaskId{104}, TaskId{105}, TaskId{107}});
        f.orchestrator_waiting = false;  // it may still hold consumers it has not linked
        CHECK(detail::classify_stall(f).kind == StallKind::OrchestratorStarvation);
    }
    SECTION("everything finished but the orchestrator waits for a retirement: a dependency deadlock") {
        f.finished = 10;
        f.unfinished.clear();
        const StallReport r = detail::classify_stall(f);
        CHECK(r.kind == StallKind::DependencyDeadlock);
        CHECK(r.tasks == std::vector<TaskId>{TaskId{100}});
    }
    SECTION("everything finished and the orchestration function is quiet: starvation") {
        f.finished = 10;
        f.unfinished.clear();
        f.orchestrator_waiting = false;
        const StallReport r = detail::classify_stall(f);
        CHECK(r.kind == StallKind::OrchestratorStarvation);
        CHECK(r.tasks.empty());
        CHECK_THAT(r.message, Catch::Contains("all 10 submitted task(s) finished"));
    }
    SECTION("at most 16 stuck ids are listed") {
        f.busy_cores = 40;
        for (std::uint64_t i = 0; i < 40; ++i)
            f.running.push_back(200 + i);
        CHECK(detail::classify_stall(f).tasks.size() == detail::kMaxStuckIds);
    }
    CHECK(std::string(to_string(StallKind::ReadyNotDispatched)) == "ready but not dispatched");
}
