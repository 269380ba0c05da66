// docs/bench.md (--peers) conformance, public API of bench/peers/peer.h: each peer (oneTBB flow_graph, OpenMP
// depend) executes the edges of a hand-built GraphRecord: every task exactly once, none before all its
// producers ended (probe sequence numbers), and reports which phases it timed. No timing is checked.
#include "peers/peer.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "pto/runtime/error.h"
#include "support/graph_checks.h"

using namespace pto;
using namespace pto::bench;

namespace {

using PeerFn = PeerRun (*)(const GraphRecord&, const PeerOptions&);

struct PeerCase {
    Peer peer;
    PeerFn run;
};

const PeerCase kPeers[] = {{Peer::TbbFlowGraph, &run_tbb_flow_graph}, {Peer::OmpDepend, &run_omp_depend}};

// RecordBuilder: a GraphRecord by hand. Producers are given as positions; ids start at `first_id`, as in a
// record from a later run, so position and id differ and the peers must go through index_of.
class RecordBuilder {
  public:
    explicit RecordBuilder(std::uint64_t first_id = 1000) : first_id_(first_id) {}

    std::uint32_t add(std::initializer_list<std::uint32_t> producers, TaskKind kind = TaskKind::Kernel,
                      CoreType core = CoreType::AIV, std::uint32_t block_num = 1) {
        return add(std::vector<std::uint32_t>(producers), kind, core, block_num);
    }

    std::uint32_t add(const std::vector<std::uint32_t>& producers, TaskKind kind = TaskKind::Kernel,
                      CoreType core = CoreType::AIV, std::uint32_t block_num = 1) {
        std::vector<TaskId> ids;
        for (std::uint32_t p : producers)
            ids.push_back(TaskId{first_id_ + p});
        return add_ids(ids, kind, core, block_num);
    }

    // add_ids: producers as raw ids, for ids outside the record or not earlier than the task.
    std::uint32_t add_ids(const std::vector<TaskId>& producers, TaskKind kind = TaskKind::Kernel,
                          CoreType core = CoreType::AIV, std::uint32_t block_num = 1) {
        const auto position = static_cast<std::uint32_t>(graph_.tasks.size());
        RecordedTask t;
        t.id = TaskId{first_id_ + position};
        t.kind = kind;
        t.core = kind == TaskKind::Kernel ? core : CoreType::None;
        t.block_num = block_num;
        t.first_producer = static_cast<std::uint32_t>(graph_.producers.size());
        t.producer_count = static_cast<std::uint32_t>(producers.size());
        graph_.producers.insert(graph_.producers.end(), producers.begin(), producers.end());
        graph_.tasks.push_back(t);
        return position;
    }

    [[nodiscard]] std::uint32_t size() const { return static_cast<std::uint32_t>(graph_.tasks.size()); }
    [[nodiscard]] const GraphRecord& graph() const { return graph_; }

  private:
    std::uint64_t first_id_;
    GraphRecord graph_;
};

// first_violation: empty if the probe saw every task of `graph` run exactly once, no kernel start before its
// producers ended (check_ordering, which looks through framework tasks), and, stricter because each peer
// makes framework tasks real nodes, no task of any kind start before each producer's own body ended.
std::string first_violation(const GraphRecord& graph, const PeerProbe& probe) {
    std::vector<test::TaskSpan> spans(graph.tasks.size());
    for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
        const PeerProbe::Span s = probe.span(i);
        spans[i] = test::TaskSpan{s.start_seq, s.end_seq, s.runs};
        if (s.runs != 1)
            return "task " + std::to_string(graph.tasks[i].id.value) + " ran " + std::to_string(s.runs) +
                   " times";
    }
    if (std::string problem = test::check_ordering(graph, spans); !problem.empty()) return problem;
    for (std::size_t i = 0; i < graph.tasks.size(); ++i)
        for (TaskId p : graph.producers_of(graph.tasks[i])) {
            const std::int64_t at = graph.index_of(p);
            if (at >= 0 && spans[i].first_start < spans[static_cast<std::size_t>(at)].last_end)
                return "task " + std::to_string(graph.tasks[i].id.value) + " started before producer " +
                       std::to_string(p.value) + " ended";
        }
    return {};
}

