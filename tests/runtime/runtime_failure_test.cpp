// docs/reliability.md, conformance: a failing kernel marks its task failed, its dependants are cancelled
// without running, the run reports the task, the counts add up, and the runtime runs again.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "pto/runtime/runtime.h"
#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

struct Counters {
    std::atomic<int> ran{0};
};

int ok_kernel(const KernelContext& ctx) {
    static_cast<Counters*>(ctx.user)->ran.fetch_add(1);
    return 0;
}
int throwing_kernel(const KernelContext&) {
    throw std::runtime_error("bad tile");
}
int failing_kernel(const KernelContext&) {
    return 7;
}

/// compute_config: a compute-executor configuration of `window` tasks.
RuntimeConfig compute_config(std::uint32_t window = RuntimeConfig{}.window_tasks) {
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.window_tasks = window;
    return c;
}

/// register_ok_and_bad: kernel 0 counts its runs in `counters`, kernel 1 returns an error.
void register_ok_and_bad(Runtime& rt, Counters& counters) {
    rt.register_kernel(FuncId{0}, KernelInfo{"ok", 1.0, &ok_kernel, &counters});
    rt.register_kernel(FuncId{1}, KernelInfo{"bad", 1.0, &failing_kernel, nullptr});
}

constexpr RunOptions kReportFailures{.throw_on_kernel_failure = false};

}  // namespace

//   ok0 ── bad ──┬── c1 ── c2 (cancelled)
//                └── c3 (cancelled)
//   ok4 (independent, completes)
TEST_CASE("a failing kernel cancels its transitive dependants and the run names it", "[runtime][failure]") {
    const bool throws = GENERATE(true, false);
    Counters counters;
    RuntimeConfig c;
    c.executor = Executor::Compute;
    Runtime rt(c);
    rt.register_kernel(FuncId{0}, KernelInfo{"ok", 1.0, &ok_kernel, &counters});
    rt.register_kernel(FuncId{1},
                       KernelInfo{"bad", 1.0, throws ? &throwing_kernel : &failing_kernel, nullptr});
    TaskId bad;
    try {
        pto::run(rt, [&] {
            const TaskId ok0 = submit_aiv(FuncId{0}, Args()).task_id();
            bad = submit_aic(FuncId{1}, Args().set_dependencies(&ok0, 1).block_num(3)).task_id();
            const TaskId c1 = submit_aiv(FuncId{0}, Args().set_dependencies(&bad, 1)).task_id();
            submit_aiv(FuncId{0}, Args().set_dependencies(&c1, 1));
            submit_mix(FuncId{0}, FuncId{0}, FuncId{0}, Args().set_dependencies(&bad, 1));
            submit_aiv(FuncId{0}, Args());
        });
        FAIL("expected KernelFailed");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::KernelFailed);
        CHECK_THAT(e.what(), Catch::Contains("task " + std::to_string(bad.value) + " (kernel bad)"));
        CHECK_THAT(e.what(), Catch::Contains(throws ? "bad tile" : "returned 7"));
    }
    const RunReport& r = rt.last_report();
    CHECK(r.submitted == 6);
    CHECK(r.failed == 1);
    CHECK(r.cancelled == 3);
    CHECK(r.completed == 2);
    CHECK(r.completed + r.failed + r.cancelled == r.submitted);
    CHECK(counters.ran.load() == 2);  // only ok0 and the independent task ran
    REQUIRE_FALSE(r.failures.empty());
    CHECK(r.failures.front().task == bad);

    counters.ran = 0;
    const RunReport again = pto::run(rt, [] {
        const TaskId a = submit_aiv(FuncId{0}, Args()).task_id();
        submit_aiv(FuncId{0}, Args().set_dependencies(&a, 1));
    });
    CHECK(again.completed == 2);
    CHECK(counters.ran.load() == 2);
}

TEST_CASE("a consumer submitted after its producer failed is cancelled, not run", "[runtime][failure]") {
    Counters counters;
    Runtime rt(compute_config());
    register_ok_and_bad(rt, counters);
    const RunReport r = pto::run(
        rt,
        [&] {
            PTO2_SCOPE(MANUAL) {
                const TaskId bad = submit_aiv(FuncId{1}, Args()).task_id();
                // Not synchronisation: either order must cancel the consumer; the pause makes the path where
                // the producer has already failed and closed its fanout the likely one.
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                submit_aiv(FuncId{0}, Args().set_dependencies(&bad, 1));
            }
        },
        kReportFailures);
    CHECK(r.failed == 1);
    CHECK(r.cancelled == 1);
    CHECK(counters.ran.load() == 0);
}

TEST_CASE("a long producer list named again after its failed producer retired cancels the consumer",
          "[runtime][failure]") {
    // The second consumer names the list the linker remembers from the first, but the window is small, so
    // the filler tasks between them make the failed producer (and its slot's later occupants) retire first.
    Counters counters;
    Runtime rt(compute_config(16));
    register_ok_and_bad(rt, counters);
    const RunReport r = pto::run(
        rt,
        [&] {
            std::vector<TaskId> producers{submit_aiv(FuncId{1}, Args()).task_id()};
            for (int i = 0; i < 4; ++i)
                producers.push_back(submit_aiv(FuncId{0}, Args()).task_id());
            submit_aiv(FuncId{0}, Args().set_dependencies(producers));
            for (int i = 0; i < 40; ++i)
                submit_aiv(FuncId{0}, Args());
            REQUIRE(detail::TaskPort(rt).retired_before().value > producers.back().value);
            submit_aiv(FuncId{0}, Args().set_dependencies(producers));
        },
        kReportFailures);
    CHECK(r.failed == 1);
    CHECK(r.cancelled == 2);
    CHECK(counters.ran.load() == 4 + 40);
}
