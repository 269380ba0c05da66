// docs/api.md and docs/reliability.md, conformance: every misuse raises pto::Error with its code and a
// message naming the task or scope, and the runtime then runs a good graph.
#include <catch2/catch.hpp>

#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "pto/runtime/runtime.h"
#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

constexpr FuncId kNop{0};

/// expect_error: runs `body` as an orchestration function, expects Error{code} whose message contains
/// `fragment`, then proves the runtime still works.
template <class Body>
void expect_error(Runtime& rt, ErrorCode code, const std::string& fragment, Body body) {
    bool thrown = false;
    try {
        pto::run(rt, body);
    } catch (const Error& e) {
        thrown = true;
        CHECK(e.code() == code);
        CHECK_THAT(e.what(), Catch::Contains(fragment));
    }
    CHECK(thrown);
    const RunReport good = pto::run(rt, [] {
        const TaskId a = submit_aiv(kNop, Args()).task_id();
        submit_aic(kNop, Args().set_dependencies(&a, 1));
    });
    CHECK(good.completed == 2);
    CHECK(pto::detail::TaskPort(rt).retired_before() == pto::detail::TaskPort(rt).next_task_id());
}

Runtime& shared_runtime() {
    static Runtime rt([] {
        RuntimeConfig c;
        c.scheduler_threads = 2;
        return c;
    }());
    static bool registered = [] {
        rt.register_kernel(kNop, KernelInfo{"nop", 1.0, nullptr, nullptr});
        return true;
    }();
    (void)registered;
    return rt;
}

}  // namespace

TEST_CASE("an AUTO scope inside a MANUAL scope is rejected naming both scopes", "[runtime][errors]") {
    expect_error(shared_runtime(), ErrorCode::ScopeNesting, "inside a MANUAL scope", [] {
        PTO2_SCOPE(MANUAL) {
            PTO2_SCOPE() {
                submit_aiv(kNop, Args());
            }
        }
    });
}

TEST_CASE("MANUAL inside MANUAL and MANUAL inside AUTO are allowed", "[runtime][scopes]") {
    const RunReport r = pto::run(shared_runtime(), [] {
        PTO2_SCOPE() {
            PTO2_SCOPE(MANUAL) {
                PTO2_SCOPE(MANUAL) {
                    submit_aiv(kNop, Args());
                }
                CHECK(current_scope_depth() == 2);
                CHECK(current_scope_mode() == ScopeMode::Manual);
            }
            CHECK(current_scope_mode() == ScopeMode::Auto);
        }
    });
    CHECK(r.completed == 1);
}

TEST_CASE("a dependency on a task not yet submitted names both tasks", "[runtime][errors]") {
    expect_error(shared_runtime(), ErrorCode::InvalidDependency, "has not been submitted yet", [] {
        PTO2_SCOPE(MANUAL) {
            const TaskId a = submit_aiv(kNop, Args()).task_id();
            const TaskId future{a.value + 5};
            submit_aiv(kNop, Args().set_dependencies(&future, 1));
        }
    });
}

TEST_CASE("one bad producer is found at any position of a long list", "[runtime][errors]") {
    // Lists of several lengths, the bad producer (not yet submitted, or of an earlier run) at every position.
    Runtime& rt = shared_runtime();
    TaskId old;
    pto::run(rt, [&] { old = submit_aiv(kNop, Args()).task_id(); });
    for (std::size_t length : {1u, 3u, 4u, 5u, 8u, 11u}) {
        for (std::size_t bad = 0; bad < length; ++bad) {
            for (const bool future : {true, false}) {
                CAPTURE(length, bad, future);
                expect_error(rt, ErrorCode::InvalidDependency,
                             future ? "has not been submitted yet" : "earlier run", [&] {
                                 std::vector<TaskId> producers;
                                 for (std::size_t i = 0; i < length; ++i)
                                     producers.push_back(submit_aiv(kNop, Args()).task_id());
                                 producers[bad] = future ? TaskId{producers.back().value + 1} : old;
                                 submit_aiv(kNop, Args().set_dependencies(
                                                      producers.data(), static_cast<std::uint32_t>(length)));
                             });
            }
        }
    }
}

TEST_CASE("a refused producer list caught inside a scope leaves the scope's other edges intact",
          "[runtime][errors]") {
    // The producers named before the bad one were already selected when it was found; the orchestration
    // catches the error and goes on in the same scope, whose staged edges must be exactly the good ones.
    RuntimeConfig c;
    c.record_graph = true;
    Runtime rt(c);
    rt.register_kernel(kNop, KernelInfo{"nop", 1.0, nullptr, nullptr});
    TaskId a, b, d;
    bool refused = false;
    const RunReport r = pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            a = submit_aiv(kNop, Args()).task_id();
            b = submit_aiv(kNop, Args().after(a)).task_id();
            try {
                const TaskId list[] = {a, b, TaskId{b.value + 7}};
                submit_aiv(kNop, Args().set_dependencies(list, 3));
            } catch (const Error& e) {
                refused = e.code() == ErrorCode::InvalidDependency;
            }
            d = submit_aic(kNop, Args().after(a, b)).task_id();
        }
    });
    CHECK(refused);
    CHECK(d.value == b.value + 1);  // the refused call took no id
    CHECK(r.submitted == 3);
    CHECK(r.completed == 3);
    const GraphRecord& g = rt.graph();
    REQUIRE(g.tasks.size() == 3);
    const auto producers = [&](std::size_t i) {
        const std::span<const TaskId> p = g.producers_of(g.tasks[i]);
        return std::vector<TaskId>(p.begin(), p.end());
    };
    CHECK(producers(1) == std::vector<TaskId>{a});
    CHECK(producers(2) == std::vector<TaskId>{a, b});
}

