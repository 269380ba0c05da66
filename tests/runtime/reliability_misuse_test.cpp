// Conformance and white-box: misuse that used to crash, hang, corrupt a run or be accepted silently now
// gets a coded pto::Error naming the call or knob (or, where no error can be thrown, a documented
// std::terminate with a message), and the runtime stays usable: concurrent runs on one Runtime, calls from
// kernels, bad arguments and configurations, leaked scope guards, and deadlocks proven without a timeout.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "pto/runtime/runtime.h"
#include "pto/scope/orchestration.h"
#include "runtime_impl.h"

using namespace pto;

namespace {

constexpr FuncId kOk{0};
constexpr FuncId kFail{1};

int ok_kernel(const KernelContext&) {
    return 0;
}
int fail_kernel(const KernelContext&) {
    return 5;
}

RuntimeConfig small_config(Executor e = Executor::Compute) {
    RuntimeConfig c;
    c.executor = e;
    c.cluster_count = 2;
    c.scheduler_threads = 2;
    c.compute_threads = 2;
    return c;
}

void register_basic(Runtime& rt) {
    rt.register_kernel(kOk, KernelInfo{"ok", 1.0, &ok_kernel, nullptr});
    rt.register_kernel(kFail, KernelInfo{"fail", 1.0, &fail_kernel, nullptr});
}

/// expect_code: runs `f`, which must throw pto::Error with `code` and a message containing `text`.
template <class F>
void expect_code(F&& f, ErrorCode code, const std::string& text) {
    try {
        f();
        FAIL("expected " << to_string(code));
    } catch (const Error& e) {
        CHECK(e.code() == code);
        CHECK_THAT(e.what(), Catch::Contains(text));
    }
}

void good_run(Runtime& rt) {
    const RunReport r = pto::run(rt, [] {
        const TaskId a = submit_aiv(kOk, Args()).task_id();
        submit_aic(kOk, Args().set_dependencies(&a, 1));
    });
    CHECK(r.completed == 2);
}

TaskSpec raw_kernel() {
    TaskSpec s;
    s.core = CoreType::AIV;
    s.funcs[0] = s.funcs[1] = s.funcs[2] = kOk;
    return s;
}

}  // namespace

// ---- One run at a time ------------------------------------------------------------------------------------

TEST_CASE("a second thread cannot start, end, submit to or register on a run in progress",
          "[runtime][misuse][threads]") {
    Runtime rt(small_config());
    register_basic(rt);
    std::atomic<int> stage{0};
    std::vector<ErrorCode> codes;
    std::thread other;
    const RunReport r = pto::run(rt, [&] {
        submit_aiv(kOk, Args());
        other = std::thread([&] {
            auto code_of = [&](auto&& f) {
                try {
                    f();
                    codes.push_back(ErrorCode::InvalidArgument);  // accepted: wrong
                } catch (const Error& e) {
                    codes.push_back(e.code());
                }
            };
            code_of([&] { pto::run(rt, [] { submit_aiv(kOk, Args()); }); });
            code_of([&] { pto::detail::TaskPort(rt).begin_run(); });
            code_of([&] { pto::detail::TaskPort(rt).submit(raw_kernel(), {}, false); });
            code_of([&] { (void)pto::detail::TaskPort(rt).end_run(); });
            code_of([&] { rt.register_kernel(FuncId{7}, KernelInfo{"late", 1.0, &ok_kernel, nullptr}); });
            stage.store(1);
        });
        other.join();
        submit_aiv(kOk, Args());
    });
    CHECK(stage.load() == 1);
    CHECK(codes == std::vector<ErrorCode>(5, ErrorCode::RunInProgress));
    CHECK(r.submitted == 2);
    CHECK(r.completed == 2);
    good_run(rt);
}

TEST_CASE("two threads racing to run on one runtime: one runs, the other is refused, never corrupted",
          "[runtime][misuse][threads]") {
    Runtime rt(small_config(Executor::Instant));
    register_basic(rt);
    std::uint64_t ran = 0, refused = 0, wrong = 0;
    for (int round = 0; round < 100; ++round) {
        std::atomic<int> go{0};
        int outcome[2] = {0, 0};  // 1 ran with correct counts, 2 refused, 3 anything else
        auto attempt = [&](int who) {
            go.fetch_add(1);
            while (go.load() < 2) {
            }
            try {
                const RunReport r = pto::run(rt, [] {
                    for (int i = 0; i < 8; ++i)
                        PTO2_SCOPE(MANUAL) {
                            submit_aiv(kOk, Args());
                        }
                });
                outcome[who] = r.submitted == 8 && r.completed == 8 ? 1 : 3;
            } catch (const Error& e) {
                outcome[who] = e.code() == ErrorCode::RunInProgress ? 2 : 3;
            }
        };
        std::thread a(attempt, 0), b(attempt, 1);
        a.join();
        b.join();
        for (int o : outcome) {
            ran += o == 1;
            refused += o == 2;
            wrong += o == 3;
        }
    }
    CHECK(wrong == 0);
    CHECK(ran + refused == 200);
    CHECK(ran >= 100);  // at least one of each pair ran
    good_run(rt);
}

