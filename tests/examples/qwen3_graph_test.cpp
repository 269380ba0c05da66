// docs/design/static-graph.md and docs/design/reference-graphs.md, conformance: the Qwen3-14B decode graph:
// launches per tier and scope, subtasks, the edge rules (scheme A against an independent restatement of
// them), and schemes B (discovered edges), C (static templates, manual boundaries) and D (static templates,
// tensormap boundaries) building exactly scheme A's tasks in A's order with A's edges at every tier; D
// touches the tensormap only at the declared boundaries; the graph fits a small window in concurrent mode in
// every scheme.
//
//   Scope 1 (tile)          Scope 2 (row)                              Scope 3 (tile)
//   rmsnorm -> q/k/v_proj   rope <- qk_norm, all v                     out_proj <- all online of the tile
//   qk_norm <- all q, all k qk -> softmax -> sv -> online (sv <- rope)  post <- all out_proj -> gate, up
//                           online <- softmax                          silu <- gate, up; down <- all silu
//                                                                      down_res <- down, out_proj
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "pto/examples/qwen3.h"
#include "pto/scope/orchestration.h"

using namespace pto::examples;
using namespace pto::examples::qwen3;

namespace {

using Edges = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

struct ExpectedGraph {
    std::vector<std::pair<Op, std::uint32_t>> nodes;  // op and block_num, in emission order
    Edges edges;
};

/// expected_graph: docs/design/reference-graphs.md's emission order and dependency rules, restated
/// independently of the builder (batch 90, tiles of 16, chunk counts from the table).
ExpectedGraph expected_graph(SpmdTier tier) {
    constexpr std::uint32_t kBatch = 90, kTile = 16, kTiles = 6;
    ExpectedGraph g;
    const auto add = [&](Op op, std::uint32_t blocks, const std::vector<std::uint32_t>& deps) {
        const auto id = static_cast<std::uint32_t>(g.nodes.size());
        g.nodes.emplace_back(op, blocks);
        for (std::uint32_t d : deps)
            g.edges.emplace_back(d, id);
        return id;
    };
    std::vector<std::uint32_t> qk_norm(kTiles);
    std::vector<std::vector<std::uint32_t>> v_proj(kTiles), online(kBatch);
    for (std::uint32_t t = 0; t < kTiles; ++t) {
        const std::uint32_t rms = add(Op::RmsNorm, 1, {});
        std::vector<std::uint32_t> qk;
        for (const Launch& l : launches(20, tier))
            qk.push_back(add(Op::QProj, l.block_num, {rms}));
        for (const Launch& l : launches(8, tier)) {
            qk.push_back(add(Op::KProj, l.block_num, {rms}));
            v_proj[t].push_back(add(Op::VProj, l.block_num, {rms}));
        }
        qk_norm[t] = add(Op::QkNorm, 1, qk);
    }
    for (std::uint32_t b = 0; b < kBatch; ++b) {
        std::vector<std::uint32_t> deps{qk_norm[b / kTile]};
        deps.insert(deps.end(), v_proj[b / kTile].begin(), v_proj[b / kTile].end());
        const std::uint32_t rope = add(Op::RopeKvCache, 1, deps);
        for (const Launch& l : launches(4, tier)) {
            const std::uint32_t qk = add(Op::QkMatmul, l.block_num, {rope});
            const std::uint32_t sm = add(Op::Softmax, l.block_num, {qk});
            const std::uint32_t sv = add(Op::SvMatmul, l.block_num, {rope, sm});
            online[b].push_back(add(Op::OnlineSoftmax, l.block_num, {sv, sm}));
        }
    }
    for (std::uint32_t t = 0; t < kTiles; ++t) {
        std::vector<std::uint32_t> attention;
        for (std::uint32_t b = t * kTile; b < std::min(kBatch, (t + 1) * kTile); ++b)
            attention.insert(attention.end(), online[b].begin(), online[b].end());
        std::vector<std::uint32_t> outs, silus;
        for (const Launch& l : launches(40, tier))
            outs.push_back(add(Op::OutProjResidual, l.block_num, attention));
        const std::uint32_t post = add(Op::PostRmsNorm, 1, outs);
        for (const Launch& l : launches(34, tier)) {
            const std::uint32_t gate = add(Op::GateProj, l.block_num, {post});
            const std::uint32_t up = add(Op::UpProj, l.block_num, {post});
            silus.push_back(add(Op::Silu, l.block_num, {gate, up}));
        }
        const auto downs = launches(40, tier);
        for (std::size_t j = 0; j < downs.size(); ++j) {
            const std::uint32_t down = add(Op::DownProj, downs[j].block_num, silus);
            add(Op::DownProjResidual, downs[j].block_num, {down, outs[j]});
        }
    }
    std::sort(g.edges.begin(), g.edges.end());
    return g;
}

struct TierFigures {
    SpmdTier tier;
    std::uint64_t scope[3];
    std::uint64_t total;
};
// docs/design/reference-graphs.md table.
constexpr TierFigures kFigures[] = {
    {SpmdTier::NonSpmd, {228, 1530, 1338}, 3096}, {SpmdTier::Spmd2, {120, 810, 672}, 1602},
    {SpmdTier::Spmd4, {66, 450, 348}, 864},       {SpmdTier::Spmd8, {42, 450, 186}, 678},
    {SpmdTier::AllSpmd, {30, 450, 42}, 522},
};

pto::RuntimeConfig serial_recording() {
    pto::RuntimeConfig cfg;
    cfg.executor = pto::Executor::Instant;
    cfg.orchestration =
        pto::OrchestrationMode::Serial;  // keeps every discovered edge (nothing retires early)
    cfg.record_graph = true;
    return cfg;
}

}  // namespace

