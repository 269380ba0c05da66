// Template and Bindings lifetime: destroying them while instances of the template are still in flight is
// fine, because the runtime holds the instances' edge tables until their tasks retire, and Bindings and
// Instances share the template's tables. Each kernel checks that its producers finished before it runs,
// so tables read after they were freed (a wrong release, or one that never comes) fail the run or stall it;
// under ASan the read itself is reported. And an internal producer retires once it completed, while its
// internal consumer still runs: only readers of the buffers it allocated (later dynamic tasks) hold it.
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "support/catch_printers.h"
#include "support/gated_kernel.h"
#include "support/stall_timeouts.h"
#include "pto/runtime/detail/task_port.h"
#include "pto/scope/orchestration.h"
#include "pto/static_graph/instance.h"

using namespace pto;

namespace {

constexpr FuncId kOrdered{0};
constexpr std::uint64_t kNone = ~0ull;

/// Progress: one flag per task the test submits; a gate that holds every kernel until it opens.
struct Progress {
    explicit Progress(std::size_t tasks) : done(tasks) {}
    std::vector<std::atomic<bool>> done;
    std::atomic<bool> gate_open{true};
};

/// ordered_kernel: scalar 0 is the task's own index, scalars 1 and 2 its producers' (or kNone). Fails if a
/// producer has not finished: the runtime released this task early.
int ordered_kernel(const KernelContext& ctx) {
    auto& p = *static_cast<Progress*>(ctx.user);
    while (!p.gate_open.load(std::memory_order_acquire))
        std::this_thread::yield();
    for (std::size_t s = 1; s <= 2; ++s)
        if (ctx.scalars[s] != kNone && !p.done[ctx.scalars[s]].load(std::memory_order_acquire)) return 1;
    p.done[ctx.scalars[0]].store(true, std::memory_order_release);
    return 0;
}

//   previous instance's node 3 ─► 0 ─┬─► 1 ─┬─► 3
//                                    └─► 2 ─┘
struct Diamond {
    static constexpr std::uint32_t kNodes = 4;
    Template tpl;
    ScalarSlot self[kNodes], first[kNodes], second[kNodes];

    Diamond() {
        TemplateBuilder b("diamond", BoundaryMode::Manual);
        for (std::uint32_t k = 0; k < kNodes; ++k) {
            self[k] = b.scalar_slot("self" + std::to_string(k));
            first[k] = b.scalar_slot("first" + std::to_string(k));
            second[k] = b.scalar_slot("second" + std::to_string(k));
            b.add_aiv(kOrdered, NodeArgs().scalar(self[k]).scalar(first[k]).scalar(second[k]));
        }
        b.edge(0, 1).edge(0, 2).edge(1, 3).edge(2, 3).boundary_input(0);
        tpl = b.finalize();
    }

    /// bind: the scalars of instance `i` (tasks 4i .. 4i + 3 in the test's numbering).
    void bind(Bindings& b, std::uint64_t i) const {
        const std::uint64_t base = kNodes * i;
        const std::uint64_t carry = i == 0 ? kNone : base - 1;
        const std::uint64_t producers[kNodes][2] = {
            {carry, kNone}, {base, kNone}, {base, kNone}, {base + 1, base + 2}};
        for (std::uint32_t k = 0; k < kNodes; ++k)
            b.scalar(self[k], base + k).scalar(first[k], producers[k][0]).scalar(second[k], producers[k][1]);
    }
};

RuntimeConfig compute_config(std::uint32_t window) {
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.compute_threads = 4;
    c.timed_jitter = 0.5;  // random start delays: consumers released early would overtake producers
    c.window_tasks = window;
    c.stall_timeout_ms = 2 * test::kStallTimeoutMs;  // corrupted tables show as a stall: fail in seconds
    return c;
}

void check_all_done(const Progress& p, std::size_t tasks) {
    for (std::size_t t = 0; t < tasks; ++t) {
        INFO("task " << t);
        CHECK(p.done[t].load());
    }
}

}  // namespace

TEST_CASE("destroying a Template and its Bindings while its instances wait to run is fine",
          "[static_graph][lifetime]") {
    constexpr std::uint64_t kInstances = 8;
    constexpr std::uint64_t kBeforeDestroy = 5;
    Runtime rt(compute_config(1024));
    Progress progress(kInstances * Diamond::kNodes);
    rt.register_kernel(kOrdered, KernelInfo{"ordered", 20.0, &ordered_kernel, &progress});
    progress.gate_open = false;  // nothing runs until the template and its bindings are gone

    const RunReport r = pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            auto diamond = std::make_unique<Diamond>();
            auto bindings = std::make_unique<Bindings>(diamond->tpl);
            Instance prev;
            std::uint64_t i = 0;
            for (; i < kBeforeDestroy; ++i) {
                diamond->bind(*bindings, i);
                if (prev.is_valid()) bindings->depend(0, prev.node(3));
                prev = instantiate(*bindings);
            }
            // The Template goes first (its slot handles are plain indices): its Bindings keeps stamping
            // instances out.
            diamond->tpl = Template();
            for (; i < kInstances; ++i) {
                diamond->bind(*bindings, i);
                bindings->depend(0, prev.node(3));
                prev = instantiate(*bindings);
            }
            bindings.reset();
            diamond.reset();
            (void)join(prev);  // an Instance outlives its Template and Bindings too
            progress.gate_open = true;
        }
    });

    CHECK(r.submitted == kInstances * Diamond::kNodes + 1);
    CHECK(r.completed == r.submitted);
    CHECK(r.failed == 0);
    CHECK(r.cancelled == 0);
    check_all_done(progress, kInstances * Diamond::kNodes);
}

