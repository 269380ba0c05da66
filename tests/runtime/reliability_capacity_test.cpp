// docs/architecture.md and docs/reliability.md, conformance: every pool (task window, heap, edge pool,
// argument ring, tensormap) applies back-pressure while retirement can free it, and reports a provable
// deadlock at once with a diagnosis that names the knob and what pins it; a template instance larger than the
// window is rejected outright. After each error the same runtime runs a good graph.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "pto/runtime/runtime.h"
#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

constexpr FuncId kNop{0};

/// expect_deadlock: runs `orchestration`, which must fail with CapacityDeadlock whose message contains every
/// fragment; then checks the runtime still runs a small graph.
template <class Fn>
void expect_deadlock(Runtime& rt, Fn orchestration, const std::vector<std::string>& fragments) {
    try {
        pto::run(rt, orchestration);
        FAIL("expected CapacityDeadlock");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::CapacityDeadlock);
        for (const std::string& f : fragments)
            CHECK_THAT(e.what(), Catch::Contains(f));
    }
    const RunReport r = pto::run(rt, [] {
        const TaskId a = submit_aiv(kNop, Args()).task_id();
        submit_aiv(kNop, Args().set_dependencies(&a, 1));
    });
    CHECK(r.completed == 2);
}

/// A buffer the tasks below take views of; never dereferenced (instant executor).
float g_buffer[1 << 16];

TensorView slot_view(std::uint32_t i) {
    return TensorView::contiguous(g_buffer, DataType::F32, {1u << 16}).slice(0, (i % 4096) * 16, 16);
}

}  // namespace

//   PTO2_SCOPE(MANUAL) { pinned; loop { PTO2_SCOPE(MANUAL) { consumer of pinned } } }
TEST_CASE("a scope-held producer pins the window: the deadlock names the task and window_tasks",
          "[runtime][capacity]") {
    RuntimeConfig c;
    c.window_tasks = 16;
    Runtime rt(c);
    expect_deadlock(rt,
                    [] {
                        PTO2_SCOPE(MANUAL) {
                            const TaskId pinned =
                                submit_aiv(kNop, Args()).task_id();  // task 0: the runtime is fresh
                            for (int i = 0; i < 100; ++i)
                                PTO2_SCOPE(MANUAL) {
                                    submit_aiv(kNop, Args().set_dependencies(&pinned, 1));
                                }
                        }
                    },
                    {"RuntimeConfig::window_tasks (16) is exhausted and cannot drain",
                     "the oldest unretired task 0 is held by a scope that is still open",
                     "open scopes hold 1 of the 16 unretired tasks"});
}

TEST_CASE("a scope-held buffer pins the heap: the deadlock names heap_bytes", "[runtime][capacity]") {
    RuntimeConfig c;
    c.heap_bytes = 64 * 1024;
    Runtime rt(c);
    expect_deadlock(
        rt,
        [] {
            PTO2_SCOPE(MANUAL) {
                alloc_tensors({TensorCreateInfo(DataType::F32, {4096})});  // task 0, 16 KiB, pinned
                for (int i = 0; i < 10; ++i)
                    PTO2_SCOPE(MANUAL) {
                        alloc_tensors({TensorCreateInfo(DataType::F32, {4096})});
                    }
            }
        },
        {"RuntimeConfig::heap_bytes (65536) is exhausted and cannot drain",
         "the oldest unretired task 0 is held by a scope"});
}

TEST_CASE("a scope whose edges outgrow the edge pool deadlocks naming edge_capacity", "[runtime][capacity]") {
    RuntimeConfig c;
    c.edge_capacity = 64;
    c.window_tasks = 64;
    Runtime rt(c);
    expect_deadlock(rt,
                    [] {
                        PTO2_SCOPE(MANUAL) {
                            std::vector<TaskId> recent;
                            for (int i = 0; i < 40; ++i) {
                                const TaskId id = submit_aiv(kNop, Args().set_dependencies(recent)).task_id();
                                recent.push_back(id);
                                if (recent.size() > 8) recent.erase(recent.begin());
                            }
                        }
                    },
                    {"RuntimeConfig::edge_capacity (64) is exhausted and cannot drain",
                     "held by a scope that is still open"});
}