// ---- Re-entrant calls from kernels ------------------------------------------------------------------------

namespace {

struct Reentry {
    Runtime* rt = nullptr;
    std::atomic<int> calls{0};
    std::vector<std::string> errors;  // "<code>: <message>" per attempted call
    std::atomic<bool> wrong{false};

    static int kernel(const KernelContext& ctx) {
        auto& self = *static_cast<Reentry*>(ctx.user);
        auto attempt = [&](auto&& f) {
            try {
                f();
                self.wrong.store(true);
            } catch (const Error& e) {
                self.errors.push_back(e.what());
            } catch (...) {
                self.wrong.store(true);
            }
        };
        attempt([&] { submit_aiv(kOk, Args()); });
        attempt([&] { pto::detail::TaskPort(*self.rt).submit(raw_kernel(), {}, false); });
        attempt([&] { (void)pto::detail::TaskPort(*self.rt).end_run(); });
        attempt([&] { pto::detail::TaskPort(*self.rt).begin_run(); });
        attempt([&] { self.rt->register_kernel(FuncId{9}, KernelInfo{"x", 1.0, &ok_kernel, nullptr}); });
        attempt([&] { pto::run(*self.rt, [] {}); });
        attempt([&] {
            PTO2_SCOPE() {}
        });
        self.calls.fetch_add(1);
        return 0;
    }
};

}  // namespace

TEST_CASE("a kernel calling the task-level API is refused with ReentrantCall naming the call",
          "[runtime][misuse]") {
    Runtime rt(small_config());
    register_basic(rt);
    Reentry re;
    re.rt = &rt;
    rt.register_kernel(FuncId{2}, KernelInfo{"reenter", 1.0, &Reentry::kernel, &re});
    const RunReport r = pto::run(rt, [] { submit_aiv(FuncId{2}, Args()); });
    CHECK(r.completed == 1);
    CHECK(re.calls.load() == 1);
    CHECK_FALSE(re.wrong.load());
    const char* names[] = {"submit_aiv",      "submit",   "end_run",     "begin_run",
                           "register_kernel", "pto::run", "PTO2_SCOPE()"};
    REQUIRE(re.errors.size() == 7);
    for (std::size_t i = 0; i < 7; ++i) {
        INFO(re.errors[i]);
        CHECK_THAT(re.errors[i], Catch::StartsWith("ReentrantCall: ") && Catch::Contains(names[i]) &&
                                     Catch::Contains("a compute kernel"));
    }
    good_run(rt);
}

// ---- Crashes that became errors ---------------------------------------------------------------------------

TEST_CASE("set_dependencies with a null array and a non-zero count is refused at submit",
          "[runtime][misuse]") {
    Runtime rt(small_config());
    register_basic(rt);
    expect_code([&] { pto::run(rt, [] { submit_aiv(kOk, Args().set_dependencies(nullptr, 3)); }); },
                ErrorCode::InvalidDependency, "task 0 (kernel ok): set_dependencies was given a null array");
    good_run(rt);
}

namespace {

/// terminated_with: runs `misuse` in a forked child (Instant executor only: no oneTBB state to inherit)
/// and returns whether it ended by SIGABRT with `text` on stderr.
template <class F>
bool terminated_with(F&& misuse, const std::string& text) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        std::signal(SIGABRT, SIG_DFL);  // not Catch's handler: the parent judges how the child ended
        const int null_fd = open("/dev/null", O_WRONLY);
        dup2(null_fd, 1);
        dup2(fds[1], 2);
        close(fds[0]);
        misuse();
        _exit(0);  // the misuse went unnoticed
    }
    close(fds[1]);
    std::string err;
    char buf[512];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;)
        err.append(buf, static_cast<std::size_t>(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    INFO("child stderr: " << err);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && err.find(text) != std::string::npos;
}

}  // namespace