TEST_CASE("destroying a Template and its Bindings after instantiation waited for the window is fine",
          "[static_graph][lifetime]") {
    // A 16-task window holds 4 instances: the loop waits for retirement, and when the template goes, the
    // last instances are still running (start delays of up to 100 us each).
    constexpr std::uint64_t kInstances = 24;
    Runtime rt(compute_config(16));
    Progress progress(kInstances * Diamond::kNodes);
    rt.register_kernel(kOrdered, KernelInfo{"ordered", 200.0, &ordered_kernel, &progress});

    const RunReport r = pto::run(rt, [&] {
        auto diamond = std::make_unique<Diamond>();
        auto bindings = std::make_unique<Bindings>(diamond->tpl);
        Instance prev;
        for (std::uint64_t i = 0; i < kInstances; ++i) {
            diamond->bind(*bindings, i);
            // One scope per instance, so the window drains while the chain grows.
            PTO2_SCOPE(MANUAL) {
                if (prev.is_valid()) bindings->depend(0, prev.node(3));
                prev = instantiate(*bindings);
            }
        }
        bindings.reset();
        diamond.reset();
    });

    CHECK(r.orchestrator.window_waits > 0);  // instantiation really back-pressured
    CHECK(r.submitted == kInstances * Diamond::kNodes);
    CHECK(r.completed == r.submitted);
    CHECK(r.failed == 0);
    CHECK(r.cancelled == 0);
    check_all_done(progress, kInstances * Diamond::kNodes);
}

namespace {

constexpr FuncId kQuick{1};
constexpr FuncId kGatedNode{2};
constexpr FuncId kGatedReader{3};

}  // namespace

TEST_CASE(
    "an internal producer retires while its internal consumer runs; a dynamic reader of its output holds it",
    "[static_graph][lifetime]") {
    // producer ─► consumer (gated), both nodes of one instance, outside any scope. The producer may
    // allocate an output; no node of the instance can read it, so the consumer holds no reference either
    // way. A dynamic task reading that output after instantiate does hold one.
    const bool allocates = GENERATE(false, true);
    std::atomic<bool> node_gate{false}, reader_gate{false};
    RuntimeConfig c;
    c.executor = Executor::Compute;
    Runtime rt(c);
    rt.register_kernel(kQuick, KernelInfo{"quick", 1.0, [](const KernelContext&) { return 0; }, nullptr});
    rt.register_kernel(kGatedNode, KernelInfo{"gated node", 1.0, &test::gated_kernel, &node_gate});
    rt.register_kernel(kGatedReader, KernelInfo{"gated reader", 1.0, &test::gated_kernel, &reader_gate});

    TemplateBuilder b("pair", BoundaryMode::Manual);
    NodeArgs producer_args;
    if (allocates) producer_args.output(TensorCreateInfo(DataType::F32, {16}));
    const auto producer = b.add_aiv(kQuick, producer_args.label("producer"));
    const auto consumer = b.add_aiv(kGatedNode, NodeArgs().label("consumer"));
    b.edge(producer, consumer);
    const Template tpl = b.finalize();
    Bindings bindings(tpl);

    const RunReport r = pto::run(rt, [&] {
        // The gated tasks are let go on every way out, so a failed check cannot leave them spinning.
        const test::OpenOnExit release{&node_gate, &reader_gate};
        const Instance first = instantiate(bindings);
        pto::wait(first.node(0));
        detail::TaskPort port(rt);
        CAPTURE(allocates);
        CHECK(port.try_retire() == first.node(1));  // its consumer (still gated) holds nothing on it

        if (!allocates) return;
        // The same shape again, with a dynamic reader of the new output, gated on its own.
        node_gate = true;
        const Instance second = instantiate(bindings);
        submit_aiv(kGatedReader, Args().input(bindings.submitted_view(0, 0)).after(second.node(0)));
        pto::wait(first.node(1));
        pto::wait(second.node(0));
        CHECK(port.try_retire() == second.node(0));  // everything before it left; the reader holds it
    });
    CHECK(r.failed + r.cancelled == 0);
    CHECK(r.completed == r.submitted);
}
