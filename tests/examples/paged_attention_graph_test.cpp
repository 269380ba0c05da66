// docs/design/static-graph.md and docs/design/reference-graphs.md, conformance: the paged-attention graph's
// shape and counts (Case1: 1920 kernel launches), the exact kernel-edge sets of schemes A and B, the
// static-template schemes C and D equal to A and B exactly (tasks, order, kernel and framework edges), D's
// tensormap use limited to the declared boundaries, and all four ordering the kernel launches identically.
//
//   per scope (sequence b, head tile t), groups g = 0..G-1:
//     QK(g) --> SF(g) --> PV(g) --> UP(g) --> UP(g+1)        A, C: alloc --> UP(G-1)
//                 \____ B, D only __^                        B, D: alloc --> every kernel
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "pto/examples/paged_attention.h"
#include "support/catch_printers.h"

using namespace pto;
using namespace pto::examples;
using namespace pto::examples::paged_attention;

namespace {

using EdgeSet =
    std::set<std::pair<std::size_t, std::size_t>>;  // (producer, consumer) positions in the record

struct Recorded {
    GraphRecord graph;
    RunReport report;
};

// Serial mode with the whole graph in the window: nothing retires while building, so the record holds every
// edge the orchestration stated or the tensormap found.
Recorded record(const Shape& shape, Scheme scheme) {
    RuntimeConfig cfg;
    cfg.record_graph = true;
    cfg.orchestration = OrchestrationMode::Serial;
    fit_whole_graph(cfg, shape);
    Runtime rt(cfg);
    register_kernels(rt);
    const Problem problem(shape, Memory::Virtual);
    Recorded r;
    r.report = pto::run(rt, [&] { build(problem, scheme); });
    r.graph = rt.graph();
    return r;
}

bool is_kernel(const GraphRecord& g, std::size_t i) {
    return g.tasks[i].kind == TaskKind::Kernel;
}

/// edges: unique (producer, consumer) positions, split into kernel-kernel and the rest.
std::pair<EdgeSet, EdgeSet> edges(const GraphRecord& g) {
    EdgeSet kernel, framework;
    for (std::size_t c = 0; c < g.tasks.size(); ++c)
        for (TaskId p : g.producers_of(g.tasks[c])) {
            const auto pi = static_cast<std::size_t>(g.index_of(p));
            (is_kernel(g, pi) && is_kernel(g, c) ? kernel : framework).insert({pi, c});
        }
    return {kernel, framework};
}

/// Positions of a scope's tasks in submission order: the alloc, then QK, SF, PV, UP per group.
struct ScopePositions {
    std::size_t alloc;
    std::vector<std::size_t> qk, sf, pv, up;
};

std::vector<ScopePositions> positions(const Shape& shape) {
    std::vector<ScopePositions> scopes;
    std::size_t next = 0;
    for (std::uint32_t b = 0; b < shape.batch; ++b)
        for (std::uint32_t t = 0; t < shape.head_tiles(); ++t) {
            ScopePositions s;
            s.alloc = next++;
            for (std::uint32_t g = 0; g < shape.groups(b); ++g) {
                s.qk.push_back(next++);
                s.sf.push_back(next++);
                s.pv.push_back(next++);
                s.up.push_back(next++);
            }
            scopes.push_back(std::move(s));
        }
    return scopes;
}

/// The chain of docs/design/reference-graphs.md: QK->SF->PV->UP per group, UP(g-1)->UP(g).
EdgeSet chain_edges(const Shape& shape) {
    EdgeSet e;
    for (const ScopePositions& s : positions(shape))
        for (std::size_t g = 0; g < s.qk.size(); ++g) {
            e.insert({s.qk[g], s.sf[g]});
            e.insert({s.sf[g], s.pv[g]});
            e.insert({s.pv[g], s.up[g]});
            if (g > 0) e.insert({s.up[g - 1], s.up[g]});
        }
    return e;
}

/// closure: for every kernel launch, the kernel launches it (transitively) waits for; paths may pass through
/// framework tasks. Submission order is a topological order, so one forward pass suffices.
std::vector<std::vector<bool>> closure(const GraphRecord& g) {
    const std::size_t n = g.tasks.size();
    std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
    for (std::size_t c = 0; c < n; ++c)
        for (TaskId p : g.producers_of(g.tasks[c])) {
            const auto pi = static_cast<std::size_t>(g.index_of(p));
            REQUIRE(pi < c);
            reach[c][pi] = true;
            for (std::size_t k = 0; k < pi; ++k)
                if (reach[pi][k]) reach[c][k] = true;
        }
    for (std::size_t c = 0; c < n; ++c)
        for (std::size_t k = 0; k < n; ++k)
            if (!is_kernel(g, c) || !is_kernel(g, k)) reach[c][k] = false;
    return reach;
}

// Several groups per sequence (1 to 8), partial blocks and groups, GQA with two head tiles.
Shape varied_shape() {
    return compute_case();
}

}  // namespace

