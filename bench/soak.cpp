// pto-soak (docs/reliability.md): millions of tasks through small windows with randomly failing compute
// kernels and random jitter. After every run it checks that nothing was lost (completed + failed +
// cancelled = submitted) and that the cancelled set is exactly the transitive dependants of the failed
// tasks, and it reports peak RSS after the first run and at the end. Explicit-dependency runs (windows 16,
// 32, 64) check against the recorded graph; AUTO-scope runs (windows 8, 16: tasks reading and writing
// tiles of shared buffers, most of them unrelated, so producers retire long before their consumers come)
// check against a model of each tile's last writer and readers, independent of the tensormap, and count
// the dependants of failed tasks that ran.
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

#include "pto/runtime/detail/task_port.h"
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
    /// AUTO runs: the tiles each task read and wrote (-1: none), written by the orchestration function.
    std::unique_ptr<std::int16_t[][4]> tiles;
};

/// AUTO runs: kBuffers buffers of kTilesPerBuffer tiles of kTileElems floats, shared by every run.
constexpr std::uint32_t kBuffers = 4;
constexpr std::uint32_t kTilesPerBuffer = 16;
constexpr std::uint32_t kTiles = kBuffers * kTilesPerBuffer;
constexpr std::uint32_t kTileElems = 8;
float g_tile_data[kBuffers][kTilesPerBuffer * kTileElems];

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
        const std::uint64_t first = pto::detail::TaskPort(rt).next_task_id().value;
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

