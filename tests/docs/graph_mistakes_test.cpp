// docs/graphs.md "Common mistakes", conformance: each mistake the guide lists gives the error code and the
// message parts it quotes. With PTO_PRINT_MESSAGES set, the messages are printed so the guide can quote
// them as pto writes them.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "pto/scope/orchestration.h"
#include "pto/static_graph/instance.h"
#include "pto/static_graph/template.h"

using namespace pto;

namespace {

constexpr FuncId kProduce{0}, kConsume{1}, kFail{2};

int noop(const KernelContext&) {
    return 0;
}
int fail(const KernelContext&) {
    return 3;
}

void register_kernels(Runtime& rt) {
    rt.register_kernel(kProduce, {"produce", 1.0, &noop});
    rt.register_kernel(kConsume, {"consume", 1.0, &noop});
    rt.register_kernel(kFail, {"fail", 1.0, &fail});
}

/// expect: `fn` throws pto::Error with `code` and every part in its message; prints it on request.
template <class Fn>
void expect(const char* mistake, Fn&& fn, ErrorCode code, std::initializer_list<std::string> parts) {
    try {
        fn();
        FAIL(mistake << ": no pto::Error");
    } catch (const Error& e) {
        if (std::getenv("PTO_PRINT_MESSAGES") != nullptr) std::printf("%s:\n  %s\n\n", mistake, e.what());
        INFO(mistake << ": " << e.what());
        CHECK(e.code() == code);
        for (const std::string& p : parts)
            CHECK(std::string(e.message()).find(p) != std::string::npos);
    }
}

struct Buffers {
    std::vector<float> x = std::vector<float>(64), y = std::vector<float>(64);
    TensorView vx = TensorView::contiguous(x.data(), DataType::F32, {64});
    TensorView vy = TensorView::contiguous(y.data(), DataType::F32, {64});
};

}  // namespace

//   produce(x) ; consume(x) with no declared edge, in a MANUAL scope
TEST_CASE("graphs.md: a forgotten MANUAL edge is a MissingDependency under the checker", "[docs][mistakes]") {
    RuntimeConfig c;
    c.check_dependencies = DependencyCheck::Error;
    Runtime rt(c);
    register_kernels(rt);
    Buffers b;
    expect("a MANUAL scope forgets an edge",
           [&] {
               pto::run(rt, [&] {
                   PTO2_SCOPE(MANUAL) {
                       submit_aiv(kProduce, Args().output(b.vx));
                       submit_aiv(kConsume, Args().input(b.vx));
                   }
               });
           },
           ErrorCode::MissingDependency, {"missing dependency (RAW)", "kernel consume", "kernel produce"});
}

//   template [produce(x) -> consume(x) -> writes y], y not declared a boundary output; then consume(y)
TEST_CASE("graphs.md: a tensormap template output not declared a boundary is reported at its reader",
          "[docs][mistakes]") {
    RuntimeConfig c;
    c.check_dependencies = DependencyCheck::Error;
    Runtime rt(c);
    register_kernels(rt);
    Buffers b;
    TemplateBuilder builder("body", BoundaryMode::Tensormap);
    const TensorSlot x = builder.tensor_slot("x"), y = builder.tensor_slot("y");
    const std::uint32_t p = builder.add_aiv(kProduce, NodeArgs().output(x));
    const std::uint32_t q = builder.add_aiv(kConsume, NodeArgs().input(x).output(y));
    builder.edge(p, q).boundary_input(p, 0);
    const Template tpl = builder.finalize();
    Bindings bind(tpl);
    expect("a tensormap template does not declare an output",
           [&] {
               pto::run(rt, [&] {
                   instantiate(bind.tensor(x, b.vx).tensor(y, b.vy));
                   submit_aiv(kConsume, Args().input(b.vy));
               });
           },
           ErrorCode::MissingDependency, {"missing dependency (RAW)", "node 1"});
}

TEST_CASE("graphs.md: scope, capacity and template mistakes give coded errors", "[docs][mistakes]") {
    Buffers b;
    {
        Runtime rt;
        register_kernels(rt);
        expect("an AUTO scope inside a MANUAL one",
               [&] {
                   pto::run(rt, [&] {
                       PTO2_SCOPE(MANUAL) {
                           PTO2_SCOPE() {}
                       }
                   });
               },
               ErrorCode::ScopeNesting, {"inside a MANUAL scope"});
        expect("a dependency on a task not yet submitted",
               [&] {
                   pto::run(rt, [&] {
                       const TaskId later{pto::detail::TaskPort(rt).next_task_id().value + 3};
                       submit_aiv(kConsume, Args().set_dependencies(&later, 1));
                   });
               },
               ErrorCode::InvalidDependency, {"not"});
    }
    {
        RuntimeConfig c;
        c.window_tasks = 16;
        Runtime rt(c);
        register_kernels(rt);
        expect("one scope around more tasks than the window",
               [&] {
                   pto::run(rt, [&] {
                       PTO2_SCOPE(MANUAL) {
                           for (int i = 0; i < 17; ++i)
                               submit_aiv(kProduce, Args());
                       }
                   });
               },
               ErrorCode::CapacityDeadlock, {"RuntimeConfig::window_tasks (16)", "scope that is still open"});
        c.orchestration = OrchestrationMode::Serial;
        Runtime serial(c);
        register_kernels(serial);
        expect("a serial run larger than the window",
               [&] {
                   pto::run(serial, [&] {
                       for (int i = 0; i < 17; ++i)
                           submit_aiv(kProduce, Args());
                   });
               },
               ErrorCode::CapacityDeadlock, {"serial mode"});
    }
    {
        Runtime rt;
        register_kernels(rt);
        TemplateBuilder builder("body", BoundaryMode::Manual);
        const TensorSlot x = builder.tensor_slot("x");
        builder.boundary_input(builder.add_aiv(kProduce, NodeArgs().output(x)));
        const Template tpl = builder.finalize();
        Bindings bind(tpl);
        expect("a Manual template with boundary inputs in an AUTO scope",
               [&] {
                   pto::run(rt, [&] {
                       PTO2_SCOPE() {
                           instantiate(bind.tensor(x, b.vx));
                       }
                   });
               },
               ErrorCode::BoundaryMismatch, {"body"});
        bind.clear();
        expect("a slot left unbound",
               [&] {
                   pto::run(rt, [&] {
                       PTO2_SCOPE(MANUAL) {
                           instantiate(bind);
                       }
                   });
               },
               ErrorCode::UnboundSlot, {"x"});
    }
    {
        RuntimeConfig c;
        c.executor = Executor::Timed;
        Runtime rt(c);
        expect("a kernel that was never registered",
               [&] { pto::run(rt, [&] { submit_aiv(FuncId{9}, Args()); }); }, ErrorCode::UnknownKernel,
               {"func 9", "not registered"});
    }
}

//   fail ; wait(fail)
TEST_CASE("graphs.md: waiting for a task that failed names it", "[docs][mistakes]") {
    RuntimeConfig c;
    c.executor = Executor::Compute;
    Runtime rt(c);
    register_kernels(rt);
    expect("a wait for a failed task",
           [&] {
               pto::run(rt, [&] {
                   const TaskHandle router = submit_aiv(kFail, Args());
                   pto::wait(router);
               });
           },
           ErrorCode::KernelFailed, {"task 0 (kernel fail) failed"});
}
