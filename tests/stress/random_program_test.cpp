// docs/design/tensormap.md and docs/reliability.md, conformance (property): random programs of tasks reading
// and writing random views (ranges, rectangles, strided and transposed views) of a few real buffers run
// through AUTO scopes on the compute executor, with random start delays, and must leave exactly the buffers a
// sequential execution of the same program leaves. Every edge comes from the tensormap, so a missed RAW, WAR
// or WAW shows up as a different buffer. Seeds are printed for replay.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "support/random_dag.h"
#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

constexpr FuncId kStep{0};
constexpr std::uint32_t kBuffers = 4;

/// Buffers: four uint32 buffers: 1-D 96, 2-D 12x16, 2-D 8x24, 3-D 4x6x4.
struct Buffers {
    std::vector<std::uint32_t> data[kBuffers];
    Buffers() {
        const std::size_t sizes[kBuffers] = {96, 12 * 16, 8 * 24, 4 * 6 * 4};
        for (std::uint32_t b = 0; b < kBuffers; ++b) {
            data[b].resize(sizes[b]);
            for (std::size_t i = 0; i < sizes[b]; ++i)
                data[b][i] = static_cast<std::uint32_t>(b * 1000 + i);
        }
    }
    TensorView whole(std::uint32_t b) {
        switch (b) {
            case 0:
                return TensorView::contiguous(data[0].data(), DataType::I32, {96});
            case 1:
                return TensorView::contiguous(data[1].data(), DataType::I32, {12, 16});
            case 2:
                return TensorView::contiguous(data[2].data(), DataType::I32, {8, 24});
            default:
                return TensorView::contiguous(data[3].data(), DataType::I32, {4, 6, 4});
        }
    }
};

/// for_each_element: visits the buffer offsets of a view in row-major index order.
template <class Fn>
void for_each_element(const TensorView& v, Fn&& fn) {
    std::uint32_t index[kMaxTensorDims] = {};
    const std::uint64_t n = v.element_count();
    for (std::uint64_t k = 0; k < n; ++k) {
        fn(k, v.element_offset(std::span<const std::uint32_t>(index, v.ndim)));
        for (int d = v.ndim - 1; d >= 0; --d) {
            if (++index[d] < v.shape[d]) break;
            index[d] = 0;
        }
    }
}

/// The operation every task performs: s = wrapping sum of every In element; each Out / InOut element at
/// position k becomes old * 31 + s + 7 * task + k (old = its previous value for InOut, 0 for Out). Blocks
/// split the outputs and read only In views and their own InOut elements, so a task never races with
/// itself; running a task before one it depends on changes the result.
void apply(std::uint32_t task, std::span<const TensorArg> args, std::uint32_t block, std::uint32_t blocks) {
    std::uint32_t s = 0;
    for (const TensorArg& a : args)
        if (a.direction == Direction::In)
            for_each_element(a.view, [&](std::uint64_t, std::int64_t at) {
                s += static_cast<std::uint32_t*>(a.view.base)[at];
            });
    for (const TensorArg& a : args) {
        if (a.direction == Direction::In) continue;
        auto* base = static_cast<std::uint32_t*>(a.view.base);
        for_each_element(a.view, [&](std::uint64_t k, std::int64_t at) {
            if (k % blocks != block) return;  // SPMD blocks split the outputs
            const std::uint32_t old = a.direction == Direction::InOut ? base[at] : 0;
            base[at] = old * 31 + s + 7 * task + static_cast<std::uint32_t>(k);
        });
    }
}

int step_kernel(const KernelContext& ctx) {
    apply(ctx.scalar_as<std::uint32_t>(0), ctx.tensors, ctx.block_idx, ctx.block_num);
    return 0;
}

