// docs/design/static-graph.md ("The argument image"): an instance writes each view once, in a view table
// after its nodes' records, and each record points into it. Nodes that share a slot, a constant view or
// nothing at all must still see exactly their own arguments (view, direction, creator of a create-info
// output), and the table must stay until the instance's last node ran, however the nodes complete: the
// instances below have no internal edges, complete in random order, and share an argument ring so small
// that the next instance's block lands wherever an earlier instance's arguments were freed.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "pto/runtime/detail/instance_plan.h"
#include "pto/static_graph/instance.h"
#include "support/catch_printers.h"
#include "support/same_view.h"

using namespace pto;
using pto::test::same_view;

namespace {

constexpr FuncId kNode{0};
constexpr std::uint32_t kInstances = 240;
constexpr std::uint32_t kWidth = 8;  // elements per row of x, y and the weights
constexpr std::uint32_t kNodes = 5;

/// Fan: what each instance binds and every node must see. Node k (scalar 1) of instance i (scalar 0,
/// bound) reads x = row i of xs, the shared weights and writes element k of y = row i of ys; node 4 also
/// writes a buffer the runtime allocates for it.
struct Fan {
    std::vector<std::int64_t> xs = std::vector<std::int64_t>(kInstances * kWidth);
    std::vector<std::int64_t> ys = std::vector<std::int64_t>(kInstances * kWidth, -1);
    std::vector<std::int64_t> weights = std::vector<std::int64_t>(kWidth);
    TensorView x_rows, y_rows, w;
    std::atomic<int> failures{0};
    std::atomic<int> calls{0};
    std::atomic<std::int64_t> created_seen{0};

    Fan() {
        for (std::uint32_t i = 0; i < kInstances; ++i)
            for (std::uint32_t e = 0; e < kWidth; ++e)
                xs[i * kWidth + e] = i;
        for (std::uint32_t e = 0; e < kWidth; ++e)
            weights[e] = 100 + e;
        x_rows = TensorView::contiguous(xs.data(), DataType::I64, {kInstances, kWidth});
        y_rows = TensorView::contiguous(ys.data(), DataType::I64, {kInstances, kWidth});
        w = TensorView::contiguous(weights.data(), DataType::I64, {kWidth}).untracked();
    }
    TensorView x(std::uint32_t i) const { return x_rows.slice(0, i, 1); }
    TensorView y(std::uint32_t i) const { return y_rows.slice(0, i, 1); }

    /// The directions of x, w and y per node, as the template declares them.
    static constexpr Direction kYDirection[kNodes] = {Direction::Out, Direction::InOut, Direction::Out,
                                                      Direction::InOut, Direction::In};
};

int fan_kernel(const KernelContext& ctx) {
    Fan& f = *static_cast<Fan*>(ctx.user);
    ++f.calls;
    const auto i = static_cast<std::uint32_t>(ctx.scalars[0]);
    const auto k = static_cast<std::uint32_t>(ctx.scalars[1]);
    bool ok = i < kInstances && k < kNodes && ctx.tensors.size() == (k == 4 ? 4u : 3u);
    ok = ok && same_view(ctx.tensors[0].view, f.x(i)) && ctx.tensors[0].direction == Direction::In;
    ok = ok && same_view(ctx.tensors[1].view, f.w) && ctx.tensors[1].direction == Direction::In;
    ok = ok && same_view(ctx.tensors[2].view, f.y(i)) && ctx.tensors[2].direction == Fan::kYDirection[k];
    if (ok && k == 4) {
        // A create-info output: a buffer of its own, created by this very task.
        const TensorView& c = ctx.tensors[3].view;
        ok = ctx.tensors[3].direction == Direction::Out && c.base != nullptr && c.creator == ctx.task &&
             c.ndim == 1 && c.shape[0] == kWidth;
        if (ok) {
            c.data<std::int64_t>()[0] = i;
            f.created_seen += 1;
        }
    }
    if (!ok) {
        ++f.failures;
        return 1;
    }
    // Read through the views too: x's row holds the instance's index. Node 4 only reads y.
    if (k != 4)
        ctx.tensors[2].view.data<std::int64_t>()[k] =
            ctx.tensors[0].view.data<std::int64_t>()[0] * 1000 + ctx.tensors[1].view.data<std::int64_t>()[k];
    return 0;
}

Template fan_template(const Fan& f, TensorSlot& x, TensorSlot& y, ScalarSlot& index) {
    TemplateBuilder b("fan", BoundaryMode::Manual);
    x = b.tensor_slot("x");
    y = b.tensor_slot("y");
    index = b.scalar_slot("index");
    for (std::uint32_t k = 0; k < kNodes; ++k) {
        NodeArgs a;
        a.input(x).input(f.w);
        switch (Fan::kYDirection[k]) {
            case Direction::In:
                a.input(y);
                break;
            case Direction::Out:
                a.output(y);
                break;
            case Direction::InOut:
                a.inout(y);
                break;
        }
        if (k == 4) a.output(TensorCreateInfo(DataType::I64, {kWidth}));
        a.scalar(index).scalar_value(std::uint64_t{k});
        if (k % 2 == 0)
            b.add_aiv(kNode, a);
        else
            b.add_aic(kNode, a);
    }
    return b.finalize();
}

}  // namespace