TEST_CASE("each tier launches the kernels of the reference table per scope and always 3096 subtasks",
          "[examples][qwen3]") {
    const Problem problem = Problem::with_fake_addresses();
    pto::Runtime rt(serial_recording());
    register_kernels(rt);
    pto::Orchestrator orchestrator(rt);
    for (const TierFigures& f : kFigures) {
        DecodeGraph graph(problem, f.tier);
        for (Scheme scheme : kAllSchemes) {
            INFO("tier " << to_string(f.tier) << ", scheme " << letter(scheme));
            const pto::RunReport report = orchestrator.run([&] { graph.submit(scheme); });
            CHECK(report.ok());
            CHECK(report.kernel_tasks == f.total);
            CHECK(report.subtasks == 3096);
            const GraphCounts c = qwen3::count_graph(rt.graph());
            CHECK(c.kernel_tasks == f.total);
            CHECK(c.subtasks == 3096);
            CHECK(c.framework_tasks == 0);
            CHECK(c.framework_edges == 0);
            for (int s = 0; s < 3; ++s)
                CHECK(c.scope_launches[s] == f.scope[s]);
            const LaunchCounts expected = graph.counts();
            CHECK(expected.total() == f.total);
            CHECK(expected.subtasks == 3096);
        }
    }
}

TEST_CASE("reduced shapes keep the chunk counts, so launches and subtasks equal the full graph's",
          "[examples][qwen3]") {
    for (const TierFigures& f : kFigures) {
        const LaunchCounts full = expected_launches(Shapes::full(), f.tier);
        const LaunchCounts reduced = expected_launches(Shapes::reduced(), f.tier);
        for (int s = 0; s < 3; ++s) {
            CHECK(full.scope[s] == f.scope[s]);
            CHECK(reduced.scope[s] == f.scope[s]);
        }
        CHECK(reduced.subtasks == 3096);
    }
}

TEST_CASE(
    "a problem keeps each operator's chunk size and each row's context and KV blocks as Shapes computes them",
    "[examples][qwen3]") {
    Shapes odd = Shapes::reduced();
    odd.max_context = 29;  // not a multiple of kv_block: the last block of some rows is partial
    odd.kv_block = 4;
    for (const Shapes& s : {Shapes::full(), Shapes::reduced(), odd}) {
        const Problem p = Problem::with_fake_addresses(s);
        for (std::uint32_t op = 0; op < kOpCount; ++op)
            CHECK(p.chunk_size(static_cast<Op>(op)) == s.chunk_size(static_cast<Op>(op)));
        for (std::uint32_t row = 0; row < s.batch_padded(); ++row) {
            INFO("row " << row);
            CHECK(p.context_len(row) == s.context_len(row));
            CHECK(p.kv_blocks(row) == (s.context_len(row) + s.kv_block - 1) / s.kv_block);
        }
    }
}