// require_peer_executes_edges: one repetition of `peer` observed by probes (the first run, and the
// flow_graph replay), both checked.
PeerRun require_peer_executes_edges(const PeerCase& peer, const GraphRecord& graph, unsigned threads) {
    INFO("peer " << to_string(peer.peer) << ", " << threads << " threads, " << graph.tasks.size()
                 << " tasks");
    PeerProbe probe(graph.tasks.size());
    PeerProbe replay_probe(graph.tasks.size());
    PeerOptions options;
    options.threads = threads;
    options.probe = &probe;
    options.replay_probe = &replay_probe;
    const PeerRun run = peer.run(graph, options);
    REQUIRE(run.nodes == graph.tasks.size());
    REQUIRE(first_violation(graph, probe).empty());
    if (run.replay_ns) REQUIRE(first_violation(graph, replay_probe).empty());
    return run;
}

// random_record: a random DAG on GraphRecord directly: mostly kernels of every core type and SPMD width,
// some dependency-only and alloc tasks, fan-in up to `max_fanin` from the previous `reach` tasks (so
// duplicates occur), and now and then a producer id from before the record.
GraphRecord random_record(std::uint64_t seed, std::uint32_t tasks, std::uint32_t max_fanin,
                          std::uint32_t reach) {
    std::mt19937_64 rng(seed);
    RecordBuilder b;
    for (std::uint32_t i = 0; i < tasks; ++i) {
        const std::uint64_t r = rng() % 100;
        const TaskKind kind = r < 5 ? TaskKind::DependencyOnly : r < 8 ? TaskKind::Alloc : TaskKind::Kernel;
        const auto core = static_cast<CoreType>(rng() % 3);
        std::vector<TaskId> producers;
        const std::uint32_t fanin = i == 0 ? 0 : static_cast<std::uint32_t>(rng() % (max_fanin + 1));
        for (std::uint32_t k = 0; k < fanin; ++k)
            producers.push_back(
                TaskId{1000 + i - 1 - static_cast<std::uint32_t>(rng() % std::min(i, reach))});
        if (rng() % 20 == 0) producers.push_back(TaskId{7});  // an earlier run's task
        b.add_ids(producers, kind, core, 1 + static_cast<std::uint32_t>(rng() % 8));
    }
    return b.graph();
}

// paged_attention_like: `batches` independent chains QK -> softmax -> PV -> update
// (docs/design/reference-graphs.md case 1 has 480).
GraphRecord paged_attention_like(std::uint32_t batches) {
    RecordBuilder b;
    for (std::uint32_t i = 0; i < batches; ++i) {
        const std::uint32_t qk = b.add({}, TaskKind::Kernel, CoreType::AIC);
        const std::uint32_t sf = b.add({qk}, TaskKind::Kernel, CoreType::AIV);
        const std::uint32_t pv = b.add({sf}, TaskKind::Kernel, CoreType::AIC);
        b.add({pv, sf}, TaskKind::Kernel, CoreType::AIV);
    }
    return b.graph();
}

// dense_layers: `layers` layers of `width` tasks, each fed by every task of the layer before.
GraphRecord dense_layers(std::uint32_t layers, std::uint32_t width) {
    RecordBuilder b;
    std::vector<std::uint32_t> previous;
    for (std::uint32_t l = 0; l < layers; ++l) {
        std::vector<std::uint32_t> current;
        for (std::uint32_t w = 0; w < width; ++w)
            current.push_back(b.add(previous, TaskKind::Kernel, CoreType::AIC));
        previous = current;
    }
    return b.graph();
}

}  // namespace