TEST_CASE("nodes sharing slots and constants see their own arguments until the instance's last node ran",
          "[static_graph][execution][arguments]") {
    const OrchestrationMode mode = GENERATE(OrchestrationMode::Concurrent, OrchestrationMode::Serial);
    Fan f;
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.orchestration = mode;
    c.timed_jitter = 0.5;   // nodes of one instance complete in random order
    c.compute_threads = 8;  // more workers than cores, so they really overlap
    if (mode == OrchestrationMode::Concurrent) {
        c.window_tasks = 64;      // a dozen instances in flight...
        c.argument_bytes = 8192;  // ...and an argument ring that holds barely more of them
    }
    Runtime rt(c);
    rt.register_kernel(kNode, KernelInfo{"fan", 1.0, &fan_kernel, &f});
    TensorSlot x, y;
    ScalarSlot index;
    const Template tpl = fan_template(f, x, y, index);
    Bindings b(tpl);
    const RunReport r = pto::run(rt, [&] {
        for (std::uint32_t i = 0; i < kInstances; ++i) {
            PTO2_SCOPE(MANUAL) {
                (void)instantiate(b.tensor(x, f.x(i)).tensor(y, f.y(i)).scalar(index, std::uint64_t{i}));
            }
        }
    });
    CHECK(r.ok());
    CHECK(f.failures == 0);
    CHECK(f.calls == static_cast<int>(kInstances * kNodes));
    CHECK(f.created_seen == static_cast<std::int64_t>(kInstances));
    for (std::uint32_t i = 0; i < kInstances; ++i) {
        for (std::uint32_t k = 0; k < 4; ++k)
            CHECK(f.ys[i * kWidth + k] == static_cast<std::int64_t>(i) * 1000 + 100 + k);
        CHECK(f.ys[i * kWidth + 4] == -1);
    }
}

TEST_CASE("a plan writes each bound view once and keeps its view table until its last node retires",
          "[static_graph][arguments]") {
    // Three nodes: x feeds all three (in two directions), the constant w two, node 2 allocates an output.
    std::vector<float> data(16);
    const TensorView w = TensorView::contiguous(data.data(), DataType::F32, {16});
    TensorView created{};
    created.ndim = 1;
    created.shape[0] = 4;
    created.strides[0] = 1;
    created.dtype = DataType::F32;
    const TensorArg in_x{TensorView{}, Direction::In}, out_x{TensorView{}, Direction::Out};
    const TensorArg node0[2] = {in_x, TensorArg{w, Direction::In}};
    const TensorArg node1[2] = {out_x, TensorArg{w, Direction::In}};
    const TensorArg node2[2] = {in_x, TensorArg{created, Direction::Out}};
    const std::uint32_t slots[2] = {0, detail::kNotBound};
    const std::uint64_t scalars[1] = {7};
    const std::uint32_t scalar_slots[1] = {detail::kNotBound};
    detail::PlanNodeDesc nodes[3];
    const TensorArg* protos[3] = {node0, node1, node2};
    for (std::uint32_t k = 0; k < 3; ++k) {
        nodes[k].core = CoreType::AIV;
        nodes[k].funcs[0] = kNode;
        nodes[k].tensors = {protos[k], 2};
        nodes[k].tensor_slots = slots;
        nodes[k].scalars = scalars;
        nodes[k].scalar_slots = scalar_slots;
        nodes[k].label = "n";
    }
    OffsetLists consumers{{0, 0, 0, 0}, {}};
    OffsetLists producers{{0, 0, 0, 0}, {}};
    const auto plan = detail::InstancePlan::create(
        "plan 'shared'", nodes, {"x"}, 0,
        InstanceEdges::create("plan 'shared'", std::move(consumers), std::move(producers)));
    // One patch for x however many arguments it feeds; w is in the image once; one create-info.
    CHECK(plan->tensor_patches().size() == 1);
    CHECK(plan->created_offsets().size() == 1);
    const std::uint64_t table = plan->arg_image().size() - 3 * sizeof(TensorView);  // x, w, created
    for (std::uint32_t k = 0; k < 2; ++k)
        CHECK(plan->nodes()[k].args_end <= table);
    CHECK(plan->nodes()[2].args_end == plan->arg_image().size());
    CHECK(plan->tensor_patches()[0].offset >= table);
    CHECK(plan->created_offsets()[0] >= table);
}
