// pto-bench-run-cost: the fixed cost of one concurrent run, which every e2e figure pays once per run (a
// graph of 522 launches pays it 522 times less per launch than a graph of one). Runs of a chain of
// --tasks tasks (instant executor, default configuration otherwise) on one Runtime; prints the run's own
// end-to-end time (RunReport::end_to_end_ns: dispatch enabled and schedulers woken .. last task ended and
// the orchestrator awake) and the wall time of the whole pto::run call (also begin and end of the run:
// retirement, the report, quiescing the schedulers), min, median and p90 in microseconds.
//
//     pto-bench-run-cost [--reps N] [--tasks N] [--schedulers N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <CLI/CLI.hpp>

#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

double quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

void print(const char* what, const std::vector<double>& us) {
    std::printf("%-36s min %8.1f  median %8.1f  p90 %8.1f us\n", what, quantile(us, 0.0), quantile(us, 0.5),
                quantile(us, 0.9));
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app("pto-bench-run-cost: the fixed cost of one concurrent run");
    std::uint32_t reps = 2000;
    std::uint32_t tasks = 1;
    std::uint32_t schedulers = 0;
    app.add_option("--reps", reps, "measured runs (after 50 warm-up runs)")
        ->check(CLI::Range(1u, 1'000'000u));
    app.add_option("--tasks", tasks, "tasks per run, each depending on the one before")
        ->check(CLI::Range(1u, 100'000u));
    app.add_option("--schedulers", schedulers, "scheduler threads (default: RuntimeConfig's)")
        ->check(CLI::Range(0u, 24u));
    CLI11_PARSE(app, argc, argv);

    RuntimeConfig config;
    if (schedulers != 0) config.scheduler_threads = schedulers;
    Runtime rt(config);
    constexpr FuncId kNop{0};
    rt.register_kernel(kNop, KernelInfo{"nop", 1.0});
    constexpr std::uint32_t kWarmup = 50;
    std::vector<double> end_to_end, wall;
    end_to_end.reserve(reps);
    wall.reserve(reps);
    for (std::uint32_t i = 0; i < kWarmup + reps; ++i) {
        const auto start = std::chrono::steady_clock::now();
        const RunReport r = pto::run(rt, [&] {
            PTO2_SCOPE(MANUAL) {
                TaskId previous;
                for (std::uint32_t t = 0; t < tasks; ++t) {
                    Args args;
                    if (previous.is_valid()) args.set_dependencies(&previous, 1);
                    previous = submit_aiv(kNop, args).task_id();
                }
            }
        });
        const auto end = std::chrono::steady_clock::now();
        if (i < kWarmup) continue;
        end_to_end.push_back(static_cast<double>(r.end_to_end_ns) / 1000.0);
        wall.push_back(std::chrono::duration<double, std::micro>(end - start).count());
    }
    std::printf("%u run(s) of %u chained task(s), %u scheduler threads\n", reps, tasks,
                config.scheduler_threads);
    print("end to end (RunReport)", end_to_end);
    print("pto::run call", wall);
    return 0;
}
