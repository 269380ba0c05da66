// docs/design/static-graph.md, conformance: chains of instances linked through manual and tensormap
// boundaries run correctly on the compute executor with jitter (each kernel checks the values its producers
// wrote, and every subtask runs once, after its producers); instances wait for the window like any submit;
// create-info outputs are allocated per instance; join() waits for a whole instance; every instance hands its
// kernel the template's constant arguments and its own bound ones exactly, field by field.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "support/catch_printers.h"
#include "support/execution_log.h"
#include "support/graph_checks.h"
#include "support/same_view.h"
#include "pto/static_graph/instance.h"

using namespace pto;

namespace {

constexpr FuncId kStep{0};
constexpr FuncId kSlowStep{3};  // the same kernel with a long duration, so its jitter delay is long too
constexpr FuncId kFill{1};
constexpr FuncId kCheck{2};

/// step: tensor 0 is the node's cell (written by block 0, lane 0), tensors 1.. its producers' cells;
/// scalar 0 is the node's salt and scalar 1 the value it must compute: salt + 3 * sum(inputs). Any
/// input read before its producer finished gives the wrong sum, and the task fails.
std::uint64_t step_value(std::uint64_t salt, const std::vector<std::uint64_t>& inputs) {
    std::uint64_t v = salt;
    for (std::uint64_t in : inputs)
        v += 3 * in;
    return v;
}

int step_kernel(const KernelContext& ctx) {
    std::uint64_t v = ctx.scalars[0];
    for (std::size_t i = 1; i < ctx.tensors.size(); ++i)
        v += 3 * *ctx.tensors[i].view.data<std::uint64_t>();
    if (v != ctx.scalars[1]) return 1;
    if (ctx.block_idx == 0 && ctx.lane == 0) *ctx.tensors[0].view.data<std::uint64_t>() = v;
    return test::ExecutionLog::kernel(ctx);  // registered with the log as its user pointer
}

RuntimeConfig compute_config(std::uint32_t window) {
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.timed_jitter = 0.5;   // kernels start after random delays, so a missing edge shows as a wrong value
    c.compute_threads = 8;  // more workers than cores: independent kernels really overlap and reorder
    c.window_tasks = window;
    c.record_graph = true;
    return c;
}

//                 ┌─► 1 (AIC ×2) ──────┐
//   carry ─► 0 ───┤                    ├─► 3 (MIX) ─► 4 (dependency-only) ─► 5 (AIV ×3, slow) ─► next 0
//        (AIV)    └─► 2 (AIV ×4, slow) ┘                                      reads 3's cell
struct Chain {
    static constexpr std::uint32_t kNodes = 6;
    // Inputs of each node's step, by node index (node 0 also reads the carry).
    static std::vector<std::uint32_t> inputs(std::uint32_t k) {
        switch (k) {
            case 1:
            case 2:
                return {0};
            case 3:
                return {1, 2};
            case 5:
                return {3};
            default:
                return {};
        }
    }
};

struct ChainSlots {
    std::vector<TensorSlot> cell;
    TensorSlot carry;
    std::vector<ScalarSlot> salt, expect;
};

Template chain_template(BoundaryMode mode, ChainSlots& s) {
    TemplateBuilder b(mode == BoundaryMode::Manual ? "chain_manual" : "chain_tensormap", mode);
    for (std::uint32_t k = 0; k < Chain::kNodes; ++k) {
        s.cell.push_back(b.tensor_slot("cell" + std::to_string(k)));
        s.salt.push_back(b.scalar_slot("salt" + std::to_string(k)));
        s.expect.push_back(b.scalar_slot("expect" + std::to_string(k)));
    }
    s.carry = b.tensor_slot("carry");
    auto args = [&](std::uint32_t k) {
        NodeArgs a;
        a.output(s.cell[k]);
        if (k == 0) a.input(s.carry);
        for (std::uint32_t in : Chain::inputs(k))
            a.input(s.cell[in]);
        a.scalar(s.salt[k]).scalar(s.expect[k]).label("step" + std::to_string(k));
        return a;
    };
    b.add_aiv(kStep, args(0));
    b.add_aic(kStep, args(1).block_num(2));
    b.add_aiv(kSlowStep, args(2).block_num(4));
    b.add_mix(kStep, kStep, kStep, args(3));
    b.add_dependency_only();
    b.add_aiv(kSlowStep, args(5).block_num(3));
    b.edge(0, 1).edge(0, 2).edge(1, 3).edge(2, 3).edge(3, 4).edge(4, 5);
    if (mode == BoundaryMode::Manual) {
        b.boundary_input(0);
    } else {
        b.boundary_input(0, 1);   // node 0 reads the previous instance's last cell
        b.boundary_output(5, 0);  // node 5's cell is what the next instance reads
    }
    return b.finalize();
}

}  // namespace

