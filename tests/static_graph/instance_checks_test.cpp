// docs/design/static-graph.md, docs/reliability.md: what an instance still checks although its template was
// checked once: a bound view is checked once per slot however many arguments it feeds (no buffer, a bad
// rank, a negative stride) and refused naming the template, the slot and a node it feeds, with nothing
// submitted; the template's kernels and room are checked against each run's runtime (kernels not
// registered for the executor, a heap, argument ring or edge pool too small, MIX without two AIV lanes), also
// when the same template passed in another runtime or run; and finalize refuses a constant view with a
// negative stride.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "support/catch_printers.h"
#include "pto/runtime/detail/task_port.h"
#include "pto/static_graph/instance.h"
#include "support/expect_error.h"

using namespace pto;
using pto::test::expect_error;

namespace {

constexpr FuncId kK{0};
constexpr FuncId kOther{1};

RuntimeConfig serial() {
    RuntimeConfig c;
    c.orchestration = OrchestrationMode::Serial;
    return c;
}

//   0 (load: reads x) ─► 1 (store: reads x, writes y)      x feeds two arguments; node 0 takes producers
struct Pair {
    Template tpl;
    TensorSlot x, y;

    explicit Pair(FuncId store_kernel = kK) {
        TemplateBuilder b("pair", BoundaryMode::Manual);
        x = b.tensor_slot("x");
        y = b.tensor_slot("y");
        const auto load = b.add_aiv(kK, NodeArgs().input(x).label("load"));
        const auto store = b.add_aic(store_kernel, NodeArgs().input(x).output(y).label("store"));
        b.edge(load, store).boundary_input(load);
        tpl = b.finalize();
    }
};

}  // namespace

TEST_CASE("a bad view bound to a slot is an InvalidTensor naming the slot and a node; nothing is submitted",
          "[static_graph][errors][tensor]") {
    std::vector<float> data(64);
    const TensorView good = TensorView::contiguous(data.data(), DataType::F32, {4, 4});
    TensorView negative = good;
    negative.strides[0] = -4;
    negative.offset = 12;
    TensorView rank0 = good;
    rank0.ndim = 0;
    TensorView rank6 = good;
    rank6.ndim = 6;
    Pair p;
    Bindings b(p.tpl);
    Runtime rt(serial());
    const RunReport r = pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            const TaskId before = submit_dependency_only(Args()).task_id();
            const std::pair<TensorView, std::string> cases[] = {
                {negative, "negative stride"}, {rank0, "rank 0"}, {rank6, "rank 6"}};
            for (const auto& [bad, why] : cases) {
                b.tensor(p.x, bad).tensor(p.y, good);
                expect_error([&] { instantiate(b); }, ErrorCode::InvalidTensor,
                             {"template 'pair'", "tensor slot 'x'", "node 0 (load)", why});
                b.tensor(p.x, good).tensor(p.y, bad);
                expect_error([&] { instantiate(b); }, ErrorCode::InvalidTensor,
                             {"template 'pair'", "tensor slot 'y'", "node 1 (store)", why});
            }
            // The refused calls kept the bindings and submitted nothing: a good instance follows.
            b.tensor(p.y, good);
            const Instance first = instantiate(b);
            CHECK(first.base() == before.plus(1));
        }
    });
    CHECK(r.submitted == 3);
    CHECK(r.completed == 3);
}