/// random_view: a range of a 1-D buffer, or a rectangle of a 2-D / 3-D buffer, sometimes every other
/// column (a strided view) or transposed.
TensorView random_view(Buffers& buffers, std::uint32_t b, std::mt19937& rng) {
    TensorView v = buffers.whole(b);
    for (int d = 0; d < v.ndim; ++d) {
        const std::uint32_t n = v.shape[d];
        const std::uint32_t len = 1 + static_cast<std::uint32_t>(rng() % n);
        const std::uint32_t start = static_cast<std::uint32_t>(rng() % (n - len + 1));
        v = v.slice(d, start, len);
    }
    const std::uint32_t last = v.ndim - 1u;
    if (rng() % 4 == 0 && v.shape[last] >= 2) {  // every other element of the last dimension
        v.shape[last] /= 2;
        v.strides[last] *= 2;
    }
    if (v.ndim >= 2 && rng() % 4 == 0) v = v.transpose(0, 1);
    return v;
}

struct ProgramTask {
    std::vector<TensorArg> args;
    std::uint32_t blocks;
    bool aic;
};

std::vector<ProgramTask> random_program(Buffers& buffers, std::uint32_t tasks, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<ProgramTask> program(tasks);
    for (ProgramTask& t : program) {
        // Distinct buffers per task: a kernel's own blocks never read what they write.
        std::uint32_t order[kBuffers] = {0, 1, 2, 3};
        std::shuffle(order, order + kBuffers, rng);
        const std::uint32_t arity = 1 + static_cast<std::uint32_t>(rng() % 3);
        for (std::uint32_t i = 0; i < arity; ++i) {
            const Direction dir = static_cast<Direction>(rng() % 3);
            t.args.push_back(TensorArg{random_view(buffers, order[i], rng), dir});
        }
        t.blocks = 1 + static_cast<std::uint32_t>(rng() % 3);
        t.aic = rng() % 2 == 0;
    }
    return program;
}

}  // namespace

TEST_CASE("random programs over shared buffers match their sequential execution", "[stress][tensormap]") {
    const std::uint32_t schedulers = GENERATE(1u, 3u);
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.timed_jitter = 0.8;  // random start delays: up to 0.8 x 20 us x 0.05 per kernel
    c.timed_scale = 0.05;
    c.scheduler_threads = schedulers;
    c.window_tasks = 64;  // small: producers retire while the program is still being submitted
    c.tensormap_entries = 256;
    Runtime rt(c);
    rt.register_kernel(kStep, KernelInfo{"step", 20.0, &step_kernel, nullptr});
    Orchestrator orchestrator(rt);

    const std::uint32_t programs = 10 * test::stress_scale();
    for (std::uint32_t p = 0; p < programs; ++p) {
        const std::uint32_t seed = 5000 + 100 * schedulers + p;
        INFO("seed " << seed << ", schedulers " << schedulers);
        Buffers parallel;
        Buffers sequential;
        const std::vector<ProgramTask> program = random_program(parallel, 150, seed);

        orchestrator.run([&] {
            for (std::size_t i = 0; i < program.size(); i += 10) {
                PTO2_SCOPE() {
                    for (std::size_t j = i; j < std::min(program.size(), i + 10); ++j) {
                        Args args;
                        for (const TensorArg& a : program[j].args) {
                            if (a.direction == Direction::In)
                                args.input(a.view);
                            else if (a.direction == Direction::Out)
                                args.output(a.view);
                            else
                                args.inout(a.view);
                        }
                        args.scalar(static_cast<std::uint32_t>(j)).block_num(program[j].blocks);
                        if (program[j].aic)
                            submit_aic(kStep, args);
                        else
                            submit_aiv(kStep, args);
                    }
                }
            }
        });

        // The same program, in order, on a second set of buffers (views rebased onto it).
        for (std::size_t j = 0; j < program.size(); ++j) {
            std::vector<TensorArg> rebased = program[j].args;
            for (TensorArg& a : rebased)
                for (std::uint32_t b = 0; b < kBuffers; ++b)
                    if (a.view.base == parallel.data[b].data()) a.view.base = sequential.data[b].data();
            for (std::uint32_t block = 0; block < program[j].blocks; ++block)
                apply(static_cast<std::uint32_t>(j), rebased, block, program[j].blocks);
        }
        for (std::uint32_t b = 0; b < kBuffers; ++b)
            CHECK(parallel.data[b] == sequential.data[b]);
    }
}
