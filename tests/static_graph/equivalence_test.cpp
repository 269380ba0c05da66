// docs/design/static-graph.md, conformance (property): for random template bodies, N instances produce
// exactly the tasks (kind, core, block_num, kernels) and edges of the same body submitted dynamically N
// times, with manual boundaries in a MANUAL scope and with tensormap boundaries in an AUTO scope; and in
// tensormap mode only the declared boundary arguments touch the map. Seeds are printed so a failure can be
// replayed.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include "random_body.h"
#include "support/catch_printers.h"
#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

constexpr std::uint32_t kIterations = 6;
constexpr std::uint64_t kSeeds = 120;

RuntimeConfig recording() {
    RuntimeConfig c;
    c.record_graph = true;
    c.orchestration = OrchestrationMode::Serial;  // nothing retires while building: every edge is recorded
    return c;
}

/// Normalised: the graph with ids replaced by submission index, so two runs compare directly.
struct Normalised {
    std::vector<std::tuple<TaskKind, CoreType, std::uint32_t, std::uint16_t, std::uint16_t, std::uint16_t>>
        tasks;
    std::set<std::pair<std::int64_t, std::int64_t>> edges;
};

Normalised normalise(const GraphRecord& g) {
    Normalised n;
    for (std::size_t i = 0; i < g.tasks.size(); ++i) {
        const RecordedTask& t = g.tasks[i];
        n.tasks.emplace_back(t.kind, t.core, t.block_num, t.funcs[0].value, t.funcs[1].value,
                             t.funcs[2].value);
        for (TaskId p : g.producers_of(t))
            n.edges.insert({g.index_of(p), static_cast<std::int64_t>(i)});
    }
    return n;
}

std::string describe(const test::RandomBody& body) {
    std::ostringstream s;
    s << body.nodes.size() << " nodes, edges";
    for (const auto& [p, c] : body.edges)
        s << ' ' << p << "->" << c;
    s << ", carries";
    for (const test::CarryEdge& e : body.carries)
        s << ' ' << e.producer << "(-" << e.lag << ")->" << e.consumer;
    s << ", stateful " << body.stateful;
    return s.str();
}

}  // namespace

TEST_CASE("manual-boundary instances produce exactly the tasks and edges of the dynamic body",
          "[static_graph][equivalence]") {
    Runtime rt(recording());
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
        const test::RandomBody body = test::random_body(seed, false);
        INFO("seed " << seed << ": " << describe(body));
        pto::run(rt, [&] {
            PTO2_SCOPE(MANUAL) {
                test::submit_manual_dynamic(body, kIterations);
            }
        });
        const Normalised dynamic = normalise(rt.graph());

        ScalarSlot iteration;
        const Template tpl = test::manual_template(body, iteration);
        CHECK(tpl.edge_count() == body.edges.size());
        pto::run(rt, [&] {
            PTO2_SCOPE(MANUAL) {
                test::submit_manual_template(body, tpl, iteration, kIterations);
            }
        });
        const Normalised stamped = normalise(rt.graph());

        REQUIRE(dynamic.tasks.size() == body.nodes.size() * kIterations);
        CHECK(stamped.tasks == dynamic.tasks);
        CHECK(stamped.edges == dynamic.edges);
        CHECK(rt.last_report().orchestrator.tensormap_lookups == 0);
    }
}

