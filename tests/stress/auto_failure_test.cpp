// Conformance (property): failure propagation through AUTO scopes. A task whose tracked inputs were last
// written by a failed or cancelled task (RAW), or that overwrites such data (WAW) or data such a task read
// (WAR), is cancelled, whether or not that task has retired: small windows (8, 16) and many unrelated
// tasks in between make the failed producer retire long before its consumer is submitted. Counted: lost
// tasks (must be 0) and dependants of a failed task that ran (must be 0). Seeds are printed for replay.
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

constexpr FuncId kStep{0};
constexpr FuncId kFail{1};

/// Probe: counts the runs of each program task (scalar 0 is its index); kFail always fails.
struct Probe {
    std::unique_ptr<std::atomic<std::uint32_t>[]> runs;
    explicit Probe(std::size_t n) : runs(new std::atomic<std::uint32_t>[n]) {
        for (std::size_t i = 0; i < n; ++i)
            runs[i].store(0);
    }
    static int step(const KernelContext& ctx) {
        static_cast<Probe*>(ctx.user)->runs[ctx.scalars[0]].fetch_add(1);
        return 0;
    }
    static int fail(const KernelContext& ctx) {
        static_cast<Probe*>(ctx.user)->runs[ctx.scalars[0]].fetch_add(1);
        return 7;
    }
};

RuntimeConfig small_window(std::uint32_t window) {
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.cluster_count = 2;
    c.scheduler_threads = 2;
    c.window_tasks = window;
    c.tensormap_entries = 64;
    return c;
}

}  // namespace

//   bad: writes x (fails)   40 unrelated scopes   raw: reads x   waw: writes x   war: writes y after bad read
//   y
TEST_CASE("a reader, overwriter or later writer of a failed task's data is cancelled after it retired",
          "[stress][failure][tensormap]") {
    const std::uint32_t window = GENERATE(8u, 16u);
    Runtime rt(small_window(window));
    Probe probe(64);
    rt.register_kernel(kStep, KernelInfo{"step", 1.0, &Probe::step, &probe});
    rt.register_kernel(kFail, KernelInfo{"fail", 1.0, &Probe::fail, &probe});
    std::vector<float> x(64), y(64), other(64);
    const TensorView vx = TensorView::contiguous(x.data(), DataType::F32, {64});
    const TensorView vy = TensorView::contiguous(y.data(), DataType::F32, {64});
    const TensorView vo = TensorView::contiguous(other.data(), DataType::F32, {64});
    TaskId bad, raw, waw, war;
    const RunReport r = pto::run(
        rt,
        [&] {
            PTO2_SCOPE() {
                bad = submit_aiv(kFail, Args().input(vy).output(vx).scalar(0)).task_id();
            }
            for (int i = 0; i < 40; ++i)
                PTO2_SCOPE() {
                    submit_aiv(kStep, Args().inout(vo).scalar(1));
                }
            REQUIRE(pto::detail::TaskPort(current_runtime()).try_retire().value >
                    bad.value);  // the failed writer is long gone
            PTO2_SCOPE() {
                raw = submit_aiv(kStep, Args().input(vx.slice(0, 8, 8)).scalar(2)).task_id();
            }
            PTO2_SCOPE() {
                waw = submit_aic(kStep, Args().output(vx.slice(0, 32, 8)).scalar(3)).task_id();
            }
            PTO2_SCOPE() {
                war = submit_aiv(kStep, Args().output(vy).scalar(4)).task_id();
            }
        },
        RunOptions{.throw_on_kernel_failure = false});
    CHECK(r.submitted == 44);
    CHECK(r.failed == 1);
    CHECK(r.cancelled == 3);
    CHECK(r.completed == 40);
    CHECK(probe.runs[2].load() == 0);
    CHECK(probe.runs[3].load() == 0);
    CHECK(probe.runs[4].load() == 0);
    REQUIRE(r.failures.size() == 1);
    CHECK(r.failures[0].task == bad);

    // The map forgets at the end of the run: the same buffers are fine in the next one.
    const RunReport again = pto::run(rt, [&] {
        PTO2_SCOPE() {
            submit_aiv(kStep, Args().input(vx).scalar(5));
        }
    });
    CHECK(again.completed == 1);
}

