// SPEC §6.2, conformance: the paged-attention graph's shape and counts (Case1: 1920 kernel launches), the
// exact kernel-edge sets of schemes A and B, and that both order the kernel launches identically.
//
//   per scope (sequence b, head tile t), groups g = 0..G-1:
//     QK(g) --> SF(g) --> PV(g) --> UP(g) --> UP(g+1)        A: alloc --> UP(G-1)
//                 \____ B only _____^                        B: alloc --> every kernel
#include <catch2/catch.hpp>

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

/// The chain of SPEC §6.2: QK->SF->PV->UP per group, UP(g-1)->UP(g).
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
    for (Scheme scheme : {Scheme::Manual, Scheme::Tensormap}) {
        const Recorded r = record(s, scheme);
        CHECK(r.report.kernel_tasks == 1920);
        CHECK(r.report.framework_tasks == 480);
        CHECK(r.report.subtasks == 1920);
        CHECK(count_graph(r.graph) == expected_counts(s, scheme));
    }
    CHECK(expected_counts(s, Scheme::Manual).kernel_edges == 1440);
    CHECK(expected_counts(s, Scheme::Tensormap).kernel_edges == 1920);
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
    CHECK(count_graph(r.graph) == expected_counts(s, Scheme::Manual));
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
    CHECK(count_graph(r.graph) == expected_counts(s, Scheme::Tensormap));
    CHECK(r.report.orchestrator.tensormap_lookups > 0);
}

TEST_CASE("schemes A and B order the kernel launches identically (same transitive closure)",
          "[examples][paged_attention]") {
    const Shape s = varied_shape();
    const Recorded a = record(s, Scheme::Manual);
    const Recorded b = record(s, Scheme::Tensormap);
    REQUIRE(a.graph.tasks.size() == b.graph.tasks.size());
    for (std::size_t i = 0; i < a.graph.tasks.size(); ++i) {
        REQUIRE(a.graph.tasks[i].kind == b.graph.tasks[i].kind);
        REQUIRE(a.graph.tasks[i].funcs[0] == b.graph.tasks[i].funcs[0]);
    }
    const auto ca = closure(a.graph);
    CHECK(ca == closure(b.graph));
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
    std::set<std::uint32_t> group_counts;
    for (std::uint32_t b = 0; b < s.batch; ++b) {
        const ScopeDesc sd = scope_desc(s, b, 1);
        CHECK(sd.kv_head == 1);
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

TEST_CASE("the static schemes C and D are rejected until they exist and the runtime stays usable",
          "[examples][paged_attention]") {
    RuntimeConfig cfg;
    cfg.record_graph = true;
    Runtime rt(cfg);
    register_kernels(rt);
    const Problem problem(compute_case(), Memory::Virtual);
    for (Scheme scheme : {Scheme::StaticManual, Scheme::StaticTensormap}) {
        try {
            pto::run(rt, [&] { build(problem, scheme); });
            FAIL("build accepted scheme " << letter(scheme));
        } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::InvalidArgument);
            CHECK_THAT(std::string(e.message()), Catch::Contains(std::string(1, letter(scheme))));
        }
    }
    const RunReport report = pto::run(rt, [&] { build(problem, Scheme::Manual); });
    CHECK(report.kernel_tasks == compute_case().kernel_task_count());
}