TEST_CASE("submit_planned checks each bound view once, and the inputs' sizes",
          "[static_graph][errors][tensor]") {
    std::vector<float> data(64);
    const TensorView good = TensorView::contiguous(data.data(), DataType::F32, {4, 4});
    TensorView negative = good;
    negative.strides[1] = -1;
    negative.offset = 3;
    // x feeds both nodes: checked once, named with the first node it feeds.
    const TensorArg protos[2] = {TensorArg{TensorView{}, Direction::In},
                                 TensorArg{TensorView{}, Direction::Out}};
    const std::uint32_t slots0[1] = {0};
    const std::uint32_t slots1[2] = {0, 1};
    pto::detail::PlanNodeDesc nodes[2];
    nodes[0].core = CoreType::AIV;
    nodes[0].funcs[0] = kK;
    nodes[0].tensors = {protos, 1};
    nodes[0].tensor_slots = slots0;
    nodes[0].label = "load";
    nodes[1] = nodes[0];
    nodes[1].tensors = protos;
    nodes[1].tensor_slots = slots1;
    nodes[1].label = "store";
    OffsetLists consumers{{0, 1, 1}, {1}};
    OffsetLists producers{{0, 0, 1}, {1}};
    const auto plan = pto::detail::InstancePlan::create(
        "plan 'raw'", nodes, {"x", "y"}, 0,
        InstanceEdges::create("plan 'raw'", std::move(consumers), std::move(producers)));
    CHECK(plan->used_tensor_slots().size() == 2);
    Runtime rt(serial());
    const RunReport r = pto::run(rt, [&] {
        pto::detail::TaskPort port(rt);
        TensorView views[2] = {negative, good};
        pto::detail::InstanceInputs in;
        in.tensor_slots = views;
        expect_error([&] { port.submit_planned(*plan, in, false); }, ErrorCode::InvalidTensor,
                     {"plan 'raw': tensor slot 'x'", "node 0 (load)", "negative stride"});
        views[0] = good;
        views[1].ndim = 7;
        expect_error([&] { port.submit_planned(*plan, in, false); }, ErrorCode::InvalidTensor,
                     {"tensor slot 'y'", "node 1 (store)", "rank 7"});
        views[1] = good;
        in.tensor_slots = {views, 1};
        expect_error([&] { port.submit_planned(*plan, in, false); }, ErrorCode::InvalidArgument,
                     {"plan 'raw'", "1 tensor slots", "the plan has 2"});
        in.tensor_slots = views;
        const TaskId first = port.submit_planned(*plan, in, false);
        // An instance's nodes keep their tensors by reference, in the instance's view table: there are no
        // TensorArgs to hand out (their kernels see them resolved, instance_arguments_test.cpp).
        CHECK(port.task_tensors(first.plus(1)).empty());
    });
    CHECK(r.submitted == 2);
    CHECK(r.completed == 2);
}

TEST_CASE("a template's kernels are checked against every run's runtime, not once for good",
          "[static_graph][errors][kernels]") {
    std::vector<float> data(32);
    const TensorView xv = TensorView::contiguous(data.data(), DataType::F32, {8});
    const TensorView yv = TensorView::contiguous(data.data() + 8, DataType::F32, {8});
    Pair p(kOther);
    Bindings b(p.tpl);
    RuntimeConfig timed = serial();
    timed.executor = Executor::Timed;
    Runtime registered(timed);
    registered.register_kernel(kK, KernelInfo{"load_kernel", 0.0});
    registered.register_kernel(kOther, KernelInfo{"store_kernel", 0.0});
    const auto once = [&](Runtime& rt) {
        pto::run(rt, [&] {
            PTO2_SCOPE(MANUAL) {
                instantiate(b.tensor(p.x, xv).tensor(p.y, yv));
            }
        });
    };
    once(registered);
    CHECK(registered.last_report().submitted == 2);

    // Another runtime under the same executor, missing the store kernel: refused although the same
    // template passed in `registered`, naming the node and the kernel; the bindings stay for a retry.
    Runtime missing(timed);
    missing.register_kernel(kK, KernelInfo{"load_kernel", 0.0});
    expect_error([&] { once(missing); }, ErrorCode::UnknownKernel,
                 {"template 'pair' node 1 (store)", "func 1", "not registered"});
    CHECK(missing.last_report().submitted == 0);
    missing.register_kernel(kOther, KernelInfo{"store_kernel", 0.0});
    once(missing);  // registered between runs: the next run checks again and passes
    CHECK(missing.last_report().submitted == 2);

    // The compute executor needs a function, not only a registration.
    RuntimeConfig compute = serial();
    compute.executor = Executor::Compute;
    Runtime no_function(compute);
    no_function.register_kernel(kK, KernelInfo{"load_kernel", 0.0});
    no_function.register_kernel(kOther, KernelInfo{"store_kernel", 0.0});
    b.clear();
    expect_error([&] { once(no_function); }, ErrorCode::UnknownKernel,
                 {"template 'pair' node 0 (load)", "load_kernel", "no registered compute function"});

    // The instant executor needs no registration at all.
    Runtime instant(serial());
    b.clear();
    once(instant);
    CHECK(instant.last_report().submitted == 2);
}

