// docs/architecture.md and docs/reliability.md, conformance: back-pressure on every pool while progress is
// possible, an immediate CapacityDeadlock naming the knob when it is not, and a long run through a small
// window losing nothing; a producer that allocated nothing retires while its consumers still run.
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "pto/runtime/detail/task_port.h"
#include "pto/runtime/runtime.h"
#include "pto/scope/orchestration.h"
#include "support/gated_kernel.h"

using namespace pto;

namespace {
constexpr FuncId kNop{0};
}

TEST_CASE("a scope holding more tasks than the window is reported at once as a deadlock",
          "[runtime][capacity]") {
    RuntimeConfig c;
    c.window_tasks = 16;
    Runtime rt(c);
    try {
        pto::run(rt, [] {
            PTO2_SCOPE(MANUAL) {
                for (int i = 0; i < 17; ++i)
                    submit_aiv(kNop, Args());
            }
        });
        FAIL("expected CapacityDeadlock");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::CapacityDeadlock);
        CHECK_THAT(e.what(), Catch::Contains("RuntimeConfig::window_tasks (16)") &&
                                 Catch::Contains("held by a scope that is still open"));
    }
    // One scope per iteration fits.
    const RunReport r = pto::run(rt, [] {
        for (int i = 0; i < 100; ++i)
            PTO2_SCOPE(MANUAL) {
                for (int j = 0; j < 10; ++j)
                    submit_aiv(kNop, Args());
            }
    });
    CHECK(r.completed == 1000);
}

TEST_CASE("serial mode with a window smaller than the graph fails naming the knob", "[runtime][capacity]") {
    RuntimeConfig c;
    c.window_tasks = 64;
    c.orchestration = OrchestrationMode::Serial;
    Runtime rt(c);
    try {
        pto::run(rt, [] {
            for (int i = 0; i < 65; ++i)
                submit_aiv(kNop, Args());
        });
        FAIL("expected CapacityDeadlock");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::CapacityDeadlock);
        CHECK_THAT(e.what(), Catch::Contains("serial mode") && Catch::Contains("window_tasks (64)"));
    }
    const RunReport r = pto::run(rt, [] {
        for (int i = 0; i < 64; ++i)
            submit_aiv(kNop, Args());
    });
    CHECK(r.completed == 64);
}

TEST_CASE("runtime-allocated buffers apply back-pressure on the heap and are reused", "[runtime][capacity]") {
    RuntimeConfig c;
    c.heap_bytes = 64 * 1024;
    c.executor = Executor::Timed;
    c.timed_scale = 0.01;
    Runtime rt(c);
    rt.register_kernel(kNop, KernelInfo{"nop", 10.0, nullptr, nullptr});
    const RunReport r = pto::run(rt, [] {
        for (int i = 0; i < 200; ++i) {
            PTO2_SCOPE(MANUAL) {
                TaskHandle buf = alloc_tensors({TensorCreateInfo(DataType::F32, {4096})});  // 16 KiB
                const TaskId id = buf.task_id();
                submit_aiv(kNop, Args().inout(buf.output(0)).set_dependencies(&id, 1));
            }
        }
    });
    CHECK(r.completed == 400);
    CHECK(r.framework_tasks == 200);
    CHECK(r.orchestrator.heap_waits > 0);
}

TEST_CASE("a single allocation larger than the heap is rejected naming heap_bytes", "[runtime][capacity]") {
    RuntimeConfig c;
    c.heap_bytes = 64 * 1024;
    Runtime rt(c);
    try {
        pto::run(rt, [] { alloc_tensors({TensorCreateInfo(DataType::F32, {1u << 20})}); });
        FAIL("expected CapacityExhausted");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::CapacityExhausted);
        CHECK_THAT(e.what(), Catch::Contains("RuntimeConfig::heap_bytes"));
    }
}