// A failed kernel's runtime-allocated output is poisoned (its reader and its overwriter are cancelled), but
// an unrelated buffer the heap later hands out at the same address is not: its readers and writers run.
TEST_CASE("a new runtime buffer at a failed task's old address is not poisoned",
          "[stress][failure][tensormap]") {
    RuntimeConfig c = small_window(8);
    c.heap_bytes = 4096;
    Runtime rt(c);
    Probe probe(300);
    rt.register_kernel(kStep, KernelInfo{"step", 1.0, &Probe::step, &probe});
    rt.register_kernel(kFail, KernelInfo{"fail", 1.0, &Probe::fail, &probe});
    const TensorCreateInfo info(DataType::F32, {256});
    const RunReport r = pto::run(
        rt,
        [&] {
            for (std::uint64_t i = 0; i < 100; ++i) {
                PTO2_SCOPE() {
                    Args w;
                    w.output(info).scalar(3 * i);
                    const TaskHandle h = submit_aiv(i == 0 ? kFail : kStep, w);
                    submit_aiv(kStep, Args().input(h.output(0)).scalar(3 * i + 1));
                    submit_aiv(kStep, Args().inout(h.output(0)).scalar(3 * i + 2));
                }
            }
        },
        RunOptions{.throw_on_kernel_failure = false});
    CHECK(r.submitted == 300);
    CHECK(r.failed == 1);
    CHECK(r.cancelled == 2);
    CHECK(r.completed == 297);
    CHECK(probe.runs[1].load() == 0);
    CHECK(probe.runs[2].load() == 0);
    std::uint64_t ran_once = 0;
    for (std::uint64_t i = 3; i < 300; ++i)
        ran_once += probe.runs[i].load() == 1 ? 1u : 0u;
    CHECK(ran_once == 297);
}

//   creator: allocates y and fails   40 unrelated scopes   reader of y (AUTO)   reader of y (MANUAL, via
//   creator id)
TEST_CASE("readers of a failed creator's buffer are cancelled after the creator retired",
          "[stress][failure][tensormap]") {
    Runtime rt(small_window(8));
    Probe probe(64);
    rt.register_kernel(kStep, KernelInfo{"step", 1.0, &Probe::step, &probe});
    rt.register_kernel(kFail, KernelInfo{"fail", 1.0, &Probe::fail, &probe});
    std::vector<float> other(64);
    const TensorView vo = TensorView::contiguous(other.data(), DataType::F32, {64});
    const RunReport r = pto::run(
        rt,
        [&] {
            TaskHandle creator;
            TensorView
                created;  // read while the creator's scope is open: the handle's outputs go when it retires
            PTO2_SCOPE() {
                Args a;
                a.output(TensorCreateInfo(DataType::F32, {64})).scalar(0);
                creator = submit_aiv(kFail, a);
                created = creator.output(0);
            }
            for (int i = 0; i < 40; ++i)
                PTO2_SCOPE() {
                    submit_aiv(kStep, Args().inout(vo).scalar(1));
                }
            REQUIRE(pto::detail::TaskPort(current_runtime()).try_retire().value > creator.task_id().value);
            PTO2_SCOPE() {
                submit_aiv(kStep, Args().input(created).scalar(2));
            }
            PTO2_SCOPE(MANUAL) {
                const TaskId c = creator.task_id();
                submit_aic(kStep, Args().input(created).set_dependencies(&c, 1).scalar(3));
            }
        },
        RunOptions{.throw_on_kernel_failure = false});
    CHECK(r.failed == 1);
    CHECK(r.cancelled == 2);
    CHECK(r.completed == 40);
    CHECK(probe.runs[2].load() == 0);
    CHECK(probe.runs[3].load() == 0);
}