TEST_CASE(
    "an instance needing more heap, argument ring or edge pool than the runtime has is CapacityExhausted",
    "[static_graph][errors][capacity]") {
    TemplateBuilder big("allocates", BoundaryMode::Manual);
    big.add_aiv(kK, NodeArgs().output(TensorCreateInfo(DataType::F32, {1024, 64})).label("produce"));
    big.boundary_input(0);
    const Template tpl = big.finalize();
    Bindings b(tpl);

    RuntimeConfig small_heap = serial();
    small_heap.heap_bytes = 64 << 10;
    Runtime heap_rt(small_heap);
    pto::run(heap_rt, [&] {
        PTO2_SCOPE(MANUAL) {
            expect_error([&] { instantiate(b); }, ErrorCode::CapacityExhausted,
                         {"template 'allocates'", "RuntimeConfig::heap_bytes"});
        }
    });
    CHECK(heap_rt.last_report().submitted == 0);

    TemplateBuilder wide("wide", BoundaryMode::Manual);
    for (int i = 0; i < 20; ++i) {  // 512 bytes of ring each (with room for wrapping), 10240 in all
        NodeArgs args;
        for (int s = 0; s < 30; ++s)
            args.scalar_value(s);
        wide.add_aiv(kK, args);
    }
    const Template wide_tpl = wide.finalize();
    Bindings wb(wide_tpl);
    RuntimeConfig small_ring = serial();
    small_ring.window_tasks = 32;
    small_ring.argument_bytes = 8192;
    Runtime ring_rt(small_ring);
    pto::run(ring_rt, [&] {
        expect_error([&] { instantiate(wb); }, ErrorCode::CapacityExhausted,
                     {"template 'wide'", "RuntimeConfig::argument_bytes"});
    });
    CHECK(ring_rt.last_report().submitted == 0);

    RuntimeConfig few_edges = serial();
    few_edges.edge_capacity = 64;
    Runtime edge_rt(few_edges);
    pto::run(edge_rt, [&] {
        PTO2_SCOPE(MANUAL) {
            std::vector<TaskId> producers;
            for (int i = 0; i < 65; ++i)
                producers.push_back(submit_dependency_only(Args()).task_id());
            b.depend(0, producers);
            expect_error([&] { instantiate(b); }, ErrorCode::CapacityExhausted,
                         {"template 'allocates'", "65 boundary edges", "RuntimeConfig::edge_capacity (64)"});
            b.clear();
            b.depend(0, std::span<const TaskId>(producers).first(64));
            instantiate(b);
        }
    });
    CHECK(edge_rt.last_report().submitted == 66);
}

TEST_CASE("a MIX node needs two AIV lanes per cluster in the runtime that runs it",
          "[static_graph][errors]") {
    TemplateBuilder mb("mixed", BoundaryMode::Manual);
    mb.add_mix(kK, kK, kK, NodeArgs().label("fused"));
    const Template tpl = mb.finalize();
    Bindings b(tpl);
    RuntimeConfig one_lane = serial();
    one_lane.aiv_per_cluster = 1;
    Runtime rt(one_lane);
    pto::run(rt, [&] {
        expect_error([&] { instantiate(b); }, ErrorCode::InvalidArgument,
                     {"template 'mixed' node 0 (fused)", "aiv_per_cluster = 1"});
    });
    CHECK(rt.last_report().submitted == 0);
}

TEST_CASE("finalize refuses a constant view with a negative stride, naming the node",
          "[static_graph][finalize]") {
    std::vector<float> data(16);
    TensorView reversed = TensorView::contiguous(data.data(), DataType::F32, {16});
    reversed.strides[0] = -1;
    reversed.offset = 15;
    TemplateBuilder b("reversed", BoundaryMode::Manual);
    b.add_aiv(kK, NodeArgs().input(reversed).label("reader"));
    expect_error([&] { (void)b.finalize(); }, ErrorCode::InvalidTensor,
                 {"template 'reversed' node 0 (reader)", "negative stride"});
}