#if !defined(__SANITIZE_THREAD__)  // ThreadSanitizer does not support threads started after fork
TEST_CASE("destroying a runtime inside its own run terminates with a message naming the misuse",
          "[runtime][misuse]") {
    CHECK(terminated_with(
        [] {
            auto* rt = new Runtime(small_config(Executor::Instant));
            rt->register_kernel(kOk, KernelInfo{"ok", 1.0, nullptr, nullptr});
            pto::run(*rt, [&] {
                submit_aiv(kOk, Args());
                delete rt;
            });
        },
        "pto::Runtime destroyed by its own orchestrator thread"));
    CHECK(terminated_with(
        [] {
            auto* rt = new Runtime(small_config(Executor::Instant));
            std::atomic<bool> started{false}, done{false};
            std::thread t([&] {
                pto::run(*rt, [&] {
                    started.store(true);
                    while (!done.load())
                        std::this_thread::yield();
                });
            });
            while (!started.load())
                std::this_thread::yield();
            delete rt;
            done.store(true);
            t.join();
        },
        "pto::Runtime destroyed from another thread while that thread is running an orchestration function"));
}
#endif

// ---- Validation holes -------------------------------------------------------------------------------------

TEST_CASE("out-of-range enums and absurd timing values are refused, naming the knob", "[runtime][misuse]") {
    RuntimeConfig c = small_config(Executor::Instant);
    c.executor = static_cast<Executor>(7);
    expect_code([&] { c.validate(); }, ErrorCode::InvalidConfig, "RuntimeConfig::executor = 7");
    c = small_config(Executor::Instant);
    c.orchestration = static_cast<OrchestrationMode>(9);
    expect_code([&] { Runtime rt(c); }, ErrorCode::InvalidConfig, "RuntimeConfig::orchestration = 9");
    for (double scale : {std::numeric_limits<double>::infinity(), 1e300, std::nan("")}) {
        c = small_config(Executor::Timed);
        c.timed_scale = scale;
        expect_code([&] { c.validate(); }, ErrorCode::InvalidConfig, "RuntimeConfig::timed_scale");
    }
    Runtime rt(small_config(Executor::Timed));
    for (double d : {std::nan(""), -1.0, std::numeric_limits<double>::infinity(), 1e300})
        expect_code(
            [&] {
                rt.register_kernel(kOk, KernelInfo{"k", d, nullptr, nullptr});
            },
            ErrorCode::InvalidArgument, "register_kernel(k) with duration_us");
    rt.register_kernel(kOk, KernelInfo{"k", 1.0, nullptr, nullptr});
    const RunReport r = pto::run(rt, [] { submit_aiv(kOk, Args()); });
    CHECK(r.completed == 1);
}

TEST_CASE("malformed submits are refused: MIX without two AIV, null-data views, negative strides",
          "[runtime][misuse]") {
    RuntimeConfig c = small_config();
    c.aiv_per_cluster = 1;
    Runtime rt(c);
    register_basic(rt);
    expect_code([&] { pto::run(rt, [] { submit_mix(kOk, kOk, kOk, Args()); }); }, ErrorCode::InvalidArgument,
                "RuntimeConfig::aiv_per_cluster = 1");
    float data[16] = {};
    TensorView null_view = TensorView::contiguous(data, DataType::F32, {16});
    null_view.base = nullptr;
    expect_code([&] { pto::run(rt, [&] { submit_aiv(kOk, Args().output(null_view)); }); },
                ErrorCode::InvalidTensor, "tensor argument 0 is a view without a buffer");
    TensorView negative = TensorView::contiguous(data, DataType::F32, {4, 4});
    negative.strides[0] = -4;
    negative.offset = 12;
    expect_code([&] { pto::run(rt, [&] { submit_aiv(kOk, Args().input(negative)); }); },
                ErrorCode::InvalidTensor, "has a negative stride");
    // Only the strides of the view's own dimensions count: a hand-made view may leave anything in the
    // slots past its rank, and such a view is accepted.
    TensorView loose = TensorView::contiguous(data, DataType::F32, {4, 4});
    loose.strides[3] = -1;
    loose.strides[4] = std::numeric_limits<std::int64_t>::min();
    CHECK(pto::run(rt, [&] { submit_aiv(kOk, Args().input(loose).output(loose)); }).completed == 1);
    good_run(rt);
}