//   t0 -> t1 -> t2 -> ... -> t49
TEST_CASE("each peer runs a chain strictly one task after the other", "[bench][peers]") {
    const PeerCase& peer = kPeers[GENERATE(0, 1)];
    const unsigned threads = GENERATE(1u, 2u, 4u);
    RecordBuilder b;
    b.add({});
    for (std::uint32_t i = 1; i < 50; ++i)
        b.add({i - 1});
    const PeerRun run = require_peer_executes_edges(peer, b.graph(), threads);
    CHECK(run.edges == 49);
}

//        a
//       / \    (b is SPMD with block_num 8, c is MIX)
//      b   c
//       \ /
//        d
TEST_CASE("each peer starts a diamond's join only after both branches ended", "[bench][peers]") {
    const PeerCase& peer = kPeers[GENERATE(0, 1)];
    const unsigned threads = GENERATE(1u, 2u, 4u);
    RecordBuilder b;
    const std::uint32_t a = b.add({});
    const std::uint32_t l = b.add({a}, TaskKind::Kernel, CoreType::AIV, 8);
    const std::uint32_t r = b.add({a}, TaskKind::Kernel, CoreType::MIX);
    b.add({l, r}, TaskKind::Kernel, CoreType::AIC);
    const PeerRun run = require_peer_executes_edges(peer, b.graph(), threads);
    CHECK(run.edges == 4);
    CHECK(run.kernel_tasks == 4);
}

//   alloc   root
//     |    / |  \    (64 wide, then a dependency-only join,
//     |  k0 k1 .. k63  then 64 wide again fed by the join,
//     |    \ |  /      then one MIX kernel joining all 64
//     |    join        and the alloc)
//     |    / |  \    .
//     |  m0 m1 .. m63
//      \   \ |  /
//          sink
TEST_CASE("each peer runs a wide fan-out and fan-in with framework tasks after their producers",
          "[bench][peers]") {
    const PeerCase& peer = kPeers[GENERATE(0, 1)];
    const unsigned threads = GENERATE(1u, 2u, 4u);
    RecordBuilder b;
    const std::uint32_t alloc = b.add({}, TaskKind::Alloc);
    const std::uint32_t root = b.add({});
    std::vector<std::uint32_t> wide;
    for (int i = 0; i < 64; ++i)
        wide.push_back(b.add({root}, TaskKind::Kernel, CoreType::AIC, 4));
    const std::uint32_t join = b.add(wide, TaskKind::DependencyOnly);
    std::vector<std::uint32_t> sink_producers{alloc};
    for (int i = 0; i < 64; ++i)
        sink_producers.push_back(b.add({join}));
    b.add(sink_producers, TaskKind::Kernel, CoreType::MIX);
    const PeerRun run = require_peer_executes_edges(peer, b.graph(), threads);
    CHECK(run.nodes == 132);
    CHECK(run.kernel_tasks == 130);
    CHECK(run.edges == 64 + 64 + 64 + 65);
}

TEST_CASE("each peer keeps every edge of random DAGs with framework tasks and duplicate producers",
          "[bench][peers]") {
    const PeerCase& peer = kPeers[GENERATE(0, 1)];
    const unsigned threads = GENERATE(1u, 2u, 4u);
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        INFO("seed " << seed << " (random_record(seed, 300, 6, 24))");
        require_peer_executes_edges(peer, random_record(seed, 300, 6, 24), threads);
    }
}

TEST_CASE("each peer runs graphs of more than a thousand tasks", "[bench][peers]") {
    const PeerCase& peer = kPeers[GENERATE(0, 1)];
    const unsigned threads = GENERATE(0u, 2u);
    SECTION("480 paged-attention chains of 4 tasks") {
        const PeerRun run = require_peer_executes_edges(peer, paged_attention_like(480), threads);
        CHECK(run.nodes == 1920);
        CHECK(run.edges == 480 * 4);
    }
    SECTION("30 dense layers of 40 tasks, each fed by the whole layer before") {
        const PeerRun run = require_peer_executes_edges(peer, dense_layers(30, 40), threads);
        CHECK(run.nodes == 1200);
        CHECK(run.edges == 29 * 40 * 40);
    }
    SECTION("a random DAG of 5000 tasks") {
        require_peer_executes_edges(peer, random_record(42, 5000, 8, 64), threads);
    }
}