// Random programs over 32 tiles (two buffers of 16 tiles, tiles as slices of one view, so the tensormap
// tells them apart by overlap): each task reads and writes a few tiles, one in 12 fails, and runs of
// unrelated tasks separate them so producers retire before their consumers arrive. The expected outcome
// follows from a per-tile model of the last writer and the readers since.
TEST_CASE("random AUTO programs with failing kernels never run a dependant of a failed task",
          "[stress][failure][tensormap]") {
    const std::uint32_t window = GENERATE(8u, 16u);
    const std::uint32_t seed = GENERATE(1u, 2u, 3u);
    INFO("window " << window << ", seed " << seed);
    constexpr std::uint32_t kTiles = 16;
    constexpr std::uint32_t kTileElems = 8;
    constexpr std::size_t kTasks = 400;
    std::mt19937 rng(seed);
    enum class Expect : std::uint8_t { Ok, Failed, Cancelled };
    struct Op {
        std::vector<std::uint32_t> reads, writes;  // tile numbers 0..31
        bool fails;
        bool unrelated;
    };
    std::vector<Op> ops(kTasks);
    std::vector<Expect> expect(kTasks, Expect::Ok);
    std::vector<std::int64_t> last_writer(2 * kTiles, -1);
    std::vector<std::vector<std::size_t>> readers(2 * kTiles);
    for (std::size_t i = 0; i < kTasks; ++i) {
        Op& op = ops[i];
        op.unrelated = rng() % 3 != 0;
        op.fails = !op.unrelated && rng() % 12 == 0;
        if (op.unrelated) continue;
        const auto nr = static_cast<std::uint32_t>(rng() % 3), nw = static_cast<std::uint32_t>(1 + rng() % 2);
        for (std::uint32_t k = 0; k < nr; ++k)
            op.reads.push_back(rng() % (2 * kTiles));
        for (std::uint32_t k = 0; k < nw; ++k)
            op.writes.push_back(rng() % (2 * kTiles));
        bool cancelled = false;
        auto poisoned = [&](std::int64_t t) {
            return t >= 0 && expect[static_cast<std::size_t>(t)] != Expect::Ok;
        };
        for (std::uint32_t t : op.reads)
            cancelled = cancelled || poisoned(last_writer[t]);
        for (std::uint32_t t : op.writes) {
            cancelled = cancelled || poisoned(last_writer[t]);
            for (std::size_t rd : readers[t])
                cancelled = cancelled || expect[rd] != Expect::Ok;
        }
        expect[i] = cancelled ? Expect::Cancelled : op.fails ? Expect::Failed : Expect::Ok;
        for (std::uint32_t t : op.reads)
            readers[t].push_back(i);
        for (std::uint32_t t : op.writes) {
            last_writer[t] = static_cast<std::int64_t>(i);
            readers[t].clear();
        }
    }

    Runtime rt(small_window(window));
    Probe probe(kTasks);
    rt.register_kernel(kStep, KernelInfo{"step", 1.0, &Probe::step, &probe});
    rt.register_kernel(kFail, KernelInfo{"fail", 1.0, &Probe::fail, &probe});
    std::vector<float> a(kTiles * kTileElems), b(kTiles * kTileElems), scratch(kTasks);
    const TensorView va = TensorView::contiguous(a.data(), DataType::F32, {kTiles * kTileElems});
    const TensorView vb = TensorView::contiguous(b.data(), DataType::F32, {kTiles * kTileElems});
    auto tile = [&](std::uint32_t t) {
        return (t < kTiles ? va : vb).slice(0, (t % kTiles) * kTileElems, kTileElems);
    };
    const RunReport r = pto::run(
        rt,
        [&] {
            for (std::size_t i = 0; i < kTasks; ++i) {
                PTO2_SCOPE() {
                    Args args;
                    const Op& op = ops[i];
                    if (op.unrelated) {
                        args.output(TensorView::contiguous(&scratch[i], DataType::F32, {1}));
                    } else {
                        for (std::uint32_t t : op.reads)
                            args.input(tile(t));
                        for (std::uint32_t t : op.writes)
                            args.output(tile(t));
                    }
                    args.scalar(static_cast<std::uint64_t>(i));
                    submit_aiv(op.fails ? kFail : kStep, args);
                }
            }
        },
        RunOptions{.throw_on_kernel_failure = false});

    std::uint64_t want_failed = 0, want_cancelled = 0, dependants_that_ran = 0, lost = 0;
    for (std::size_t i = 0; i < kTasks; ++i) {
        const std::uint32_t runs = probe.runs[i].load();
        switch (expect[i]) {
            case Expect::Ok:
                lost += runs == 1 ? 0 : 1;
                break;
            case Expect::Failed:
                ++want_failed;
                lost += runs == 1 ? 0 : 1;
                break;
            case Expect::Cancelled:
                ++want_cancelled;
                dependants_that_ran += runs;
                break;
        }
    }
    CHECK(dependants_that_ran == 0);
    CHECK(lost == 0);
    CHECK(r.submitted == kTasks);
    CHECK(r.failed == want_failed);
    CHECK(r.cancelled == want_cancelled);
    CHECK(r.completed + r.failed + r.cancelled == r.submitted);
}
