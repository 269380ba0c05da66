// docs/architecture.md "Threads", white-box: once its orchestration function returned, the orchestrator
// schedules in the place of a sleeping scheduler thread (RuntimeConfig::orchestrator_schedules_at_end). The
// seat protocol of WakeUps (a thread offers its seat while it sleeps, the orchestrator borrows and returns
// it, a thread that woke meanwhile waits and is woken on the return, a push never wakes a lent seat's
// thread), and runs in which the orchestrator did schedule, with every task completed exactly as without.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "host_cpus.h"
#include "parker.h"
#include "runtime_impl.h"
#include "support/cpu_affinity.h"
#include "wake_ups.h"

using namespace pto;
using pto::detail::Parker;
using pto::detail::WakeUps;

namespace {

/// park_for_a_minute: what a sleeping scheduler does, once, on `parker`, until unparked (the minute is only
/// a guard: every check below is made while the thread sleeps or right after it was woken).
void park_for_a_minute(Parker& parker, const std::atomic<bool>& done) {
    parker.park_until([&] { return done.load(); }, Parker::Clock::now() + std::chrono::minutes(1));
}

void wait_until_asleep(Parker& parker) {
    while (!parker.is_asleep())
        std::this_thread::yield();
}

}  // namespace

TEST_CASE("a seat is borrowed only while its thread offers it, and comes back to it", "[runtime][seat]") {
    WakeUps wake(2, 1, true);
    CHECK_FALSE(wake.try_borrow_seat(0));  // held by its awake thread
    wake.offer_seat(0);
    CHECK_FALSE(wake.is_lent(0));
    REQUIRE(wake.try_borrow_seat(0));
    CHECK(wake.is_lent(0));
    CHECK_FALSE(wake.try_borrow_seat(0));  // one borrower at a time
    CHECK_FALSE(wake.is_lent(1));

    CHECK_FALSE(wake.reclaim_seat(0));  // the thread woke while the seat is lent: it must wait
    CHECK_FALSE(wake.seat_returned(0));
    wake.return_seat(0);
    CHECK(wake.seat_returned(0));
    CHECK(wake.reclaim_seat(0));
    CHECK_FALSE(wake.try_borrow_seat(0));  // held again

    wake.offer_seat(1);
    CHECK(wake.reclaim_seat(1));  // nobody borrowed it meanwhile
}

TEST_CASE("returning a seat wakes its thread only if it woke and waits for it", "[runtime][seat]") {
    WakeUps wake(1, 1, true);
    Parker& parker = wake.scheduler_parker(0);
    std::atomic<bool> done{false};

    SECTION("the thread kept sleeping: the return leaves it asleep") {
        wake.offer_seat(0);
        std::thread sleeper([&] { park_for_a_minute(parker, done); });
        wait_until_asleep(parker);
        REQUIRE(wake.try_borrow_seat(0));
        wake.return_seat(0);
        CHECK(parker.is_asleep());  // no wake-up, no context switch
        done.store(true);
        parker.unpark();
        sleeper.join();
        CHECK(wake.reclaim_seat(0));
    }
    SECTION("the thread woke and asked for its seat: the return wakes it") {
        wake.offer_seat(0);
        REQUIRE(wake.try_borrow_seat(0));
        std::atomic<bool> reclaimed{false};
        std::thread waiter([&] {
            // Scheduler::sleep_in_seat after its park.
            while (!wake.reclaim_seat(0))
                parker.park_until([&] { return wake.seat_returned(0); },
                                  Parker::Clock::now() + std::chrono::minutes(1));
            reclaimed.store(true);
        });
        wait_until_asleep(parker);
        CHECK_FALSE(reclaimed.load());
        wake.return_seat(0);
        CHECK_FALSE(parker.is_asleep());  // woken at once, not at its deadline
        waiter.join();
        CHECK(reclaimed.load());
    }
}