namespace {

/// check_same_tasks: kinds, cores, block_nums and all three kernels, position by position.
void check_same_tasks(const pto::GraphRecord& got, const pto::GraphRecord& want) {
    REQUIRE(got.tasks.size() == want.tasks.size());
    for (std::size_t i = 0; i < got.tasks.size(); ++i) {
        INFO("task " << i);
        const pto::RecordedTask& g = got.tasks[i];
        const pto::RecordedTask& w = want.tasks[i];
        REQUIRE(g.kind == w.kind);
        REQUIRE(g.core == w.core);
        REQUIRE(g.block_num == w.block_num);
        for (int lane = 0; lane < 3; ++lane)
            REQUIRE(g.funcs[lane] == w.funcs[lane]);
    }
}

}  // namespace

TEST_CASE(
    "scheme A submits the defined emission order and exactly the rule edges, and schemes B, C and D submit "
    "the same tasks in the same order with the same edge set, at every tier",
    "[examples][qwen3][edges]") {
    const Problem problem = Problem::with_fake_addresses();
    pto::Runtime rt(serial_recording());
    register_kernels(rt);
    pto::Orchestrator orchestrator(rt);
    for (const TierFigures& f : kFigures) {
        INFO("tier " << to_string(f.tier));
        const ExpectedGraph expected = expected_graph(f.tier);
        DecodeGraph graph(problem, f.tier);

        orchestrator.run([&] { graph.submit(Scheme::Manual); });
        const pto::GraphRecord& a = rt.graph();
        REQUIRE(a.tasks.size() == expected.nodes.size());
        for (std::size_t i = 0; i < a.tasks.size(); ++i) {
            INFO("task " << i);
            REQUIRE(op_of(a.tasks[i].funcs[0]) == expected.nodes[i].first);
            REQUIRE(a.tasks[i].block_num == expected.nodes[i].second);
            REQUIRE(a.tasks[i].core == op_info(expected.nodes[i].first).core);
        }
        const Edges manual = kernel_edges(a);
        CHECK(manual == expected.edges);

        const pto::GraphRecord record_a = a;
        for (Scheme scheme : {Scheme::Tensormap, Scheme::StaticManual, Scheme::StaticTensormap}) {
            INFO("scheme " << letter(scheme));
            orchestrator.run([&] { graph.submit(scheme); });
            check_same_tasks(rt.graph(), record_a);
            const Edges edges = kernel_edges(rt.graph());
            CHECK(edges.size() == manual.size());
            CHECK(edges == manual);
            const GraphCounts c = qwen3::count_graph(rt.graph());
            CHECK(c.framework_tasks == 0);
            CHECK(c.framework_edges == 0);
        }
    }
}

TEST_CASE(
    "scheme D looks up only the declared boundary inputs and records only the boundary outputs; scheme C "
    "never touches the tensormap",
    "[examples][qwen3][edges]") {
    const Problem problem = Problem::with_fake_addresses();
    pto::Runtime rt(serial_recording());
    register_kernels(rt);
    pto::Orchestrator orchestrator(rt);
    const Shapes& s = problem.shapes();
    for (const TierFigures& f : kFigures) {
        INFO("tier " << to_string(f.tier));
        DecodeGraph graph(problem, f.tier);
        const std::uint64_t v = launches(8, f.tier).size(), attention = launches(4, f.tier).size();
        const std::uint64_t out = launches(40, f.tier).size();
        // Lookups: rope's q_normed, k_normed and v rows; each out_proj launch's attention tile.
        // Records: qk_norm's two outputs and every v_proj launch; every online_softmax launch; every
        // down_proj_residual launch (the layer's output, for whoever reads it next).
        const pto::RunReport d = orchestrator.run([&] { graph.submit(Scheme::StaticTensormap); });
        CHECK(d.orchestrator.tensormap_lookups == 3 * s.batch + out * s.tiles());
        CHECK(d.orchestrator.tensormap_inserts ==
              (2 + v) * s.tiles() + attention * s.batch + out * s.tiles());
        const pto::RunReport b = orchestrator.run([&] { graph.submit(Scheme::Tensormap); });
        CHECK(b.orchestrator.tensormap_lookups > d.orchestrator.tensormap_lookups);
        const pto::RunReport c = orchestrator.run([&] { graph.submit(Scheme::StaticManual); });
        CHECK(c.orchestrator.tensormap_lookups == 0);
        CHECK(c.orchestrator.tensormap_inserts == 0);
    }
}