TEST_CASE("Case1 has 480 scopes of one group each: 1920 kernel launches and 480 allocs",
          "[examples][paged_attention]") {
    const Shape s = case1();
    CHECK(s.q_tile() == 16);
    CHECK(s.head_tiles() == 1);
    CHECK(s.blocks(0) == 64);
    CHECK(s.groups(0) == 1);
    CHECK(s.scope_count() == 480);
    CHECK(s.kernel_task_count() == 1920);
    for (Scheme scheme : kAllSchemes) {
        INFO("scheme " << letter(scheme));
        const Recorded r = record(s, scheme);
        CHECK(r.report.kernel_tasks == 1920);
        CHECK(r.report.framework_tasks == 480);
        CHECK(r.report.subtasks == 1920);
        CHECK(pto::count_graph(r.graph) == expected_counts(s, scheme));
    }
    CHECK(expected_counts(s, Scheme::Manual).kernel_edges == 1440);
    CHECK(expected_counts(s, Scheme::Tensormap).kernel_edges == 1920);
    CHECK(expected_counts(s, Scheme::StaticManual) == expected_counts(s, Scheme::Manual));
    CHECK(expected_counts(s, Scheme::StaticTensormap) == expected_counts(s, Scheme::Tensormap));
}

TEST_CASE("scheme A carries exactly the group chain and one alloc edge per scope",
          "[examples][paged_attention]") {
    const Shape s = varied_shape();
    const Recorded r = record(s, Scheme::Manual);
    const auto [kernel, framework] = edges(r.graph);
    CHECK(kernel == chain_edges(s));
    EdgeSet alloc_edges;
    for (const ScopePositions& p : positions(s))
        alloc_edges.insert({p.alloc, p.up.back()});
    CHECK(framework == alloc_edges);
    CHECK(pto::count_graph(r.graph) == expected_counts(s, Scheme::Manual));
    CHECK(r.report.orchestrator.tensormap_lookups == 0);
}

TEST_CASE("scheme B discovers A's edges plus softmax_prepare -> online_update, and nothing else",
          "[examples][paged_attention]") {
    const Shape s = varied_shape();
    const Recorded r = record(s, Scheme::Tensormap);
    const auto [kernel, framework] = edges(r.graph);
    EdgeSet want = chain_edges(s);
    EdgeSet alloc_edges;
    for (const ScopePositions& p : positions(s))
        for (std::size_t g = 0; g < p.qk.size(); ++g) {
            want.insert({p.sf[g], p.up[g]});
            for (std::size_t k : {p.qk[g], p.sf[g], p.pv[g], p.up[g]})
                alloc_edges.insert({p.alloc, k});
        }
    CHECK(kernel == want);
    CHECK(framework == alloc_edges);
    CHECK(pto::count_graph(r.graph) == expected_counts(s, Scheme::Tensormap));
    CHECK(r.report.orchestrator.tensormap_lookups > 0);
}

TEST_CASE("scheme C builds exactly scheme A's graph and scheme D exactly scheme B's",
          "[examples][paged_attention][static]") {
    const Shape s = GENERATE(varied_shape(), case1());
    INFO("batch " << s.batch << ", groups " << s.group_count());
    for (const auto& [dynamic, fixed] : {std::pair{Scheme::Manual, Scheme::StaticManual},
                                         std::pair{Scheme::Tensormap, Scheme::StaticTensormap}}) {
        INFO("scheme " << letter(fixed) << " against " << letter(dynamic));
        const Recorded want = record(s, dynamic);
        const Recorded got = record(s, fixed);
        REQUIRE(got.graph.tasks.size() == want.graph.tasks.size());
        for (std::size_t i = 0; i < got.graph.tasks.size(); ++i) {
            INFO("task " << i);
            const RecordedTask& g = got.graph.tasks[i];
            const RecordedTask& w = want.graph.tasks[i];
            REQUIRE(g.kind == w.kind);
            REQUIRE(g.core == w.core);
            REQUIRE(g.block_num == w.block_num);
            REQUIRE(g.funcs[0] == w.funcs[0]);
        }
        const auto [got_kernel, got_framework] = edges(got.graph);
        const auto [want_kernel, want_framework] = edges(want.graph);
        CHECK(got_kernel == want_kernel);
        CHECK(got_framework == want_framework);
        CHECK(pto::count_graph(got.graph) == expected_counts(s, fixed));
    }
}

TEST_CASE(
    "scheme D looks up six boundary arguments per group and records only the running state and the output; "
    "scheme C never touches the tensormap",
    "[examples][paged_attention][static]") {
    const Shape s = varied_shape();
    const Recorded d = record(s, Scheme::StaticTensormap);
    // QK's sij, SF's pij, PV's oi_new, UP's m_run, l_run and oi; records: the running state after every
    // group but the last, the output after the last.
    CHECK(d.report.orchestrator.tensormap_lookups == 6 * s.group_count());
    CHECK(d.report.orchestrator.tensormap_inserts ==
          3 * (s.group_count() - s.scope_count()) + s.scope_count());
    const Recorded b = record(s, Scheme::Tensormap);
    CHECK(b.report.orchestrator.tensormap_lookups > d.report.orchestrator.tensormap_lookups);
    const Recorded c = record(s, Scheme::StaticManual);
    CHECK(c.report.orchestrator.tensormap_lookups == 0);
    CHECK(c.report.orchestrator.tensormap_inserts == 0);
}

