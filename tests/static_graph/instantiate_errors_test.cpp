// docs/design/static-graph.md, docs/reliability.md, conformance: instantiate and Bindings reject misuse
// (unbound slots, a boundary mode that does not fit the scope, an instance larger than the window, producers
// for undeclared nodes, bad node indices) with a pto::Error naming the template and node or slot, submit
// nothing, and leave the runtime (and the bindings) usable for a good instance afterwards.
#include <catch2/catch.hpp>

#include <initializer_list>
#include <string>

#include "support/catch_printers.h"
#include "pto/static_graph/instance.h"
#include "support/expect_error.h"

using namespace pto;

namespace {

constexpr FuncId kK{0};

using pto::test::expect_error;

RuntimeConfig serial() {
    RuntimeConfig c;
    c.orchestration = OrchestrationMode::Serial;
    c.record_graph = true;
    return c;
}

//   0 (load: reads x, scalar n) ─► 1 (store: writes y)      node 0 is the boundary input
struct Pair {
    Template tpl;
    TensorSlot x, y;
    ScalarSlot n;

    explicit Pair(BoundaryMode mode) {
        TemplateBuilder b(mode == BoundaryMode::Manual ? "pair_manual" : "pair_tensormap", mode);
        x = b.tensor_slot("x");
        y = b.tensor_slot("y");
        n = b.scalar_slot("n");
        const auto load = b.add_aiv(kK, NodeArgs().input(x).scalar(n).label("load"));
        const auto store = b.add_aic(kK, NodeArgs().input(x).output(y).label("store"));
        b.edge(load, store);
        if (mode == BoundaryMode::Manual)
            b.boundary_input(load);
        else
            b.boundary_input(load, 0).boundary_output(store, 1);
        tpl = b.finalize();
    }
};

}  // namespace

TEST_CASE("an unbound tensor or scalar slot is an UnboundSlot error naming the slot and node",
          "[static_graph][errors]") {
    std::vector<float> data(16);
    const TensorView xv = TensorView::contiguous(data.data(), DataType::F32, {8});
    const TensorView yv = TensorView::contiguous(data.data() + 8, DataType::F32, {8});
    Pair p(BoundaryMode::Manual);
    Bindings b(p.tpl);
    Runtime rt(serial());
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            b.tensor(p.x, xv).scalar(p.n, 3);
            expect_error([&] { instantiate(b); }, ErrorCode::UnboundSlot,
                         {"template 'pair_manual'", "tensor slot 'y'", "node 1 (store)"});
            b.tensor(p.y, yv);
            const Instance first = instantiate(b);  // the failed call left x and n bound
            CHECK(first.size() == 2);
            // A successful instance consumes the bindings: the next one must bind again.
            b.tensor(p.x, xv).tensor(p.y, yv);
            expect_error([&] { instantiate(b); }, ErrorCode::UnboundSlot,
                         {"template 'pair_manual'", "scalar slot 'n'", "node 0 (load)"});
            b.scalar(p.n, 4).depend(0, first.node(1));
            instantiate(b);
        }
    });
    CHECK(rt.last_report().submitted == 4);
    CHECK(rt.last_report().orchestrator.tensormap_lookups == 0);
}

TEST_CASE("a boundary mode that does not fit the enclosing scope is a BoundaryMismatch",
          "[static_graph][errors][boundary]") {
    std::vector<float> data(16);
    const TensorView xv = TensorView::contiguous(data.data(), DataType::F32, {8});
    const TensorView yv = TensorView::contiguous(data.data() + 8, DataType::F32, {8});
    Pair manual(BoundaryMode::Manual);
    Pair tensormap(BoundaryMode::Tensormap);
    Bindings bm(manual.tpl);
    Bindings bt(tensormap.tpl);
    Runtime rt(serial());
    pto::run(rt, [&] {
        bm.tensor(manual.x, xv).tensor(manual.y, yv).scalar(manual.n, 1);
        bt.tensor(tensormap.x, xv).tensor(tensormap.y, yv).scalar(tensormap.n, 1);
        expect_error([&] { instantiate(bm); }, ErrorCode::BoundaryMismatch,
                     {"template 'pair_manual'", "manual", "outside every scope", "PTO2_SCOPE(MANUAL)"});
        PTO2_SCOPE() {
            expect_error([&] { instantiate(bm); }, ErrorCode::BoundaryMismatch,
                         {"template 'pair_manual'", "manual", "AUTO scope (depth 1)"});
            instantiate(bt);
        }
        PTO2_SCOPE(MANUAL) {
            expect_error([&] { instantiate(bt); }, ErrorCode::BoundaryMismatch,
                         {"template 'pair_tensormap'", "tensormap", "MANUAL scope (depth 1)", "AUTO"});
            instantiate(bm);
        }
        instantiate(bt.tensor(tensormap.x, xv).tensor(tensormap.y, yv).scalar(tensormap.n, 2));  // top level
    });
    CHECK(rt.last_report().submitted == 6);
}