TEST_CASE("a push wakes a sleeping scheduler whose seat is not lent", "[runtime][seat]") {
    WakeUps wake(2, 1, true);
    std::atomic<bool> done{false};
    std::vector<std::thread> sleepers;
    for (std::uint32_t i = 0; i < 2; ++i) {
        wake.offer_seat(i);
        wake.enter_sleep();
        sleepers.emplace_back([&, i] { park_for_a_minute(wake.scheduler_parker(i), done); });
    }
    for (std::uint32_t i = 0; i < 2; ++i)
        wait_until_asleep(wake.scheduler_parker(i));
    REQUIRE(wake.try_borrow_seat(0));  // the orchestrator schedules in scheduler 0's place

    wake.wake_sleeping_schedulers();  // nobody awake: one is woken, and not the lent seat's thread
    CHECK(wake.scheduler_parker(0).is_asleep());
    CHECK_FALSE(wake.scheduler_parker(1).is_asleep());

    done.store(true);
    for (std::uint32_t i = 0; i < 2; ++i)
        wake.scheduler_parker(i).unpark();
    for (std::thread& t : sleepers)
        t.join();
    wake.return_seat(0);
}

TEST_CASE("the orchestrator takes a sleeping scheduler's place only in concurrent instant runs on two CPUs",
          "[runtime][seat][white-box]") {
    const auto helps = [](OrchestrationMode mode, Executor executor, bool knob) {
        RuntimeConfig config;
        config.orchestration = mode;
        config.executor = executor;
        config.orchestrator_schedules_at_end = knob;
        return Runtime::Impl(config).helps_at_end;
    };
    CHECK(helps(OrchestrationMode::Concurrent, Executor::Instant, true) == (pto::detail::usable_cpus() > 1));
    CHECK_FALSE(helps(OrchestrationMode::Concurrent, Executor::Instant, false));
    CHECK_FALSE(helps(OrchestrationMode::Serial, Executor::Instant, true));
    CHECK_FALSE(helps(OrchestrationMode::Concurrent, Executor::Timed, true));
    CHECK_FALSE(helps(OrchestrationMode::Concurrent, Executor::Compute, true));
    const pto::test::OneCpu one_cpu;  // the scheduler standing aside would spin on the orchestrator's CPU
    REQUIRE(one_cpu.pinned());
    CHECK_FALSE(helps(OrchestrationMode::Concurrent, Executor::Instant, true));
}

TEST_CASE("the orchestrator schedules the end of a run in a sleeping scheduler's place",
          "[runtime][seat][white-box]") {
    // A run that leaves everything to its end: the root is an alloc task (complete when submitted) and the
    // open scope stages every edge until end_run flushes them, so no task is ready during the
    // orchestration; end_run comes once every scheduler sleeps, whatever the speed of the host. The flush
    // wakes at most one (two CPUs: one awake), so a sleeping one is left to take the place of. Every run
    // completes every task, each subtask once, whoever dispatched it.
    const auto orchestrator_loops = [](bool knob) {
        RuntimeConfig config;
        config.scheduler_threads = 3;
        config.window_tasks = 1024;
        config.orchestrator_schedules_at_end = knob;
        Runtime::Impl rt(config);
        const TensorCreateInfo scratch(DataType::F32, {16});
        std::uint64_t loops = 0;
        for (int run = 0; run < 10; ++run) {
            rt.begin_run();
            std::vector<TaskId> layer{rt.submit_alloc({&scratch, 1}, /*scoped=*/true)};
            for (int l = 0; l < 20; ++l) {
                std::vector<TaskId> next;
                for (std::uint32_t w = 0; w < 8; ++w) {
                    TaskSpec spec;
                    spec.core = CoreType::AIV;
                    spec.block_num = 1 + w % 4;
                    next.push_back(rt.submit(spec, layer, /*scoped=*/true));
                }
                layer = next;
            }
            const auto asleep = [&] {
                for (std::uint32_t i = 0; i < config.scheduler_threads; ++i)
                    if (rt.engine.wake.is_held(i)) return false;
                return true;
            };
            while (!asleep())
                std::this_thread::yield();
            const RunReport r = rt.end_run();
            REQUIRE(r.submitted == 161);
            REQUIRE(r.completed == r.submitted);
            REQUIRE(r.failed + r.cancelled == 0);
            std::uint64_t subtasks = 0;
            for (const SchedulerStats& s : r.schedulers) {
                loops += s.orchestrator_loops;
                CHECK(s.orchestrator_loops <= s.loops);
                subtasks += s.subtasks_completed;
            }
            CHECK(subtasks == r.subtasks);
        }
        return loops;
    };
    if (pto::detail::usable_cpus() > 1) CHECK(orchestrator_loops(true) >= 1);
    CHECK(orchestrator_loops(false) == 0);
}
