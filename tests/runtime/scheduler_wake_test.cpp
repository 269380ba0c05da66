// docs/architecture.md "Threads" (how schedulers are woken), white-box: how many scheduler threads a push of
// ready work keeps awake on a host with fewer CPUs than threads, and that under that limit every task still
// runs: a run with more scheduler threads than CPUs, ready work from the orchestrator and from completions,
// back-pressure and waits, repeated, ends with every task completed (none left for a thread kept asleep);
// when an idle instant scheduler stops waiting for the orchestrator to publish a batch; and which scheduler
// lingers after a run for the next one, and what ends its spin.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

#include "host_cpus.h"
#include "parker.h"
#include "pto/scope/orchestration.h"
#include "run_progress.h"
#include "runtime_impl.h"
#include "support/cpu_affinity.h"
#include "wake_ups.h"

using namespace pto;
using pto::detail::awake_scheduler_limit;
using pto::detail::WakeUps;

TEST_CASE("the instant executor keeps one awake scheduler per CPU but the orchestrator's",
          "[runtime][wake]") {
    CHECK(awake_scheduler_limit(Executor::Instant, 3, 1) == 1);  // at least one stays wakeable
    CHECK(awake_scheduler_limit(Executor::Instant, 3, 2) == 1);
    CHECK(awake_scheduler_limit(Executor::Instant, 3, 3) == 2);
    CHECK(awake_scheduler_limit(Executor::Instant, 3, 4) == 3);
    CHECK(awake_scheduler_limit(Executor::Instant, 3, 64) == 3);
    CHECK(awake_scheduler_limit(Executor::Instant, 1, 1) == 1);
    CHECK(awake_scheduler_limit(Executor::Instant, 4, 0) == 1);
    // A block of the timed and compute executors may need a sleeping thread's idle core: all stay wakeable.
    for (Executor e : {Executor::Timed, Executor::Compute}) {
        CHECK(awake_scheduler_limit(e, 3, 1) == 3);
        CHECK(awake_scheduler_limit(e, 3, 2) == 3);
        CHECK(awake_scheduler_limit(e, 5, 64) == 5);
    }
    CHECK(pto::detail::usable_cpus() >= 1);
}

TEST_CASE("an idle scheduler parks at once while more than the limit are awake", "[runtime][wake]") {
    WakeUps wake(3, 1, true);
    CHECK(wake.over_awake_limit());  // three awake, one kept
    wake.enter_sleep();
    CHECK(wake.over_awake_limit());
    wake.enter_sleep();
    CHECK_FALSE(wake.over_awake_limit());  // the last awake one stays to take the work
    wake.enter_sleep();
    CHECK_FALSE(wake.over_awake_limit());
    wake.leave_sleep();
    wake.leave_sleep();
    CHECK(wake.over_awake_limit());  // two awake

    WakeUps every(3, 3, false);  // timed and compute: never over the limit
    CHECK_FALSE(every.over_awake_limit());
}

#if defined(__linux__)
namespace {

constexpr FuncId kCount{0};

}  // namespace

TEST_CASE("with one CPU and three scheduler threads, every task of every run completes", "[runtime][wake]") {
    const pto::test::OneCpu one_cpu;
    REQUIRE(one_cpu.pinned());
    REQUIRE(pto::detail::usable_cpus() == 1);
    RuntimeConfig config;
    config.scheduler_threads = 3;
    config.window_tasks = 64;  // back-pressure: the orchestrator waits for retirements
    Runtime rt(config);
    rt.register_kernel(kCount, KernelInfo{"count", 1.0});
    constexpr int kLayers = 40;
    constexpr int kWidth = 8;
    for (int round = 0; round < 20; ++round) {
        const RunReport r = pto::run(rt, [&] {
            std::vector<TaskId> layer;
            for (int l = 0; l < kLayers; ++l) {
                PTO2_SCOPE(MANUAL) {
                    std::vector<TaskId> next;
                    for (int w = 0; w < kWidth; ++w) {
                        Args args;
                        args.set_dependencies(layer).block_num(static_cast<std::uint32_t>(1 + w % 3));
                        next.push_back(
                            (w % 2 == 0 ? submit_aiv(kCount, args) : submit_aic(kCount, args)).task_id());
                    }
                    layer = next;
                }
                if (l % 10 == 9) pto::wait(layer.front());  // woken by that task's completer
            }
        });
        REQUIRE(r.submitted == static_cast<std::uint64_t>(kLayers * kWidth));
        REQUIRE(r.completed == r.submitted);
        REQUIRE(r.failed + r.cancelled == 0);
    }
}
#endif