TEST_CASE("instances chained through boundaries run in order and compute the right values",
          "[static_graph][execution]") {
    const BoundaryMode mode = GENERATE(BoundaryMode::Manual, BoundaryMode::Tensormap);
    const std::uint32_t window = GENERATE(16u, 4096u);
    // 0: the default argument ring. 8192 bytes (the smallest) hold about six instances' argument blocks:
    // instances wait for earlier ones to retire, and their blocks skip the ring's tail as they wrap, so a
    // node whose record were freed before it ran would read another instance's scalars.
    const std::uint64_t argument_bytes = GENERATE(std::uint64_t{0}, std::uint64_t{8192});
    constexpr std::uint32_t kInstances = 40;
    INFO("mode " << to_string(mode) << ", window " << window << ", argument_bytes " << argument_bytes);

    RuntimeConfig config = compute_config(window);
    if (argument_bytes != 0) config.argument_bytes = argument_bytes;
    Runtime rt(config);
    test::ExecutionLog log(1 << 12);
    // Producers whose consumers could otherwise overtake them (nodes 2 and 5) start up to 100 us late,
    // the others up to 1 us: a missing internal or boundary edge makes a consumer read a stale cell.
    rt.register_kernel(kStep, KernelInfo{"step", 2.0, &step_kernel, &log});
    rt.register_kernel(kSlowStep, KernelInfo{"slow_step", 200.0, &step_kernel, &log});
    ChainSlots slots;
    const Template tpl = chain_template(mode, slots);
    Bindings b(tpl);

    // cells[i * kNodes + k]: node k of instance i; cells.back(): the first instance's carry (zero).
    std::vector<std::uint64_t> cells(kInstances * Chain::kNodes + 1, 0);
    auto cell = [&](std::size_t i) { return TensorView::contiguous(&cells[i], DataType::I64, {1}); };
    std::vector<std::uint64_t> expected(cells.size(), 0);

    const RunReport r = pto::run(rt, [&] {
        Instance prev;
        for (std::uint32_t i = 0; i < kInstances; ++i) {
            const std::size_t base = std::size_t{i} * Chain::kNodes;
            const std::size_t carry = i == 0 ? cells.size() - 1 : base - Chain::kNodes + 5;
            for (std::uint32_t k = 0; k < Chain::kNodes; ++k) {
                std::vector<std::uint64_t> in;
                if (k == 0) in.push_back(expected[carry]);
                for (std::uint32_t p : Chain::inputs(k))
                    in.push_back(expected[base + p]);
                const std::uint64_t salt = 1000 * i + k + 1;
                expected[base + k] = step_value(salt, in);
                b.tensor(slots.cell[k], cell(base + k)).scalar(slots.salt[k], salt);
                b.scalar(slots.expect[k], expected[base + k]);
            }
            b.tensor(slots.carry, cell(carry));
            // One scope per instance, so a 16-slot window drains while the chain grows.
            if (mode == BoundaryMode::Manual) {
                PTO2_SCOPE(MANUAL) {
                    if (prev.is_valid()) b.depend(0, prev.node(5));
                    prev = instantiate(b);
                }
            } else {
                PTO2_SCOPE() {
                    prev = instantiate(b);
                }
            }
        }
    });

    CHECK(r.ok());
    CHECK(r.kernel_tasks == kInstances * 5);
    CHECK(r.framework_tasks == kInstances);
    for (std::uint32_t i = 0; i < kInstances; ++i)
        for (std::uint32_t k : {0u, 1u, 2u, 3u, 5u}) {
            INFO("instance " << i << " node " << k);
            CHECK(cells[i * Chain::kNodes + k] == expected[i * Chain::kNodes + k]);
        }
    const GraphRecord& g = rt.graph();
    CHECK(test::check_exactly_once_log(g, log.entries()) == "");
    CHECK(test::check_ordering(g, test::spans_from_log(g, log.entries())) == "");
    if (window == 16) CHECK(r.orchestrator.window_waits > 0);  // instantiation waited for the window
}