TEST_CASE("a dependency on an invalid id or a task of an earlier run is rejected", "[runtime][errors]") {
    Runtime& rt = shared_runtime();
    TaskId old;
    pto::run(rt, [&] { old = submit_aiv(kNop, Args()).task_id(); });
    expect_error(rt, ErrorCode::InvalidDependency, "earlier run",
                 [&] { submit_aiv(kNop, Args().set_dependencies(&old, 1)); });
    expect_error(rt, ErrorCode::InvalidDependency, "invalid TaskId", [] {
        const TaskId none;
        submit_aiv(kNop, Args().set_dependencies(&none, 1));
    });
}

TEST_CASE("a long producer list named again is still checked when changed in place or in a new run",
          "[runtime][errors]") {
    // The linker remembers the last long list it linked, and a list equal to it is not walked again: an
    // array changed in place, and the same ids in the next run, must not pass for it.
    Runtime& rt = shared_runtime();
    std::vector<TaskId> producers;
    const auto name_twice = [&] {
        producers.clear();
        for (int i = 0; i < 6; ++i)
            producers.push_back(submit_aiv(kNop, Args()).task_id());
        for (int c = 0; c < 2; ++c)
            submit_aiv(kNop, Args().set_dependencies(producers));
    };
    expect_error(rt, ErrorCode::InvalidDependency, "has not been submitted yet", [&] {
        name_twice();
        producers[3] = TaskId{producers.back().value + 10};
        submit_aiv(kNop, Args().set_dependencies(producers));
    });
    pto::run(rt, name_twice);
    expect_error(rt, ErrorCode::InvalidDependency, "earlier run",
                 [&] { submit_aiv(kNop, Args().set_dependencies(producers)); });
}

TEST_CASE("set_dependencies twice is rejected; n = 0 clears", "[runtime][errors]") {
    expect_error(shared_runtime(), ErrorCode::DependenciesAlreadySet, "set_dependencies was called twice",
                 [] {
                     const TaskId a = submit_aiv(kNop, Args()).task_id();
                     submit_aiv(kNop, Args().set_dependencies(&a, 1).set_dependencies(&a, 1));
                 });
    const RunReport r = pto::run(shared_runtime(), [] {
        const TaskId a = submit_aiv(kNop, Args()).task_id();
        submit_aiv(kNop, Args().set_dependencies(&a, 1).set_dependencies(nullptr, 0).set_dependencies(&a, 1));
    });
    CHECK(r.completed == 2);
}

TEST_CASE("block_num below 1 is rejected naming the task and kernel", "[runtime][errors]") {
    expect_error(shared_runtime(), ErrorCode::InvalidBlockNum, "kernel nop",
                 [] { submit_aic(kNop, Args().block_num(0)); });
}

TEST_CASE("too many tensor arguments are rejected", "[runtime][errors]") {
    std::vector<float> buffer(4);
    expect_error(shared_runtime(), ErrorCode::TooManyArguments, "17 tensor arguments", [&] {
        Args args;
        for (int i = 0; i < 17; ++i)
            args.input(TensorView::contiguous(buffer.data(), DataType::F32, {4}));
        submit_aiv(kNop, args);
    });
}

TEST_CASE("too many create-infos in one alloc_tensors are rejected naming the alloc task",
          "[runtime][errors]") {
    const std::vector<TensorCreateInfo> infos(17, TensorCreateInfo(DataType::F32, {4}));
    expect_error(shared_runtime(), ErrorCode::TooManyArguments, "(alloc_tensors): 17 tensor arguments",
                 [&] { alloc_tensors(infos); });
}

TEST_CASE("submitting outside a run is rejected", "[runtime][errors]") {
    try {
        submit_aiv(kNop, Args());
        FAIL("expected NoActiveRun");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::NoActiveRun);
        CHECK_THAT(e.what(), Catch::Contains("submit_aiv outside a run"));
    }
    try {
        PTO2_SCOPE(MANUAL) {}
        FAIL("expected NoActiveRun");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::NoActiveRun);
        CHECK_THAT(e.what(), Catch::Contains("PTO2_SCOPE(MANUAL) outside a run"));
    }
}

TEST_CASE("a run inside a run is rejected", "[runtime][errors]") {
    expect_error(shared_runtime(), ErrorCode::RunInProgress, "already open",
                 [] { pto::run(shared_runtime(), [] {}); });
}

TEST_CASE("a create-info passed as an input is rejected", "[runtime][errors]") {
    expect_error(shared_runtime(), ErrorCode::InvalidTensor, "create-info", [] {
        Args args;
        args.output(TensorCreateInfo(DataType::F32, {16}));
        args.tensors()[0].direction = Direction::In;
        submit_aiv(kNop, args);
    });
}

TEST_CASE("the compute executor needs a registered function for every kernel", "[runtime][errors]") {
    RuntimeConfig c;
    c.executor = Executor::Compute;
    Runtime rt(c);
    rt.register_kernel(kNop, KernelInfo{"nop", 1.0, [](const KernelContext&) { return 0; }, nullptr});
    expect_error(rt, ErrorCode::UnknownKernel, "func 9", [] { submit_aiv(FuncId{9}, Args()); });
}