TEST_CASE("a spin before parking returns as soon as its condition holds, and gives up after its polls",
          "[runtime][wake]") {
    using pto::detail::Parker;
    std::uint32_t calls = 0;
    CHECK(Parker::spin_until([&] { return ++calls == 5; }, 100));
    CHECK(calls == 5);  // stopped at the first true
    calls = 0;
    CHECK_FALSE(Parker::spin_until([&] { return ++calls > 1000; }, 100));
    CHECK(calls == 101);  // every poll, then the last check
    calls = 0;
    CHECK_FALSE(Parker::spin_until([&] { return ++calls > 1000; }, 0));
    CHECK(calls == 1);  // no spin (one CPU): the check alone
}

TEST_CASE("idle instant schedulers wait for a batch only while the orchestrator is submitting",
          "[runtime][wake]") {
    // Scheduler::wait_for_batch ends as soon as this hint holds: a waiting orchestrator and the end of a
    // run's orchestration must not wait for a scheduler's poll.
    using pto::detail::RunProgress;
    RunProgress progress;
    progress.start_run();
    CHECK_FALSE(progress.orchestrator_stopped());
    progress.await_slot(7);  // back-pressure or pto::wait
    CHECK(progress.orchestrator_stopped());
    progress.stop_awaiting();
    CHECK_FALSE(progress.orchestrator_stopped());
    progress.end_submission(42);  // the orchestration function returned
    CHECK(progress.orchestrator_stopped());
    progress.start_run();  // the next run submits again
    CHECK_FALSE(progress.orchestrator_stopped());
}