TEST_CASE("the graph runs in concurrent mode with a window of 256 tasks (largest scope 223 launches)",
          "[examples][qwen3]") {
    const Problem problem = Problem::with_fake_addresses();
    pto::RuntimeConfig cfg;
    cfg.window_tasks = 256;
    // A template instance reserves its argument records at once: G3 at non-spmd (223 launches) needs
    // about 155 KiB, more than the default ring of window_tasks x 512 bytes at this window.
    cfg.argument_bytes = 256 * 1024;
    pto::Runtime rt(cfg);
    register_kernels(rt);
    pto::Orchestrator orchestrator(rt);
    DecodeGraph graph(problem, SpmdTier::NonSpmd);
    for (Scheme scheme : kAllSchemes) {
        INFO("scheme " << letter(scheme));
        const pto::RunReport report = orchestrator.run([&] { graph.submit(scheme); });
        CHECK(report.ok());
        CHECK(report.completed == report.submitted);
        CHECK(report.kernel_tasks == 3096);
        CHECK(report.orchestrator.window_waits > 0);  // the window really was the limit
    }
}

TEST_CASE(
    "a G3 instance that does not fit the argument ring is rejected naming argument_bytes, and the runtime "
    "stays usable",
    "[examples][qwen3][errors]") {
    const Problem problem = Problem::with_fake_addresses();
    pto::RuntimeConfig cfg;
    cfg.window_tasks = 256;
    cfg.argument_bytes = 64 << 10;  // G3's instance takes about 37 KiB, and reserves twice that to wrap
    pto::Runtime rt(cfg);
    register_kernels(rt);
    DecodeGraph graph(problem, SpmdTier::NonSpmd);
    for (Scheme scheme : {Scheme::StaticManual, Scheme::StaticTensormap}) {
        INFO("scheme " << letter(scheme));
        try {
            pto::run(rt, [&] { graph.submit(scheme); });
            FAIL("a 223-node instance fit a 64 KiB argument ring");
        } catch (const pto::Error& e) {
            CHECK(e.code() == pto::ErrorCode::CapacityExhausted);
            CHECK_THAT(std::string(e.message()), Catch::Contains("argument_bytes"));
            CHECK_THAT(std::string(e.message()), Catch::Contains("qwen3_g3"));
        }
    }
    // The same runtime runs what fits (Scope 3 of scheme A takes more of this ring than G3 would: every
    // launch's views are copied, not shared).
    DecodeGraph all_spmd(problem, SpmdTier::AllSpmd);
    CHECK(pto::run(rt, [&] { all_spmd.submit(Scheme::StaticManual); }).kernel_tasks == 522);
    // The graph dropped the failed runs' bindings and boundary producers: on a runtime whose ring holds
    // the graph it builds exactly scheme A's graph at once (a stale producer would be an extra edge).
    pto::Runtime larger(serial_recording());
    register_kernels(larger);
    pto::run(larger, [&] { graph.submit(Scheme::Manual); });
    const Edges manual = kernel_edges(larger.graph());
    for (Scheme scheme : {Scheme::StaticManual, Scheme::StaticTensormap}) {
        INFO("scheme " << letter(scheme));
        const pto::RunReport report = pto::run(larger, [&] { graph.submit(scheme); });
        CHECK(report.ok());
        CHECK(report.kernel_tasks == 3096);
        CHECK(kernel_edges(larger.graph()) == manual);
    }
}