TEST_CASE("schemes A, B, C and D order the kernel launches identically (same transitive closure)",
          "[examples][paged_attention]") {
    const Shape s = varied_shape();
    const Recorded a = record(s, Scheme::Manual);
    const auto ca = closure(a.graph);
    for (Scheme scheme : {Scheme::Tensormap, Scheme::StaticManual, Scheme::StaticTensormap}) {
        INFO("scheme " << letter(scheme));
        const Recorded other = record(s, scheme);
        REQUIRE(a.graph.tasks.size() == other.graph.tasks.size());
        for (std::size_t i = 0; i < a.graph.tasks.size(); ++i) {
            REQUIRE(a.graph.tasks[i].kind == other.graph.tasks[i].kind);
            REQUIRE(a.graph.tasks[i].funcs[0] == other.graph.tasks[i].funcs[0]);
        }
        CHECK(ca == closure(other.graph));
    }
    // And the closure is not trivially full or empty: the last update of a scope follows all of its kernels,
    // and two scopes never order each other.
    const std::vector<ScopePositions> p = positions(s);
    const ScopePositions& longest = p[2 * 5];  // sequence 5 (511 tokens, 8 groups), tile 0
    REQUIRE(longest.qk.size() == 8);
    for (std::size_t g = 0; g < 8; ++g)
        CHECK(ca[longest.up.back()][longest.qk[g]]);
    CHECK_FALSE(ca[longest.up.back()][p[0].qk[0]]);
    CHECK_FALSE(ca[longest.qk[1]][longest.qk[0]]);
}

TEST_CASE("groups cover each sequence's tokens exactly once, in blocks of n_unroll",
          "[examples][paged_attention]") {
    const Shape s = varied_shape();
    REQUIRE_NOTHROW(s.validate());
    CHECK(s.q_tile() == 4);
    CHECK(s.head_tiles() == 2);
    const HeadTiling tiling = head_tiling(s);
    CHECK(tiling.q_tile == 4);
    CHECK(tiling.heads_per_kv == 4);
    CHECK(tiling.head_tiles == 2);
    CHECK(tiling.softmax_scale == 1.0f / std::sqrt(static_cast<float>(s.head_dim)));
    std::set<std::uint32_t> group_counts;
    for (std::uint32_t b = 0; b < s.batch; ++b) {
        const ScopeDesc sd = scope_desc(s, b, 1);
        CHECK(sd.kv_head == 1);
        CHECK(sd.first_head == 4);
        CHECK(sd.q_tile == 4);
        CHECK(sd.block_count == s.blocks(b));
        CHECK(sd.group_count == s.groups(b));
        group_counts.insert(sd.group_count);
        std::uint32_t tokens = 0, next_block = 0;
        for (std::uint32_t g = 0; g < sd.group_count; ++g) {
            const GroupDesc gd = group_desc(s, sd, g);
            CHECK(gd.first_block == next_block);
            CHECK(gd.block_count <= s.n_unroll);
            CHECK(gd.is_first == (g == 0));
            CHECK(gd.is_last == (g + 1 == sd.group_count));
            next_block += gd.block_count;
            tokens += gd.valid_tokens;
        }
        CHECK(tokens == s.context_lens[b]);
        CHECK(next_block == s.blocks(b));
    }
    CHECK(group_counts.size() >= 4);  // the test shapes really vary the number of groups
}

TEST_CASE("invalid shapes are rejected naming the field", "[examples][paged_attention]") {
    Shape s = compute_case();
    s.num_heads = 7;
    CHECK_THROWS_WITH(s.validate(), Catch::Contains("kv_head_num"));
    s = compute_case();
    s.context_lens[3] = s.max_model_len + 1;
    CHECK_THROWS_WITH(s.validate(), Catch::Contains("context_lens[3]"));
    s = compute_case();
    s.context_lens.pop_back();
    CHECK_THROWS_AS(Problem(s, Memory::Virtual), Error);
    CHECK_THROWS_WITH(Problem(case1(), Memory::Real), Catch::Contains("F32"));
}

TEST_CASE("build supports all four schemes and builds them one after another on one runtime",
          "[examples][paged_attention]") {
    RuntimeConfig cfg;
    Runtime rt(cfg);
    register_kernels(rt);
    const Problem problem(compute_case(), Memory::Virtual);
    for (int round = 0; round < 2; ++round)
        for (Scheme scheme : kAllSchemes) {
            INFO("round " << round << ", scheme " << letter(scheme));
            CHECK(supports(scheme));
            const RunReport report = pto::run(rt, [&] { build(problem, scheme); });
            CHECK(report.ok());
            CHECK(report.kernel_tasks == compute_case().kernel_task_count());
        }
}