TEST_CASE(
    "the argument ring applies back-pressure, and a scope outgrowing it deadlocks naming argument_bytes",
    "[runtime][capacity]") {
    RuntimeConfig c;
    c.argument_bytes = 8192;
    c.window_tasks = 64;
    Runtime rt(c);
    // 16 untracked tensors per task: about 1.6 KiB of arguments each, so five tasks fill the ring.
    const auto wide_args = [] {
        Args args;
        for (std::uint32_t t = 0; t < kMaxTensorArgs; ++t)
            args.input(slot_view(t).untracked());
        return args;
    };
    const RunReport r = pto::run(rt, [&] {
        for (int i = 0; i < 200; ++i) {
            Args args = wide_args();
            submit_aiv(kNop, args);
        }
    });
    CHECK(r.completed == 200);
    CHECK(r.orchestrator.argument_waits > 0);
    expect_deadlock(rt,
                    [&] {
                        PTO2_SCOPE(MANUAL) {
                            for (int i = 0; i < 20; ++i) {
                                Args args = wide_args();
                                submit_aiv(kNop, args);
                            }
                        }
                    },
                    {"RuntimeConfig::argument_bytes (8192) is exhausted and cannot drain",
                     "held by a scope that is still open"});
}

TEST_CASE(
    "the tensormap applies back-pressure, and an AUTO scope outgrowing it deadlocks naming tensormap_entries",
    "[runtime][capacity][tensormap]") {
    RuntimeConfig c;
    c.tensormap_entries = 64;
    c.window_tasks = 256;
    Runtime rt(c);
    // Outside any scope each task's entry is reclaimed once the task retires: the map only makes it wait.
    const RunReport r = pto::run(rt, [] {
        for (std::uint32_t i = 0; i < 2000; ++i)
            submit_aiv(kNop, Args().output(slot_view(i)));
    });
    CHECK(r.completed == 2000);
    CHECK(r.orchestrator.tensormap_waits > 0);
    CHECK(r.orchestrator.tensormap_inserts == 2000);
    // One AUTO scope writing 65 disjoint views holds 65 live entries: it can never fit.
    expect_deadlock(rt,
                    [] {
                        PTO2_SCOPE() {
                            for (std::uint32_t i = 0; i < 65; ++i)
                                submit_aiv(kNop, Args().output(slot_view(i)));
                        }
                    },
                    {"RuntimeConfig::tensormap_entries (64) is exhausted and cannot drain",
                     "held by a scope that is still open"});
    // The same graph in scopes of 16 tasks fits.
    const RunReport ok = pto::run(rt, [] {
        for (std::uint32_t s = 0; s < 8; ++s)
            PTO2_SCOPE() {
                for (std::uint32_t i = 0; i < 16; ++i)
                    submit_aiv(kNop, Args().output(slot_view(16 * s + i)));
            }
    });
    CHECK(ok.completed == 128);
}

TEST_CASE(
    "a template instance larger than the window is rejected naming window_tasks, leaving nothing behind",
    "[runtime][capacity]") {
    RuntimeConfig c;
    c.window_tasks = 16;
    Runtime rt(c);
    const auto chain = [](std::size_t n) {
        static const std::uint32_t kNext[] = {1};
        std::vector<InstanceNode> nodes(n);
        for (std::size_t i = 0; i < n; ++i) {
            nodes[i].spec.core = CoreType::AIV;
            nodes[i].spec.funcs[0] = kNop;
            if (i + 1 < n) nodes[i].consumer_offsets = kNext;
            if (i > 0) nodes[i].producer_offsets = kNext;
        }
        return nodes;
    };
    pto::detail::TaskPort(rt).begin_run();
    auto big = chain(17);
    const TaskId before = pto::detail::TaskPort(rt).next_task_id();
    try {
        pto::detail::TaskPort(rt).submit_instance(big, false);
        FAIL("expected CapacityExhausted");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::CapacityExhausted);
        CHECK_THAT(e.what(), Catch::Contains("instance of 17 tasks") &&
                                 Catch::Contains("larger than the whole task window") &&
                                 Catch::Contains("RuntimeConfig::window_tasks (16)"));
    }
    CHECK(pto::detail::TaskPort(rt).next_task_id() == before);
    auto fits = chain(16);
    pto::detail::TaskPort(rt).submit_instance(fits, false);
    pto::detail::TaskPort(rt).submit_instance(fits, false);  // waits for the first instance to retire
    const RunReport r = pto::detail::TaskPort(rt).end_run();
    CHECK(r.submitted == 32);
    CHECK(r.completed == 32);
}