//   t0 -> t1 -> t2, and t1 names t0 three times; t2 names a task of an earlier run
TEST_CASE("each peer merges duplicate producers and ignores producers outside the record", "[bench][peers]") {
    const PeerCase& peer = kPeers[GENERATE(0, 1)];
    RecordBuilder b(1000);
    b.add({});
    b.add({0, 0, 0});
    b.add_ids({TaskId{1001}, TaskId{3}});
    const PeerRun run = require_peer_executes_edges(peer, b.graph(), 2);
    CHECK(run.edges == 2);
}

TEST_CASE("each peer rejects a producer that is not submitted before its consumer", "[bench][peers]") {
    const PeerCase& peer = kPeers[GENERATE(0, 1)];
    RecordBuilder b(1000);
    b.add({});
    b.add_ids({TaskId{1002}});  // names the task after it
    b.add({0});
    try {
        (void)peer.run(b.graph(), {});
        FAIL("no error");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::InvalidArgument);
        CHECK_THAT(e.what(), Catch::Matchers::Contains("task 1001") && Catch::Matchers::Contains("1002"));
    }
    RecordBuilder self(1000);
    self.add_ids({TaskId{1000}});
    CHECK_THROWS_AS(peer.run(self.graph(), {}), Error);
}

TEST_CASE("each peer rejects a probe smaller than the graph", "[bench][peers]") {
    const PeerCase& peer = kPeers[GENERATE(0, 1)];
    const GraphRecord graph = paged_attention_like(2);
    PeerProbe small(7);
    PeerOptions options;
    options.probe = &small;
    try {
        (void)peer.run(graph, options);
        FAIL("no error");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::InvalidArgument);
        CHECK_THAT(e.what(), Catch::Matchers::Contains("holds 7 tasks, the graph has 8"));
    }
}

TEST_CASE("flow_graph reports build, run, reset and replay, and its checksum counts both executions",
          "[bench][peers]") {
    const GraphRecord graph = dense_layers(3, 5);
    PeerOptions options;
    options.threads = 2;
    const PeerRun run = run_tbb_flow_graph(graph, options);
    CHECK(to_string(run.peer) == "tbb_flow_graph");
    CHECK(run.threads == 2);
    REQUIRE(run.build_ns);
    REQUIRE(run.run_ns);
    REQUIRE(run.reset_ns);
    REQUIRE(run.replay_ns);
    CHECK_FALSE(run.create_ns);
    CHECK(*run.build_ns > 0);
    CHECK(run.total_ns == *run.build_ns + *run.run_ns);
    CHECK(*run.reset_ns <= *run.replay_ns);
    CHECK(run.body_calls == 2 * 15);

    options.replay = false;
    const PeerRun once = run_tbb_flow_graph(graph, options);
    CHECK_FALSE(once.replay_ns);
    CHECK_FALSE(once.reset_ns);
    CHECK(once.body_calls == 15);
}

TEST_CASE("OpenMP reports its parallel region and creation loop, and its checksum counts every task",
          "[bench][peers]") {
    const GraphRecord graph = dense_layers(3, 5);
    const PeerRun run = run_omp_depend(graph, {});
    CHECK(to_string(run.peer) == "omp_depend");
    CHECK(run.threads == std::max(1u, std::thread::hardware_concurrency()));
    REQUIRE(run.create_ns);
    CHECK(*run.create_ns <= run.total_ns);
    CHECK_FALSE(run.build_ns);
    CHECK_FALSE(run.run_ns);
    CHECK_FALSE(run.replay_ns);
    CHECK(run.body_calls == 15);
}

TEST_CASE("each peer runs an empty graph", "[bench][peers]") {
    const PeerCase& peer = kPeers[GENERATE(0, 1)];
    const PeerRun run = peer.run(GraphRecord{}, {});
    CHECK(run.nodes == 0);
    CHECK(run.edges == 0);
    CHECK(run.body_calls == 0);
}