namespace {

int fill_kernel(const KernelContext& ctx) {
    *ctx.tensors[0].view.data<std::uint64_t>() = ctx.scalars[0];
    return 0;
}

int check_kernel(const KernelContext& ctx) {
    return *ctx.tensors[0].view.data<std::uint64_t>() == ctx.scalars[0] ? 0 : 1;
}

}  // namespace

//   instance i:  fill (AIV) ─► create-info buffer      then, dynamically:  check(buffer) reads it
TEST_CASE("create-info outputs are allocated per instance and found through their creator",
          "[static_graph][execution][alloc]") {
    RuntimeConfig c = compute_config(16);
    c.heap_bytes = 4096;  // 64 instances of a 64-byte buffer only fit if retired buffers are reused
    Runtime rt(c);
    rt.register_kernel(kFill, KernelInfo{"fill", 5.0, &fill_kernel, nullptr});
    rt.register_kernel(kCheck, KernelInfo{"check", 5.0, &check_kernel, nullptr});
    TemplateBuilder tb("producer", BoundaryMode::Tensormap);
    const auto value = tb.scalar_slot("value");
    tb.add_aiv(kFill, NodeArgs().output(TensorCreateInfo(DataType::I64, {8})).scalar(value));
    tb.boundary_output(0, 0);
    const Template tpl = tb.finalize();
    Bindings b(tpl);
    std::vector<TensorView> made;
    const RunReport r = pto::run(rt, [&] {
        for (std::uint64_t i = 0; i < 64; ++i) {
            PTO2_SCOPE() {
                const Instance inst = instantiate(b.scalar(value, 7 * i));
                const TensorView v = b.submitted_view(0, 0);
                CHECK(v.base != nullptr);
                CHECK(v.creator == inst.node(0));
                made.push_back(v);
                submit_aiv(kCheck, Args().input(v).scalar(7 * i));
            }
        }
    });
    CHECK(r.ok());
    CHECK(r.kernel_tasks == 128);
    // The check task found its producer through the creator id, without a map entry for the buffer.
    const GraphRecord& g = rt.graph();
    for (std::size_t i = 0; i < g.tasks.size(); i += 2) {
        REQUIRE(g.producers_of(g.tasks[i + 1]).size() == 1);
        CHECK(g.producers_of(g.tasks[i + 1])[0] == g.tasks[i].id);
    }
    // Only the dynamic readers entered the map; the instances' own outputs are found through the creator.
    CHECK(r.orchestrator.tensormap_inserts == 64);
}

/// ArgsExpected: every argument a kernel must see, field by field, and how many tasks saw exactly that.
struct ArgsExpected {
    std::vector<TensorArg> tensors;
    std::vector<std::uint64_t> scalars;
    std::atomic<int> matched{0};
};