TEST_CASE("tensormap-boundary instances produce exactly the tasks and edges of the dynamic body",
          "[static_graph][equivalence][tensormap]") {
    Runtime rt(recording());
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
        const test::RandomBody body = test::random_body(seed, true);
        INFO("seed " << seed << ": " << describe(body));
        const auto n = static_cast<std::uint32_t>(body.nodes.size());
        test::FakeBuffers buf(test::TensormapLayout{n, kIterations}.buffers());
        pto::run(rt, [&] {
            PTO2_SCOPE() {
                test::submit_tensormap_dynamic(body, kIterations, buf);
            }
        });
        const Normalised dynamic = normalise(rt.graph());

        test::TensormapSlots slots;
        const Template tpl = test::tensormap_template(body, slots, buf);
        pto::run(rt, [&] {
            PTO2_SCOPE() {
                test::submit_tensormap_template(body, tpl, slots, kIterations, buf);
            }
        });
        const Normalised stamped = normalise(rt.graph());

        REQUIRE(dynamic.tasks.size() == n * kIterations);
        CHECK(stamped.tasks == dynamic.tasks);
        CHECK(stamped.edges == dynamic.edges);

        // Only declared boundaries touch the map: one lookup per carry input (and the state input), one
        // insert per distinct carry producer output (and the state output), per instance.
        std::set<std::uint32_t> carry_producers;
        for (const test::CarryEdge& e : body.carries)
            carry_producers.insert(e.producer);
        const std::uint64_t state = body.stateful >= 0 ? 1 : 0;
        const OrchestratorStats& stats = rt.last_report().orchestrator;
        CHECK(stats.tensormap_lookups == kIterations * (body.carries.size() + state));
        CHECK(stats.tensormap_inserts == kIterations * (carry_producers.size() + state));
    }
}

//   instance i:  a ──► b      (no boundary inputs: the same template fits MANUAL, AUTO and the top level)
TEST_CASE("a template without boundary inputs instantiates in MANUAL and AUTO scopes and at the top level",
          "[static_graph][boundary]") {
    for (BoundaryMode mode : {BoundaryMode::Manual, BoundaryMode::Tensormap}) {
        TemplateBuilder b("closed", mode);
        const auto a = b.add_aiv(FuncId{0}, NodeArgs());
        const auto c = b.add_aic(FuncId{1}, NodeArgs().block_num(2));
        b.edge(a, c);
        const Template tpl = b.finalize();
        CHECK_FALSE(tpl.has_boundary_inputs());
        Runtime rt(recording());
        Bindings bind(tpl);
        pto::run(rt, [&] {
            PTO2_SCOPE(MANUAL) {
                instantiate(bind);
            }
            PTO2_SCOPE() {
                instantiate(bind);
            }
            instantiate(bind);
        });
        const Normalised g = normalise(rt.graph());
        CHECK(g.tasks.size() == 6);
        CHECK(g.edges == std::set<std::pair<std::int64_t, std::int64_t>>{{0, 1}, {2, 3}, {4, 5}});
    }
}

//   dynamic d ─(depend)─► 0 ◄─(tensormap: reads v)─ dynamic w      instance: 0 ─► 1
TEST_CASE("a tensormap template takes explicit producers on declared boundary nodes as well",
          "[static_graph][boundary][tensormap]") {
    std::vector<float> data(8);
    const TensorView v = TensorView::contiguous(data.data(), DataType::F32, {8});
    TemplateBuilder b("mixed", BoundaryMode::Tensormap);
    const auto in = b.tensor_slot("in");
    const auto head = b.add_aiv(FuncId{0}, NodeArgs().input(in));
    b.edge(head, b.add_aic(FuncId{1}, NodeArgs()));
    b.boundary_input(head).boundary_input(head, 0);
    const Template tpl = b.finalize();
    Bindings bind(tpl);
    Runtime rt(recording());
    TaskId d, w;
    Instance inst;
    pto::run(rt, [&] {
        PTO2_SCOPE() {
            d = submit_aiv(FuncId{2}, Args()).task_id();
            w = submit_aiv(FuncId{2}, Args().output(v)).task_id();
            inst = instantiate(bind.tensor(in, v).depend(head, d));
        }
    });
    const GraphRecord& g = rt.graph();
    const auto producers = g.producers_of(g.tasks[static_cast<std::size_t>(g.index_of(inst.node(0)))]);
    CHECK(std::set<TaskId>(producers.begin(), producers.end()) == std::set<TaskId>{d, w});
}