TEST_CASE(
    "DecodeGraph supports all four schemes and builds them one after another on one runtime; build() "
    "refuses the static schemes",
    "[examples][qwen3]") {
    for (Scheme scheme : kAllSchemes)
        CHECK(supports(scheme));
    const Problem problem = Problem::with_fake_addresses();
    pto::Runtime rt;
    register_kernels(rt);
    DecodeGraph graph(problem, SpmdTier::AllSpmd);
    for (int round = 0; round < 2; ++round)
        for (Scheme scheme : kAllSchemes) {
            INFO("round " << round << ", scheme " << letter(scheme));
            CHECK(pto::run(rt, [&] { graph.submit(scheme); }).kernel_tasks == 522);
        }
    // build() makes a temporary graph: fine for A and B, refused for C and D, whose instances refer to the
    // graph's templates until after the run.
    CHECK(pto::run(rt, [&] { build(problem, Scheme::Tensormap, SpmdTier::AllSpmd); }).kernel_tasks == 522);
    for (Scheme scheme : {Scheme::StaticManual, Scheme::StaticTensormap}) {
        try {
            pto::run(rt, [&] { build(problem, scheme, SpmdTier::AllSpmd); });
            FAIL("build accepted scheme " << letter(scheme));
        } catch (const pto::Error& e) {
            CHECK(e.code() == pto::ErrorCode::InvalidArgument);
            CHECK_THAT(std::string(e.message()), Catch::Contains("DecodeGraph"));
        }
    }
    CHECK(pto::run(rt, [&] { graph.submit(Scheme::StaticManual); }).kernel_tasks == 522);
}

TEST_CASE("the kernel table has 19 FuncIds for 17 operators with the reference names and durations",
          "[examples][qwen3]") {
    pto::Runtime rt;
    register_kernels(rt, 100);
    std::vector<std::uint16_t> ids;
    for (std::uint32_t i = 0; i < kOpCount; ++i) {
        const Op op = static_cast<Op>(i);
        const std::uint32_t lanes = op == Op::OutProjResidual ? 3 : 1;
        for (std::uint32_t lane = 0; lane < lanes; ++lane) {
            const pto::FuncId f = func_id(op, lane, 100);
            ids.push_back(f.value);
            CHECK(op_of(f, 100) == op);
            const pto::KernelInfo* k = rt.find_kernel(f);
            REQUIRE(k != nullptr);
            CHECK(k->duration_us == op_info(op).duration_us);
            CHECK(k->fn != nullptr);
            CHECK_THAT(k->name, Catch::StartsWith(std::string(op_info(op).name)));
        }
    }
    std::sort(ids.begin(), ids.end());
    CHECK(ids.size() == kFuncIdCount);
    CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end());
    CHECK(ids.front() == 100);
    CHECK(ids.back() == 100 + kFuncIdCount - 1);
    CHECK(rt.kernel_name(func_id(Op::OutProjResidual, 2, 100)) == "out_proj_residual_aiv1");
    CHECK(op_info(Op::GateProj).duration_us == 95.70);
    CHECK(op_info(Op::OutProjResidual).core == pto::CoreType::MIX);
    CHECK_FALSE(op_of(pto::FuncId{99}, 100).has_value());
}

TEST_CASE("shapes that cannot be split into the table's chunk counts are rejected naming the dimension",
          "[examples][qwen3][errors]") {
    Shapes s = Shapes::reduced();
    s.kv_heads = 6;  // 6 KV heads do not split into 4 attention head groups
    try {
        s.validate();
        FAIL("accepted kv_heads = 6");
    } catch (const pto::Error& e) {
        CHECK(e.code() == pto::ErrorCode::InvalidArgument);
        CHECK_THAT(std::string(e.message()), Catch::Contains("kv_heads"));
    }
    s = Shapes::reduced();
    s.intermediate = 500;
    CHECK_THROWS_AS(Problem::with_fake_addresses(s), pto::Error);
    CHECK(Shapes::full().tiles() == 6);
    CHECK(Shapes::full().valid_rows(5) == 10);
    CHECK(Shapes::full().batch_padded() == 96);
}