TEST_CASE("a wide failing task is one failure entry with its failing subtask count", "[runtime][misuse]") {
    Runtime rt(small_config());
    register_basic(rt);
    TaskId wide, narrow;
    const RunReport r = pto::run(
        rt,
        [&] {
            wide = submit_aiv(kFail, Args().block_num(24)).task_id();
            narrow = submit_aic(kFail, Args()).task_id();
        },
        RunOptions{.throw_on_kernel_failure = false});
    CHECK(r.failed == 2);
    REQUIRE(r.failures.size() == 2);
    for (const TaskFailure& f : r.failures)
        CHECK(f.failed_subtasks == (f.task == wide ? 24u : 1u));
    CHECK(r.failures[0].task != r.failures[1].task);
}

TEST_CASE("waiting for retirement with nothing unretired is an argument error, not a 0-of-0 deadlock",
          "[runtime][misuse]") {
    Runtime rt(small_config());
    register_basic(rt);
    expect_code(
        [&] {
            pto::run(rt,
                     [] { pto::detail::TaskPort(current_runtime()).wait_for_retirement("window_tasks"); });
        },
        ErrorCode::InvalidArgument, "wait_for_retirement(window_tasks) with no unretired task");
    good_run(rt);
}

TEST_CASE("a scope guard leaked from one run does not close a scope of the next", "[runtime][misuse]") {
    Runtime rt(small_config());
    register_basic(rt);
    std::optional<ScopeGuard> leaked;
    pto::run(rt, [&] {
        leaked.emplace(ScopeMode::Manual);
        submit_aiv(kOk, Args());
    });
    std::uint32_t depth_after = 99;
    const RunReport r = pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            leaked.reset();
            depth_after = current_scope_depth();
            submit_aiv(kOk, Args());
        }
    });
    CHECK(depth_after == 1);
    CHECK(r.completed == 1);
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
TEST_CASE("a legal configuration too large to allocate is an InvalidConfig naming the knob",
          "[runtime][misuse]") {
    RuntimeConfig c = small_config(Executor::Instant);
    c.heap_bytes = 1ull << 40;
    expect_code([&] { Runtime rt(c); }, ErrorCode::InvalidConfig,
                "RuntimeConfig::heap_bytes = 1099511627776");
}
#endif

// ---- Deadlocks proven without a timeout (white-box: a lost release is provoked by hand) -------------------

//   p -- lost (fanin inflated: never ready) -- after
TEST_CASE("a dependency deadlock is reported without waiting for stall_timeout_ms",
          "[runtime][misuse][white-box]") {
    RuntimeConfig c = small_config(Executor::Instant);
    c.stall_timeout_ms = 3'600'000;  // an hour: the diagnosis must not come from the watchdog's timeout
    const bool in_end_run = GENERATE(true, false);
    c.window_tasks = 8;
    Runtime::Impl rt(c);
    rt.begin_run();
    rt.quiesce_schedulers();
    const TaskId p = rt.submit(raw_kernel(), {}, false);
    const TaskId lost = rt.submit(raw_kernel(), std::vector<TaskId>{p}, false);
    const TaskId after = rt.submit(raw_kernel(), std::vector<TaskId>{lost}, false);
    rt.engine.tasks[rt.window.slot_of(lost.value)].fanin_pending.fetch_add(1);
    rt.resume_dispatch();
    try {
        if (in_end_run) {
            (void)rt.end_run();
        } else {
            for (int i = 0; i < 16; ++i)  // fills the window: p never retires (lost holds it)
                rt.submit(raw_kernel(), {}, false);
        }
        FAIL("expected Stall");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::Stall);
        CHECK_THAT(e.what(), Catch::Contains("proven without waiting for RuntimeConfig::stall_timeout_ms") &&
                                 Catch::Contains("Template (or its Bindings) destroyed") &&
                                 Catch::Contains("stuck task ids: " + std::to_string(lost.value) + " " +
                                                 std::to_string(after.value)));
        // User-side causes come before the runtime is suspected.
        const std::string what = e.what();
        CHECK(what.find("runtime bug") > what.find("submit_instance"));
    }
    if (!in_end_run) {
        try {
            (void)rt.end_run();
        } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::Stall);
        }
    }
    const RunReport& r = rt.last_report;
    CHECK(r.completed + r.failed + r.cancelled == r.submitted);
    CHECK(r.cancelled >= 2);
    REQUIRE_FALSE(r.stalls.empty());
    CHECK(r.stalls[0].kind == StallKind::DependencyDeadlock);

    rt.begin_run();
    const TaskId x = rt.submit(raw_kernel(), {}, false);
    rt.submit(raw_kernel(), std::vector<TaskId>{x}, false);
    const RunReport good = rt.end_run();
    CHECK(good.completed == 2);
    CHECK(good.stalls.empty());
}