TEST_CASE("the edge pool applies back-pressure and a dense graph still completes", "[runtime][capacity]") {
    RuntimeConfig c;
    c.edge_capacity = 64;
    c.window_tasks = 64;
    Runtime rt(c);
    const RunReport r = pto::run(rt, [] {
        std::vector<TaskId> layer;
        for (int l = 0; l < 50; ++l) {
            std::vector<TaskId> next;
            for (int i = 0; i < 6; ++i)
                next.push_back(submit_aiv(kNop, Args().set_dependencies(layer)).task_id());
            layer = next;
        }
    });
    CHECK(r.completed == 300);
    CHECK(r.orchestrator.edge_waits > 0);
}

TEST_CASE("one million tasks pass through a 64-slot window with nothing lost",
          "[runtime][capacity][stress]") {
    RuntimeConfig c;
    c.window_tasks = 64;
    Runtime rt(c);
    constexpr std::uint64_t kTasks = 1'000'000;
    const RunReport r = pto::run(rt, [] {
        TaskId previous;
        for (std::uint64_t i = 0; i < kTasks; ++i) {
            Args args;
            // A chain every 4 tasks, independent otherwise: both fanin and retirement get exercised.
            if (i % 4 != 0 && previous.is_valid()) args.set_dependencies(&previous, 1);
            previous = submit_aiv(kNop, args).task_id();
        }
    });
    CHECK(r.submitted == kTasks);
    CHECK(r.completed == kTasks);
    CHECK(r.failed + r.cancelled == 0);
    CHECK(pto::detail::TaskPort(rt).retired_before() == pto::detail::TaskPort(rt).next_task_id());
}

TEST_CASE("a task retires once it completed unless it allocated outputs its running consumers may read",
          "[runtime][capacity]") {
    // A consumer holds a reference on a producer only for its runtime-allocated buffers; a producer that
    // allocated nothing leaves the window while its consumer still runs.
    const bool allocates = GENERATE(false, true);
    std::atomic<bool> open{false};
    RuntimeConfig c;
    c.executor = Executor::Compute;
    Runtime rt(c);
    rt.register_kernel(kNop, KernelInfo{"nop", 1.0, [](const KernelContext&) { return 0; }, nullptr});
    rt.register_kernel(FuncId{1}, KernelInfo{"gated", 1.0, &test::gated_kernel, &open});
    const RunReport r = pto::run(rt, [&] {
        // The consumer is let go on every way out, so a failed check cannot leave it spinning.
        const test::OpenOnExit release{&open};
        Args producer_args;
        if (allocates) producer_args.output(TensorCreateInfo(DataType::F32, {16}));
        const TaskId producer = submit_aiv(kNop, producer_args).task_id();
        submit_aiv(FuncId{1}, Args().after(producer));
        pto::wait(producer);
        detail::TaskPort port(rt);
        CAPTURE(allocates);
        CHECK((port.try_retire().value > producer.value) == !allocates);
    });
    CHECK(r.completed == 2);
}

TEST_CASE(
    "consumers of producers with outputs drop their references when they end, through a remembered list too",
    "[runtime][capacity]") {
    // Four producers with an allocated output each, and two consumers naming the same four: the second
    // stages the linker's remembered selection. Once all six completed, every one of them retires; a
    // consumer that never dropped its references would hold the producers (and their buffers) forever.
    Runtime rt(RuntimeConfig{});
    const RunReport r = pto::run(rt, [&] {
        TaskId producers[4];
        for (TaskId& p : producers)
            p = submit_aiv(kNop, Args().output(TensorCreateInfo(DataType::F32, {16}))).task_id();
        const TaskId first = submit_aiv(kNop, Args().set_dependencies(producers, 4)).task_id();
        const TaskId second = submit_aiv(kNop, Args().set_dependencies(producers, 4)).task_id();
        pto::wait(first);
        pto::wait(second);
        CHECK(detail::TaskPort(rt).try_retire() == second.plus(1));
    });
    CHECK(r.completed == 6);
}