int arguments_kernel(const KernelContext& ctx) {
    auto& expected = *static_cast<ArgsExpected*>(ctx.user);
    if (ctx.tensors.size() != expected.tensors.size() || ctx.scalars.size() != expected.scalars.size())
        return 1;
    for (std::size_t i = 0; i < ctx.tensors.size(); ++i)
        if (!test::same_argument(ctx.tensors[i], expected.tensors[i])) return 1;
    for (std::size_t i = 0; i < ctx.scalars.size(); ++i)
        if (ctx.scalars[i] != expected.scalars[i]) return 1;
    ++expected.matched;
    return 0;
}

//   instance i: one node whose arguments mix constant views (every direction; views an instance copies from
//   the plan's image into its view table) with a bound view and a bound scalar between them
TEST_CASE("every instance hands its kernel the constant and the bound arguments exactly as declared",
          "[static_graph][execution][arguments]") {
    std::vector<std::int64_t> memory(4 * 64, 0);
    const TensorView whole = TensorView::contiguous(memory.data(), DataType::I64, {4, 64});
    const TensorView weights = whole.slice(0, 0, 1).untracked();
    const TensorView output = whole.slice(0, 1, 1).slice(1, 8, 16);
    const TensorView state = whole.slice(0, 2, 1).transpose(0, 1);
    const TensorView bound = whole.slice(0, 3, 1);
    constexpr std::uint64_t kConstant = 0x5eed, kBound = 0xb0b;

    RuntimeConfig c = compute_config(16);
    c.timed_jitter = 0;
    Runtime rt(c);
    ArgsExpected expected;
    expected.tensors = {{weights, Direction::In},
                        {bound, Direction::In},
                        {output, Direction::Out},
                        {state, Direction::InOut}};
    expected.scalars = {kConstant, kBound};
    rt.register_kernel(kCheck, KernelInfo{"arguments", 1.0, &arguments_kernel, &expected});
    TemplateBuilder tb("arguments", BoundaryMode::Manual);
    const TensorSlot in = tb.tensor_slot("in");
    const ScalarSlot salt = tb.scalar_slot("salt");
    tb.add_aiv(
        kCheck,
        NodeArgs().input(weights).input(in).output(output).inout(state).scalar_value(kConstant).scalar(salt));
    const Template tpl = tb.finalize();
    Bindings b(tpl);
    const RunReport r = pto::run(rt, [&] {
        for (int i = 0; i < 40; ++i) {
            PTO2_SCOPE(MANUAL) {
                (void)instantiate(b.tensor(in, bound).scalar(salt, kBound));
            }
        }
    });
    CHECK(r.ok());
    CHECK(expected.matched == 40);
}

//   instance: 0 ─► 1, 0 ─► 2 (sinks 1, 2)  ─►  join (dependency-only)  ─►  next
TEST_CASE("join waits for every sink of an instance through one dependency-only task",
          "[static_graph][join]") {
    RuntimeConfig c;
    c.record_graph = true;
    c.orchestration = OrchestrationMode::Serial;
    Runtime rt(c);
    TemplateBuilder tb("fork", BoundaryMode::Manual);
    const auto root = tb.add_aiv(FuncId{0}, NodeArgs());
    tb.edge(root, tb.add_aic(FuncId{1}, NodeArgs()));
    tb.edge(root, tb.add_aic(FuncId{1}, NodeArgs()));
    const Template tpl = tb.finalize();
    Bindings b(tpl);
    Instance inst;
    TaskId joined, after;
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            inst = instantiate(b);
            joined = join(inst).task_id();
            after = submit_aiv(FuncId{0}, Args().set_dependencies(&joined, 1)).task_id();
        }
    });
    const GraphRecord& g = rt.graph();
    const RecordedTask& j = g.tasks[static_cast<std::size_t>(g.index_of(joined))];
    CHECK(j.kind == TaskKind::DependencyOnly);
    const auto producers = g.producers_of(j);
    CHECK(std::vector<TaskId>(producers.begin(), producers.end()) ==
          std::vector<TaskId>{inst.node(1), inst.node(2)});
    CHECK(rt.last_report().completed == 5);
}