TEST_CASE("an idle instant scheduler waits for the orchestrator while it submits, never in serial mode",
          "[runtime][wake]") {
    // The orchestration function pauses between submits, so an awake scheduler runs idle passes while the
    // run is still being submitted: concurrently it waits for a batch after them; in serial mode the
    // schedulers start once the orchestration ended, so there is nothing to wait for.
    constexpr FuncId kTask{0};
    const auto batch_waits = [](OrchestrationMode mode) {
        RuntimeConfig config;
        config.orchestration = mode;
        Runtime rt(config);
        rt.register_kernel(kTask, KernelInfo{"task", 1.0});
        const RunReport r = pto::run(rt, [&] {
            for (int i = 0; i < 5; ++i) {
                submit_aiv(kTask, Args());
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        });
        REQUIRE(r.completed == 5);
        std::uint64_t waits = 0;
        for (const SchedulerStats& s : r.schedulers)
            waits += s.batch_waits;
        return waits;
    };
    CHECK(batch_waits(OrchestrationMode::Concurrent) >= 1);
    CHECK(batch_waits(OrchestrationMode::Serial) == 0);
}

TEST_CASE("a scheduler awake at the end of a concurrent run lingers for the next, never in serial mode",
          "[runtime][wake]") {
    // Back-to-back runs find the scheduler that drained the last one still spinning (scheduler_linger_us),
    // so they need no wake-up; with no linger, in serial mode, or with one usable CPU, it parks at once.
    // A scheduler may also have parked for lack of work before the run's end, so only "some of ten runs"
    // is certain. The long linger also checks that destroying the runtime ends the spin.
    constexpr FuncId kTask{0};
    const auto runs_started_awake = [](OrchestrationMode mode, std::uint32_t linger_us) {
        RuntimeConfig config;
        config.orchestration = mode;
        config.scheduler_linger_us = linger_us;
        Runtime rt(config);
        rt.register_kernel(kTask, KernelInfo{"task", 1.0});
        std::uint64_t awake = 0;
        for (int run = 0; run < 10; ++run) {
            const RunReport r = pto::run(rt, [&] { submit_aiv(kTask, Args()); });
            REQUIRE(r.completed == 1);
            for (const SchedulerStats& s : r.schedulers)
                awake += s.awake_at_run_start;
        }
        return awake;
    };
    if (pto::detail::usable_cpus() > 1)
        CHECK(runs_started_awake(OrchestrationMode::Concurrent, 5'000'000) >= 1);
    else
        CHECK(runs_started_awake(OrchestrationMode::Concurrent, 5'000'000) == 0);
    CHECK(runs_started_awake(OrchestrationMode::Concurrent, 0) == 0);
    CHECK(runs_started_awake(OrchestrationMode::Serial, 5'000'000) == 0);
}

TEST_CASE("a lingering scheduler acknowledges a new quiesce at once", "[runtime][wake][white-box]") {
    // After a run the awake scheduler acknowledges the quiesce and lingers; a second quiesce (a deadlock
    // proof, a recovery) must not wait out the linger for its acknowledgement. Acknowledged at once, the
    // scheduler lingers anew and the next run finds it awake; made to wait out its 10 s linger, it parks
    // and the next run has to wake it.
    if (pto::detail::usable_cpus() < 2) return;  // no linger on one CPU
    RuntimeConfig config;
    config.scheduler_linger_us = 10'000'000;
    Runtime::Impl rt(config);
    TaskSpec spec;
    spec.kind = TaskKind::Kernel;
    spec.core = CoreType::AIV;
    rt.begin_run();
    rt.submit(spec, {}, false);
    REQUIRE(rt.end_run().completed == 1);
    // A scheduler that parked for lack of work before the quiesce acknowledges it at its park limit (a
    // tenth of a second), then lingers.
    while (rt.engine.wake.lingering() == 0)
        std::this_thread::yield();
    rt.quiesce_schedulers();
    rt.begin_run();
    rt.submit(spec, {}, false);
    const RunReport r = rt.end_run();
    CHECK(r.completed == 1);
    std::uint64_t awake = 0;
    for (const SchedulerStats& s : r.schedulers)
        awake += s.awake_at_run_start;
    CHECK(awake >= 1);
}

TEST_CASE("at most one scheduler per CPU but the orchestrator's lingers for the next run",
          "[runtime][wake]") {
    using pto::detail::schedulers_beside_orchestrator;
    CHECK(schedulers_beside_orchestrator(3, 2) == 1);
    CHECK(schedulers_beside_orchestrator(3, 1) == 1);
    CHECK(schedulers_beside_orchestrator(3, 8) == 3);
    CHECK(schedulers_beside_orchestrator(4, 3) == 2);
    WakeUps wake(3, 3, false);  // a timed run: all three awake at its end
    CHECK(wake.try_linger(2));
    CHECK(wake.try_linger(2));
    CHECK_FALSE(wake.try_linger(2));  // the third parks at once
    wake.stop_lingering();
    CHECK(wake.try_linger(2));  // a place came free
}

TEST_CASE("the start of a run wakes schedulers only up to the awake limit, counting those awake",
          "[runtime][wake]") {
    // One of three schedulers parks; the other two are awake (lingering after a run): with a limit of one
    // the start of a run wakes nobody. Once all three sleep, it wakes exactly one.
    WakeUps wake(3, 1, true);
    std::atomic<bool> go{false};
    std::atomic<int> woken{0};
    std::thread sleeper([&] {
        wake.enter_sleep();
        wake.scheduler_parker(0).park_until([&] { return go.load(std::memory_order_seq_cst); },
                                            pto::detail::Parker::Clock::now() + std::chrono::seconds(30));
        wake.leave_sleep();
        woken.fetch_add(1);
    });
    while (!wake.scheduler_parker(0).is_asleep())
        std::this_thread::yield();
    wake.wake_for_dispatch();  // two awake: nobody to wake
    CHECK(wake.scheduler_parker(0).is_asleep());
    wake.enter_sleep();  // the other two park too
    wake.enter_sleep();
    go.store(true, std::memory_order_seq_cst);
    wake.wake_for_dispatch();  // none awake: one woken
    sleeper.join();
    CHECK(woken.load() == 1);
    wake.leave_sleep();
    wake.leave_sleep();
}
