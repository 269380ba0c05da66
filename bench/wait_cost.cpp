// pto-bench-wait: the cost of pto::wait (data-dependent orchestration). Two figures:
//   - ns per wait on a task that has already completed (the wait's fixed cost: checks, flush, bookkeeping);
//   - the latency from a kernel's return to the orchestrator resuming after pto::wait on it, split at the
//     moment the scheduler handled the completion (SubtaskRecord::finish): kernel return -> completion
//     handled, and completion handled -> orchestrator awake.
// Compute executor with an empty kernel; one run per latency sample. Prints min, median and max.
//
//     pto-bench-wait [--reps N] [--waits N]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <vector>

#include <CLI/CLI.hpp>

#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::atomic<std::int64_t> g_kernel_return_ns{0};

int stamp_kernel(const KernelContext&) {
    g_kernel_return_ns.store(now_ns(), std::memory_order_release);
    return 0;
}

struct Summary {
    double min, median, max;
};

Summary summarise(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return {v.front(), v[v.size() / 2], v.back()};
}

void print(const char* what, const Summary& s, const char* unit) {
    std::printf("%-48s min %10.1f  median %10.1f  max %10.1f %s\n", what, s.min, s.median, s.max, unit);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app("pto-bench-wait: the cost of pto::wait");
    std::uint32_t reps = 200;
    std::uint32_t waits = 100'000;
    app.add_option("--reps", reps, "latency samples (one run each) and fixed-cost repetitions")
        ->check(CLI::Range(1u, 100'000u));
    app.add_option("--waits", waits, "waits per fixed-cost repetition")->check(CLI::Range(1u, 10'000'000u));
    CLI11_PARSE(app, argc, argv);

    // Fixed cost: a wait on a task that completed already (no recording: that would add a trace record per
    // wait).
    RuntimeConfig plain;
    plain.executor = Executor::Compute;
    std::vector<double> fixed;
    {
        Runtime rt(plain);
        rt.register_kernel(FuncId{0}, KernelInfo{"stamp", 1.0, &stamp_kernel, nullptr});
        for (std::uint32_t r = 0; r < std::min<std::uint32_t>(reps, 20); ++r) {
            pto::run(rt, [&] {
                const TaskHandle t = submit_aiv(FuncId{0}, Args());
                pto::wait(t);
                const std::int64_t t0 = now_ns();
                for (std::uint32_t i = 0; i < waits; ++i)
                    pto::wait(t);
                fixed.push_back(static_cast<double>(now_ns() - t0) / waits);
            });
        }
    }

    RuntimeConfig config = plain;
    config.record_subtasks = true;  // for the moment the completion was handled
    Runtime rt(config);
    rt.register_kernel(FuncId{0}, KernelInfo{"stamp", 1.0, &stamp_kernel, nullptr});
    // Latency: kernel return -> completion handled -> orchestrator awake.
    std::vector<double> to_handled, to_awake, total;
    for (std::uint32_t r = 0; r < reps; ++r) {
        std::int64_t awake_ns = 0;
        const RunReport report = pto::run(rt, [&] {
            const TaskHandle t = submit_aiv(FuncId{0}, Args());
            pto::wait(t);
            awake_ns = now_ns();
        });
        const std::int64_t returned_ns = g_kernel_return_ns.load(std::memory_order_acquire);
        const std::int64_t handled_ns = report.start_steady_ns + rt.subtasks().front().finish_ns;
        to_handled.push_back(static_cast<double>(handled_ns - returned_ns));
        to_awake.push_back(static_cast<double>(awake_ns - handled_ns));
        total.push_back(static_cast<double>(awake_ns - returned_ns));
    }
    std::printf("pto-bench-wait: compute executor, %u scheduler thread(s); steady_clock\n",
                config.scheduler_threads);
    print("wait on a completed task (ns per wait)", summarise(fixed), "ns");
    print("kernel return -> completion handled", summarise(to_handled), "ns");
    print("completion handled -> orchestrator awake", summarise(to_awake), "ns");
    print("kernel return -> orchestrator awake", summarise(total), "ns");
    return 0;
}