/// submit_auto_graph: `count` tasks, each in its own AUTO scope (a few share one): two in three are
/// unrelated (each writes its own scratch element), the others read up to two tiles and write one or two,
/// so every dependency comes from the tensormap and most reach back past the window. Records the tiles in
/// `s.tiles` for the check.
void submit_auto_graph(std::mt19937_64& rng, std::uint64_t count, RunState& s, std::vector<float>& scratch) {
    const TensorView buffers[kBuffers] = {
        TensorView::contiguous(g_tile_data[0], DataType::F32, {kTilesPerBuffer * kTileElems}),
        TensorView::contiguous(g_tile_data[1], DataType::F32, {kTilesPerBuffer * kTileElems}),
        TensorView::contiguous(g_tile_data[2], DataType::F32, {kTilesPerBuffer, kTileElems}),
        TensorView::contiguous(g_tile_data[3], DataType::F32, {kTilesPerBuffer, kTileElems}),
    };
    auto tile = [&](std::uint32_t t) {
        const TensorView& b = buffers[t / kTilesPerBuffer];
        const std::uint32_t k = t % kTilesPerBuffer;
        return b.ndim == 1 ? b.slice(0, k * kTileElems, kTileElems) : b.slice(0, k, 1);
    };
    scratch.assign(count, 0.0f);
    std::uint64_t i = 0;
    while (i < count) {
        PTO2_SCOPE() {
            const std::uint64_t group = 1 + rng() % 3;
            for (std::uint64_t g = 0; g < group && i < count; ++g, ++i) {
                std::int16_t* t = s.tiles[i];
                t[0] = t[1] = t[2] = t[3] = -1;
                Args args;
                if (rng() % 3 != 0) {
                    args.output(TensorView::contiguous(&scratch[i], DataType::F32, {1}));
                } else {
                    const auto reads = static_cast<std::uint32_t>(rng() % 3),
                               writes = static_cast<std::uint32_t>(1 + rng() % 2);
                    for (std::uint32_t r = 0; r < reads; ++r) {
                        t[r] = static_cast<std::int16_t>(rng() % kTiles);
                        args.input(tile(static_cast<std::uint32_t>(t[r])));
                    }
                    for (std::uint32_t w = 0; w < writes; ++w) {
                        t[2 + w] = static_cast<std::int16_t>(rng() % kTiles);
                        args.inout(tile(static_cast<std::uint32_t>(t[2 + w])));
                    }
                }
                args.block_num(1 + static_cast<std::uint32_t>(rng() % 2));
                if (rng() % 2 == 0)
                    submit_aiv(kKernel, args);
                else
                    submit_aic(kKernel, args);
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
    std::uint64_t dependants_ran = 0;  // subtasks of tasks that depend on a failed task, which ran anyway
};

/// check_auto_run: the failure rule on a per-tile model: a task that reads or writes a tile whose last
/// writer failed or was cancelled, or writes a tile read since its last write by such a task, is cancelled
/// and never runs; the others ran every subtask (failing ones included).
Verdict check_auto_run(const Runtime& rt, const RunReport& r, RunState& s) {
    Verdict v;
    v.lost = r.submitted - std::min(r.submitted, r.completed + r.failed + r.cancelled);
    const GraphRecord& g = rt.graph();
    std::int64_t writer[kTiles];
    std::vector<std::uint64_t> readers[kTiles];
    std::fill(std::begin(writer), std::end(writer), -1);
    std::vector<std::uint8_t> bad(g.tasks.size(), 0);  // 1 = failed, 2 = cancelled
    std::uint64_t failed = 0, cancelled = 0;
    for (std::size_t t = 0; t < g.tasks.size(); ++t) {
        const std::int16_t* tiles = s.tiles[t];
        auto poisoned = [&](std::int64_t w) { return w >= 0 && bad[static_cast<std::size_t>(w)] != 0; };
        bool cancel = false;
        for (int k = 0; k < 4; ++k) {
            if (tiles[k] < 0) continue;
            cancel = cancel || poisoned(writer[tiles[k]]);
            if (k >= 2)
                for (std::uint64_t rd : readers[tiles[k]])
                    cancel = cancel || bad[rd] != 0;
        }
        const std::uint32_t runs = s.runs[t].load(std::memory_order_relaxed);
        v.subtasks_run += runs;
        if (cancel) {
            bad[t] = 2;
            ++cancelled;
            v.dependants_ran += runs;
            if (runs != 0) ++v.mismatches;
        } else if (s.faulted[t].load(std::memory_order_relaxed) != 0) {
            bad[t] = 1;
            ++failed;
            ++v.faults;
        } else if (runs != g.tasks[t].block_num) {
            ++v.mismatches;
        }
        for (int k = 0; k < 2; ++k)
            if (tiles[k] >= 0) readers[tiles[k]].push_back(t);
        for (int k = 2; k < 4; ++k) {
            if (tiles[k] < 0) continue;
            writer[tiles[k]] = static_cast<std::int64_t>(t);
            readers[tiles[k]].clear();
        }
    }
    if (failed != r.failed || cancelled != r.cancelled || g.tasks.size() - failed - cancelled != r.completed)
        ++v.mismatches;
    return v;
}

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
    // The last two runtimes run AUTO-scope graphs.
    const std::uint32_t windows[] = {16, 32, 64, 8, 16};
    constexpr std::size_t kFirstAuto = 3;
    std::vector<std::unique_ptr<Runtime>> runtimes;
    RunState state;
    state.runs.reset(new std::atomic<std::uint32_t>[kMaxRunTasks]);
    state.faulted.reset(new std::atomic<std::uint8_t>[kMaxRunTasks]);
    state.tiles.reset(new std::int16_t[kMaxRunTasks][4]);
    std::vector<float> scratch;
    scratch.reserve(kMaxRunTasks);
    for (std::uint32_t w : windows) {
        RuntimeConfig c;
        c.executor = Executor::Compute;
        c.window_tasks = w;
        c.tensormap_entries = 1024;
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
    std::vector<std::uint8_t> bad_scratch;
    bad_scratch.reserve(kMaxRunTasks);
    std::uint64_t done = 0, runs = 0, faults = 0, lost = 0, mismatches = 0, subtasks = 0;
    std::uint64_t auto_tasks = 0, auto_faults = 0, dependants_ran = 0;
    std::uint64_t completed = 0, failed = 0, cancelled = 0;
    std::int64_t rss_start = 0;
    const auto t0 = std::chrono::steady_clock::now();
    std::uint64_t next_progress = total / 10;
    while (done < total) {
        const std::size_t which = rng() % runtimes.size();
        Runtime& rt = *runtimes[which];
        const std::uint64_t count =
            std::min<std::uint64_t>(total - done, 1000 + rng() % (kMaxRunTasks - 1000));
        state.first_id = pto::detail::TaskPort(rt).next_task_id().value;
        state.seed = rng();
        for (std::uint64_t i = 0; i < count; ++i) {
            state.runs[i].store(0, std::memory_order_relaxed);
            state.faulted[i].store(0, std::memory_order_relaxed);
        }
        std::mt19937_64 graph_rng(rng());
        const bool is_auto = which >= kFirstAuto;
        const RunReport r = pto::run(
            rt,
            [&] {
                if (is_auto)
                    submit_auto_graph(graph_rng, count, state, scratch);
                else
                    submit_random_graph(graph_rng, count, windows[which]);
            },
            RunOptions{.throw_on_kernel_failure = false});
        const Verdict v = is_auto ? check_auto_run(rt, r, state) : check_run(rt, r, state, bad_scratch);
        if (is_auto) {
            auto_tasks += r.submitted;
            auto_faults += v.faults;
            dependants_ran += v.dependants_ran;
        }
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

    std::printf(
        "pto-soak: %llu tasks in %llu runs (explicit deps: windows 16/32/64; AUTO scopes: windows 8/16; "
        "compute "
        "executor, jitter), seed %llu\n",
        static_cast<unsigned long long>(done), static_cast<unsigned long long>(runs),
        static_cast<unsigned long long>(seed));
    std::printf("  completed %llu, failed %llu, cancelled %llu; subtasks run %llu\n",
                static_cast<unsigned long long>(completed), static_cast<unsigned long long>(failed),
                static_cast<unsigned long long>(cancelled), static_cast<unsigned long long>(subtasks));
    std::printf("  faults injected %llu, tasks lost %llu, outcome mismatches %llu\n",
                static_cast<unsigned long long>(faults), static_cast<unsigned long long>(lost),
                static_cast<unsigned long long>(mismatches));
    std::printf("  AUTO scopes: %llu tasks, faults injected %llu, dependants of failed tasks that ran %llu\n",
                static_cast<unsigned long long>(auto_tasks), static_cast<unsigned long long>(auto_faults),
                static_cast<unsigned long long>(dependants_ran));
    std::printf("  peak RSS after the first run %lld KiB, at the end %lld KiB\n",
                static_cast<long long>(rss_start), static_cast<long long>(rss_end));
    std::printf("  wall time %.1f s (%.0f tasks/s)\n", seconds, static_cast<double>(done) / seconds);
    if (!json_path.empty()) {
        nlohmann::json j = {{"schema", "pto-soak/1"},
                            {"tasks", done},
                            {"runs", runs},
                            {"seed", seed},
                            {"windows", {16, 32, 64}},
                            {"auto_windows", {8, 16}},
                            {"auto_tasks", auto_tasks},
                            {"auto_faults_injected", auto_faults},
                            {"dependants_of_failed_that_ran", dependants_ran},
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
    return lost == 0 && mismatches == 0 && dependants_ran == 0 ? 0 : 1;
}
