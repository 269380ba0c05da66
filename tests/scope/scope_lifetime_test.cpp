// docs/architecture.md and docs/api.md, conformance: a scope holds its tasks until it ends (ending never
// waits); tasks outside any scope retire as soon as they finished and nobody references them.
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>

#include "support/catch_printers.h"
#include "pto/runtime/detail/task_port.h"
#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

struct Done {
    std::atomic<int> count{0};
    static int kernel(const KernelContext& ctx) {
        static_cast<Done*>(ctx.user)->count.fetch_add(1);
        return 0;
    }
};

/// wait_retired_to: spins until the window's head reaches `target` or `limit` tries pass; returns the head.
TaskId wait_retired_to(Runtime& rt, TaskId target) {
    TaskId head = pto::detail::TaskPort(rt).try_retire();
    for (int i = 0; i < 1'000'000 && head < target; ++i) {
        std::this_thread::yield();
        head = pto::detail::TaskPort(rt).try_retire();
    }
    return head;
}

}  // namespace

TEST_CASE("finished tasks of an open scope do not retire until the scope ends", "[scope][lifetime]") {
    Done done;
    RuntimeConfig c;
    c.executor = Executor::Compute;
    Runtime rt(c);
    rt.register_kernel(FuncId{0}, KernelInfo{"done", 1.0, &Done::kernel, &done});
    TaskId first, held_head, released_head, end;
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            first = submit_aiv(FuncId{0}, Args()).task_id();
            for (int i = 0; i < 9; ++i)
                submit_aiv(FuncId{0}, Args());
            while (done.count.load() < 10)
                std::this_thread::yield();
            held_head = pto::detail::TaskPort(rt).try_retire();
            end = pto::detail::TaskPort(rt).next_task_id();
        }
        released_head = wait_retired_to(rt, end);
    });
    CHECK(held_head == first);
    CHECK(released_head == end);
}

TEST_CASE("an inner scope releases its tasks when it ends, before the outer one", "[scope][lifetime]") {
    Done done;
    RuntimeConfig c;
    c.executor = Executor::Compute;
    Runtime rt(c);
    rt.register_kernel(FuncId{0}, KernelInfo{"done", 1.0, &Done::kernel, &done});
    TaskId outer_task, inner_end, head_after_inner;
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            PTO2_SCOPE(MANUAL) {
                for (int i = 0; i < 5; ++i)
                    submit_aiv(FuncId{0}, Args());
            }
            inner_end = pto::detail::TaskPort(rt).next_task_id();
            outer_task = submit_aiv(FuncId{0}, Args()).task_id();
            while (done.count.load() < 6)
                std::this_thread::yield();
            head_after_inner = wait_retired_to(rt, inner_end);
            // The outer scope's own task stays until the outer scope ends.
            for (int i = 0; i < 1000; ++i)
                head_after_inner = std::max(head_after_inner, pto::detail::TaskPort(rt).try_retire());
        }
    });
    CHECK(head_after_inner == inner_end);
    CHECK(outer_task == inner_end);
}

TEST_CASE("a producer's outputs stay alive while a consumer that depends on it runs", "[scope][lifetime]") {
    // The alloc task's scope ends long before the consumer runs; the consumer's reference keeps the
    // buffer (and so the alloc task) from retiring until it finished.
    struct Check {
        std::atomic<bool> release{false};
        std::atomic<int> value{0};
        static int kernel(const KernelContext& ctx) {
            auto& self = *static_cast<Check*>(ctx.user);
            while (!self.release.load())
                std::this_thread::yield();
            self.value.store(*ctx.tensors[0].view.data<int>());
            return 0;
        }
    } check;
    RuntimeConfig c;
    c.executor = Executor::Compute;
    Runtime rt(c);
    rt.register_kernel(FuncId{0}, KernelInfo{"check", 1.0, &Check::kernel, &check});
    TaskId alloc, head_while_running;
    pto::run(rt, [&] {
        TensorView buffer;
        PTO2_SCOPE(MANUAL) {
            TaskHandle h = alloc_tensors({TensorCreateInfo(DataType::I32, {1})});
            alloc = h.task_id();
            buffer = h.output(0);
            *buffer.data<int>() = 42;
            submit_aiv(FuncId{0}, Args().input(buffer).set_dependencies(&alloc, 1));
        }
        for (int i = 0; i < 1000; ++i)
            head_while_running = pto::detail::TaskPort(rt).try_retire();
        check.release.store(true);
    });
    CHECK(head_while_running == alloc);
    CHECK(check.value.load() == 42);
}