TEST_CASE("an instance larger than the task window is a CapacityExhausted error naming the knob",
          "[static_graph][errors][capacity]") {
    TemplateBuilder big("big", BoundaryMode::Manual);
    for (int i = 0; i < 9; ++i)
        big.add_aiv(kK, NodeArgs());
    const Template tpl = big.finalize();
    TemplateBuilder small("small", BoundaryMode::Manual);
    small.add_aiv(kK, NodeArgs());
    const Template ok = small.finalize();
    RuntimeConfig c;
    c.window_tasks = 8;
    Runtime rt(c);
    Bindings b(tpl), good(ok);
    const RunReport r = pto::run(rt, [&] {
        expect_error([&] { instantiate(b); }, ErrorCode::CapacityExhausted,
                     {"template 'big'", "9 nodes", "RuntimeConfig::window_tasks (8)"});
        for (int i = 0; i < 20; ++i)
            instantiate(good);  // waits for the window, as any submit does
    });
    CHECK(r.submitted == 20);
    CHECK(r.completed == 20);
}

TEST_CASE("producers for an undeclared or missing node and bad bindings are InvalidArgument",
          "[static_graph][errors]") {
    Pair p(BoundaryMode::Manual);
    TemplateBuilder ob("other", BoundaryMode::Manual);
    for (int i = 0; i < 4; ++i)
        ob.tensor_slot(std::string(1, static_cast<char>('a' + i)));
    ob.scalar_slot("s0");
    ob.scalar_slot("s1");
    ob.add_aiv(kK, NodeArgs());
    const Template other = ob.finalize();
    Bindings b(p.tpl);
    const TaskId some{5};
    expect_error([&] { b.depend(1, some); }, ErrorCode::InvalidArgument,
                 {"template 'pair_manual' node 1 (store)", "not a boundary input", "boundary_input(1)"});
    expect_error([&] { b.depend(7, some); }, ErrorCode::InvalidArgument,
                 {"template 'pair_manual'", "no node 7"});
    expect_error([&] { b.tensor(TensorSlot{3}, TensorView::contiguous(&b, DataType::U8, {1})); },
                 ErrorCode::InvalidArgument, {"template 'pair_manual'", "tensor slot 3"});
    expect_error([&] { b.scalar(other.find_scalar_slot("s1").value(), 1); }, ErrorCode::InvalidArgument,
                 {"template 'pair_manual'", "scalar slot 1"});
    expect_error([&] { b.tensor(p.x, TensorView::contiguous(nullptr, DataType::F32, {4})); },
                 ErrorCode::InvalidArgument,
                 {"template 'pair_manual'", "tensor slot 'x'", "without a buffer"});
    expect_error([&] { (void)b.submitted_view(1, 2); }, ErrorCode::InvalidArgument,
                 {"template 'pair_manual' node 1 (store)", "2 tensor arguments"});
    expect_error([] { Bindings bad{Template()}; }, ErrorCode::InvalidArgument,
                 {"default-constructed Template"});
}

TEST_CASE("Instance::node names the template when the index is out of range", "[static_graph][errors]") {
    Pair p(BoundaryMode::Manual);
    Bindings b(p.tpl);
    std::vector<float> data(16);
    Runtime rt(serial());
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            const Instance inst =
                instantiate(b.tensor(p.x, TensorView::contiguous(data.data(), DataType::F32, {8}))
                                .tensor(p.y, TensorView::contiguous(data.data() + 8, DataType::F32, {8}))
                                .scalar(p.n, 0));
            CHECK(inst.node(1) == inst.base().plus(1));
            expect_error([&] { (void)inst.node(2); }, ErrorCode::InvalidArgument,
                         {"Instance::node(2)", "template 'pair_manual'", "2 nodes"});
        }
    });
    expect_error([] { (void)Instance().node(0); }, ErrorCode::InvalidArgument, {"empty Instance"});
    expect_error([] { (void)join(Instance()); }, ErrorCode::InvalidArgument, {"empty Instance"});
}

TEST_CASE("a bad boundary producer is rejected by the runtime and clear() recovers the bindings",
          "[static_graph][errors]") {
    std::vector<float> data(16);
    const TensorView xv = TensorView::contiguous(data.data(), DataType::F32, {8});
    const TensorView yv = TensorView::contiguous(data.data() + 8, DataType::F32, {8});
    Pair p(BoundaryMode::Manual);
    Bindings b(p.tpl);
    Runtime rt(serial());
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            b.tensor(p.x, xv).tensor(p.y, yv).scalar(p.n, 0).depend(0, TaskId{});
            expect_error([&] { instantiate(b); }, ErrorCode::InvalidDependency, {"invalid TaskId"});
            b.clear();
            expect_error([&] { instantiate(b); }, ErrorCode::UnboundSlot, {"template 'pair_manual'"});
            instantiate(b.tensor(p.x, xv).tensor(p.y, yv).scalar(p.n, 0));
        }
    });
    CHECK(rt.last_report().submitted == 2);
    expect_error([&] { instantiate(b); }, ErrorCode::NoActiveRun, {"outside a run"});
}
