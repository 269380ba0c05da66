// pto-soak (issue 6, SPEC §10): millions of tasks through small windows with randomly failing compute
// kernels and random jitter. After every run it checks that nothing was lost (completed + failed +
// cancelled = submitted) and that the cancelled set is exactly the transitive dependants of the failed
// tasks (from the recorded graph), and it reports peak RSS after the first run and at the end.
//
//     pto-soak [--tasks N] [--seed S] [--json FILE]
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "pto/runtime/runtime.h"
#include "pto/scope/orchestration.h"

namespace {

using namespace pto;

constexpr FuncId kKernel{0};
constexpr std::uint64_t kFaultOneIn = 4096;  // a subtask fails with probability 1/4096

/// RunState: what the kernel of one run records per task (indexed by id - first id). Sized once for the
/// largest run, so the soak itself allocates nothing per run either.
struct RunState {
    std::uint64_t first_id = 0;
    std::uint64_t seed = 0;
    std::unique_ptr<std::atomic<std::uint32_t>[]> runs;    // subtasks that ran
    std::unique_ptr<std::atomic<std::uint8_t>[]> faulted;  // a subtask of the task failed on purpose
    std::atomic<std::uint64_t> spin_sink{0};
};

std::uint64_t mix64(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// kernel: counts itself, spins a random few hundred nanoseconds (jitter on top of the runtime's), and fails
/// (alternately by return code and by exception) for about one subtask in kFaultOneIn.
int kernel(const KernelContext& ctx) {
    RunState& s = *static_cast<RunState*>(ctx.user);
    const std::uint64_t index = ctx.task.value - s.first_id;
    s.runs[index].fetch_add(1, std::memory_order_relaxed);
    const std::uint64_t h =
        mix64(s.seed ^ (ctx.task.value * 0x9E3779B97F4A7C15ull) ^ (ctx.block_idx * 31 + ctx.lane));
    std::uint64_t spin = 0;
    for (std::uint64_t i = 0; i < (h & 255); ++i)
        spin += i;
    s.spin_sink.fetch_add(spin, std::memory_order_relaxed);
    if ((h >> 20) % kFaultOneIn != 0) return 0;
    s.faulted[index].store(1, std::memory_order_relaxed);
    if ((h & 1) != 0) throw std::runtime_error("injected fault");
    return 1;
}

/// submit_random_graph: `count` tasks as a stream of small independent requests (4 to 48 tasks of random
/// shapes, dependencies only inside the request, reaching back over its whole length, so a request larger
/// than the window depends on producers that have retired); a quarter of the requests that fit half the
/// window run in a MANUAL scope. A failure cancels the rest of its request, not the whole run.
void submit_random_graph(std::mt19937_64& rng, std::uint64_t count, std::uint32_t window) {
    Runtime& rt = current_runtime();
    std::vector<TaskId> deps;
    std::uint64_t i = 0;
    while (i < count) {
        const std::uint64_t request = 4 + rng() % 45;
        std::unique_ptr<ScopeGuard> scope;
        if (request <= window / 2 && rng() % 4 == 0) scope = std::make_unique<ScopeGuard>(ScopeMode::Manual);
        const std::uint64_t first = rt.next_task_id().value;
        for (std::uint64_t g = 0; g < request && i < count; ++g, ++i) {
            deps.clear();
            const std::uint32_t fanin = g == 0 ? 0 : static_cast<std::uint32_t>(rng() % 4);
            for (std::uint32_t d = 0; d < fanin; ++d)
                deps.push_back(TaskId{first + rng() % g});
            Args args;
            args.set_dependencies(deps);
            const std::uint64_t shape = rng() % 100;
            if (shape < 5) {
                submit_dependency_only(args);
            } else {
                args.block_num(1 + static_cast<std::uint32_t>(rng() % 3));
                if (shape < 15)
                    submit_mix(kKernel, kKernel, kKernel, args);
                else if (shape < 55)
                    submit_aic(kKernel, args);
                else
                    submit_aiv(kKernel, args);
            }
        }
    }
}

/// Verdict: what one run's check found.
struct Verdict {
    std::uint64_t lost = 0;        // submitted - (completed + failed + cancelled)
    std::uint64_t mismatches = 0;  // tasks whose outcome or execution disagrees with the failure rule
    std::uint64_t faults = 0;      // tasks a kernel failed on purpose
    std::uint64_t subtasks_run = 0;
};

/// check_run: derives the expected outcome of every task from the graph and the injected faults: a task
/// depending (transitively) on a failed one must be cancelled and never run; the others ran every subtask.
Verdict check_run(const Runtime& rt, const RunReport& r, RunState& s, std::vector<std::uint8_t>& bad) {
    Verdict v;
    v.lost = r.submitted - std::min(r.submitted, r.completed + r.failed + r.cancelled);
    const GraphRecord& g = rt.graph();
    bad.assign(g.tasks.size(), 0);  // 1 = failed, 2 = cancelled
    std::uint64_t failed = 0, cancelled = 0;
    for (std::size_t t = 0; t < g.tasks.size(); ++t) {
        const RecordedTask& task = g.tasks[t];
        const std::uint64_t index = task.id.value - s.first_id;
        for (TaskId p : g.producers_of(task))
            if (bad[p.value - s.first_id] != 0) bad[t] = 2;
        const std::uint32_t runs = s.runs[index].load(std::memory_order_relaxed);
        v.subtasks_run += runs;
        const std::uint32_t lanes = task.core == CoreType::MIX ? 3 : 1;
        const std::uint32_t expected = task.kind == TaskKind::Kernel ? task.block_num * lanes : 0;
        if (bad[t] == 2) {
            ++cancelled;
            if (runs != 0) ++v.mismatches;
        } else if (s.faulted[index].load(std::memory_order_relaxed) != 0) {
            bad[t] = 1;
            ++failed;
            ++v.faults;
        } else {
            if (runs != expected) ++v.mismatches;
        }
    }
    if (failed != r.failed || cancelled != r.cancelled || g.tasks.size() - failed - cancelled != r.completed)
        ++v.mismatches;
    return v;
}

std::int64_t peak_rss_kib() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "pto-soak: tasks through small windows with failing kernels and jitter; checks nothing is lost"};
    std::uint64_t total = 10'000'000;
    std::uint64_t seed = 1;
    std::string json_path;
    app.add_option("--tasks", total, "tasks to run in all (default 10000000)")->check(CLI::PositiveNumber);
    app.add_option("--seed", seed, "seed of graphs, windows and faults (default 1)");
    app.add_option("--json", json_path, "write the figures as JSON to FILE");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }

    constexpr std::uint64_t kMaxRunTasks = 20'000;
    const std::uint32_t windows[] = {16, 32, 64};
    std::vector<std::unique_ptr<Runtime>> runtimes;
    RunState state;
    state.runs.reset(new std::atomic<std::uint32_t>[kMaxRunTasks]);
    state.faulted.reset(new std::atomic<std::uint8_t>[kMaxRunTasks]);
    for (std::uint32_t w : windows) {
        RuntimeConfig c;
        c.executor = Executor::Compute;
        c.window_tasks = w;
        c.edge_capacity = 256;
        c.cluster_count = 4;
        c.scheduler_threads = 2;
        c.compute_threads = 2;
        c.timed_jitter = 1.0;  // each kernel starts after a random delay of up to its duration
        c.seed = seed;
        c.record_graph = true;
        auto rt = std::make_unique<Runtime>(c);
        rt->register_kernel(kKernel, KernelInfo{"soak", 0.5, &kernel, &state});
        runtimes.push_back(std::move(rt));
    }

    std::mt19937_64 rng(seed);
    std::vector<std::uint8_t> scratch;
    scratch.reserve(kMaxRunTasks);
    std::uint64_t done = 0, runs = 0, faults = 0, lost = 0, mismatches = 0, subtasks = 0;
    std::uint64_t completed = 0, failed = 0, cancelled = 0;
    std::int64_t rss_start = 0;
    const auto t0 = std::chrono::steady_clock::now();
    std::uint64_t next_progress = total / 10;
    while (done < total) {
        const std::size_t which = rng() % runtimes.size();
        Runtime& rt = *runtimes[which];
        const std::uint64_t count =
            std::min<std::uint64_t>(total - done, 1000 + rng() % (kMaxRunTasks - 1000));
        state.first_id = rt.next_task_id().value;
        state.seed = rng();
        for (std::uint64_t i = 0; i < count; ++i) {
            state.runs[i].store(0, std::memory_order_relaxed);
            state.faulted[i].store(0, std::memory_order_relaxed);
        }
        std::mt19937_64 graph_rng(rng());
        const RunReport r = pto::run(
            rt, [&] { submit_random_graph(graph_rng, count, windows[which]); },
            RunOptions{.throw_on_kernel_failure = false});
        const Verdict v = check_run(rt, r, state, scratch);
        if (v.lost != 0 || v.mismatches != 0)
            std::fprintf(stderr, "run %llu (window %u): %llu lost, %llu mismatches\n",
                         static_cast<unsigned long long>(runs), windows[which],
                         static_cast<unsigned long long>(v.lost),
                         static_cast<unsigned long long>(v.mismatches));
        done += r.submitted;
        ++runs;
        faults += v.faults;
        lost += v.lost;
        mismatches += v.mismatches;
        subtasks += v.subtasks_run;
        completed += r.completed;
        failed += r.failed;
        cancelled += r.cancelled;
        if (runs == 1) rss_start = peak_rss_kib();
        if (done >= next_progress) {
            std::fprintf(stderr, "%3llu%%  %llu tasks, %llu faults, peak RSS %lld KiB\n",
                         static_cast<unsigned long long>(100 * done / total),
                         static_cast<unsigned long long>(done), static_cast<unsigned long long>(faults),
                         static_cast<long long>(peak_rss_kib()));
            next_progress += total / 10;
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const std::int64_t rss_end = peak_rss_kib();

    std::printf("pto-soak: %llu tasks in %llu runs (windows 16/32/64, compute executor, jitter), seed %llu\n",
                static_cast<unsigned long long>(done), static_cast<unsigned long long>(runs),
                static_cast<unsigned long long>(seed));
    std::printf("  completed %llu, failed %llu, cancelled %llu; subtasks run %llu\n",
                static_cast<unsigned long long>(completed), static_cast<unsigned long long>(failed),
                static_cast<unsigned long long>(cancelled), static_cast<unsigned long long>(subtasks));
    std::printf("  faults injected %llu, tasks lost %llu, outcome mismatches %llu\n",
                static_cast<unsigned long long>(faults), static_cast<unsigned long long>(lost),
                static_cast<unsigned long long>(mismatches));
    std::printf("  peak RSS after the first run %lld KiB, at the end %lld KiB\n",
                static_cast<long long>(rss_start), static_cast<long long>(rss_end));
    std::printf("  wall time %.1f s (%.0f tasks/s)\n", seconds, static_cast<double>(done) / seconds);
    if (!json_path.empty()) {
        nlohmann::json j = {{"schema", "pto-soak/1"},
                            {"tasks", done},
                            {"runs", runs},
                            {"seed", seed},
                            {"windows", {16, 32, 64}},
                            {"completed", completed},
                            {"failed", failed},
                            {"cancelled", cancelled},
                            {"subtasks_run", subtasks},
                            {"faults_injected", faults},
                            {"tasks_lost", lost},
                            {"outcome_mismatches", mismatches},
                            {"peak_rss_kib_after_first_run", rss_start},
                            {"peak_rss_kib_end", rss_end},
                            {"wall_s", seconds}};
        std::ofstream(json_path) << j.dump(2) << '\n';
    }
    return lost == 0 && mismatches == 0 ? 0 : 1;
}
