// pto-deadlock-latency: measures how long the runtime takes to report a dependency deadlock once it became
// provable (nothing running, nothing ready, the orchestrator waiting), with stall_timeout_ms set to an hour
// so the report cannot come from the watchdog's timeout. The deadlock is provoked white-box: a task's fanin
// counter is raised by one, what a lost release would look like. Two waits are measured: end_run, and a
// submit blocked on a full window (wait_for_retirement).
//
//     pto-deadlock-latency [repetitions]      (default 20; prints min, median and max in milliseconds)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "pto/runtime/runtime.h"
#include "runtime_impl.h"

using namespace pto;

namespace {

TaskSpec kernel_spec() {
    TaskSpec s;
    s.core = CoreType::AIV;
    s.funcs[0] = s.funcs[1] = s.funcs[2] = FuncId{0};
    return s;
}

/// one_latency_ms: builds p -- lost -- after with lost's release lost, waits until p finished (from then on
/// the deadlock is provable), then times the wait until the Stall error.
double one_latency_ms(bool in_end_run) {
    RuntimeConfig c;
    c.cluster_count = 2;
    c.scheduler_threads = 2;
    c.window_tasks = 8;
    c.stall_timeout_ms = 3'600'000;
    Runtime::Impl rt(c);
    rt.begin_run();
    rt.quiesce_schedulers();
    const TaskId p = rt.submit(kernel_spec(), {}, false);
    const TaskId lost = rt.submit(kernel_spec(), std::vector<TaskId>{p}, false);
    rt.submit(kernel_spec(), std::vector<TaskId>{lost}, false);
    rt.engine.tasks[rt.window.slot_of(lost.value)].fanin_pending.fetch_add(1);
    rt.resume_dispatch();
    while (rt.engine.progress.finished() < 1)
        std::this_thread::yield();
    const auto t0 = std::chrono::steady_clock::now();
    try {
        if (in_end_run) {
            (void)rt.end_run();
        } else {
            for (int i = 0; i < 16; ++i)
                rt.submit(kernel_spec(), {}, false);
        }
        std::fprintf(stderr, "no Stall reported\n");
        std::exit(1);
    } catch (const Error& e) {
        if (e.code() != ErrorCode::Stall) {
            std::fprintf(stderr, "unexpected error: %s\n", e.what());
            std::exit(1);
        }
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (!in_end_run) {
        try {
            (void)rt.end_run();
        } catch (const Error&) {
        }
    }
    return ms;
}

}  // namespace

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
    for (bool in_end_run : {true, false}) {
        std::vector<double> ms;
        for (int i = 0; i < reps; ++i)
            ms.push_back(one_latency_ms(in_end_run));
        std::sort(ms.begin(), ms.end());
        std::printf(
            "deadlock diagnosis latency, orchestrator waiting in %-22s: min %.1f ms, median %.1f ms, max "
            "%.1f ms (%d runs, stall_timeout_ms = 3600000)\n",
            in_end_run ? "end_run" : "a submit (window full)", ms.front(), ms[ms.size() / 2], ms.back(),
            reps);
    }
    return 0;
}
