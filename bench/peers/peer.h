// The side-by-side peers of pto-bench --peers (docs/bench.md): a GraphRecord our runtime built, run again on
// oneTBB flow_graph (tbb_flow_graph.cpp) and on OpenMP tasks with depend clauses (omp_depend.cpp), one
// repetition per call, each phase timed on its own. The bench interleaves these calls with its own
// repetitions.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "pto/runtime/graph.h"

namespace pto::bench {

/// Peer: which foreign runtime ran the graph.
enum class Peer : std::uint8_t {
    TbbFlowGraph,  ///< oneTBB tbb::flow::graph, one continue_node<continue_msg> per task
    OmpDepend,     ///< OpenMP tasks with depend clauses (GCC libgomp), one task per task
};

/// to_string: the name results carry in their `peer` field: "tbb_flow_graph" or "omp_depend".
[[nodiscard]] std::string_view to_string(Peer peer) noexcept;

/// PeerProbe: a test hook that the peers' task bodies call at their start and end, drawing a global sequence
/// number each time, so a test can check exactly-once execution and that no task started before all its
/// producers ended, without clocks. Sized for a graph; index = position in GraphRecord::tasks.
///
///     PeerProbe probe(graph.tasks.size());
///     run_omp_depend(graph, {.probe = &probe});
///     // probe.span(i): start_seq / end_seq / runs of task i
///
/// Thread safety: on_start / on_end may run concurrently from any thread; span() and clear() only while no
/// peer is running (the peer's own join, wait_for_all or the end of the parallel region, orders them).
class PeerProbe {
  public:
    struct Span {
        std::uint64_t start_seq = 0;  ///< sequence number drawn when the body (last) started
        std::uint64_t end_seq = 0;    ///< sequence number drawn when the body (last) ended
        std::uint32_t runs = 0;       ///< how many times the body started
    };

    explicit PeerProbe(std::size_t tasks);

    /// clear: forgets every execution and restarts the sequence at 0.
    void clear() noexcept;

    void on_start(std::uint32_t task) noexcept {
        runs_[task].fetch_add(1, std::memory_order_relaxed);
        start_[task].store(draw(), std::memory_order_relaxed);
    }
    void on_end(std::uint32_t task) noexcept { end_[task].store(draw(), std::memory_order_relaxed); }

    [[nodiscard]] Span span(std::size_t task) const noexcept {
        return {start_[task].load(std::memory_order_relaxed), end_[task].load(std::memory_order_relaxed),
                runs_[task].load(std::memory_order_relaxed)};
    }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }

  private:
    // The peer's own synchronisation makes a producer's end happen before its consumer's start, and RMWs on
    // one atomic follow happens-before in its modification order, so relaxed draws already order them;
    // acq_rel keeps the counter an obvious synchronisation point for readers of the test.
    std::uint64_t draw() noexcept { return sequence_.fetch_add(1, std::memory_order_acq_rel); }

    std::size_t size_;
    std::atomic<std::uint64_t> sequence_{0};
    std::unique_ptr<std::atomic<std::uint64_t>[]> start_;
    std::unique_ptr<std::atomic<std::uint64_t>[]> end_;
    std::unique_ptr<std::atomic<std::uint32_t>[]> runs_;
};

/// PeerOptions: how one repetition runs.
struct PeerOptions {
    /// Worker threads, the calling thread included. 0 (default) = std::thread::hardware_concurrency(), the
    /// machine's cores. flow_graph runs in a task_arena of this concurrency (one slot for the caller);
    /// OpenMP opens its parallel region with num_threads(threads).
    unsigned threads = 0;
    /// flow_graph: after the timed run, also time a replay of the built graph. Ignored by OpenMP.
    bool replay = true;
    /// Observes the (first) execution; null in measurements, so bodies only bump their checksum slot.
    /// Must hold at least graph.tasks.size() tasks.
    PeerProbe* probe = nullptr;
    /// flow_graph: observes the replay. Same size rule as `probe`.
    PeerProbe* replay_probe = nullptr;
    /// After the timed phases, wait until the process stops burning CPU (polled every millisecond: two
    /// polls in a row with less than 0.1 ms of process CPU time each), at most this long, so the caller's
    /// next measurement does not share the cores with idle workers still spinning. libgomp's spin for
    /// GOMP_SPINCOUNT rounds (300000 by default) before they sleep, oneTBB's far shorter. 0 = return at once.
    /// Default 50 ms.
    unsigned settle_max_ms = 50;
};

/// PeerRun: one repetition of one peer. Times are steady_clock nanoseconds of the named phase; a phase the
/// peer does not have is empty. Nothing outside the named phases is timed: translating the record into
/// producer positions, allocating the checksum array, the probe, and destroying the graph are not.
struct PeerRun {
    Peer peer = Peer::TbbFlowGraph;
    unsigned threads = 0;            ///< worker threads used, the calling thread included
    std::uint64_t nodes = 0;         ///< peer tasks created: every task of the record, framework ones too
    std::uint64_t kernel_tasks = 0;  ///< kernel launches among them (the per-task divisor of docs/bench.md)
    std::uint64_t edges = 0;         ///< distinct producer -> consumer pairs inside the record
    /// What `ratio` compares with our end-to-end time: flow_graph build_ns + run_ns; OpenMP the whole
    /// `omp parallel` + `omp single` region (team wake-up, task creation, execution, closing barrier).
    std::int64_t total_ns = 0;
    /// flow_graph: constructing the tbb::flow::graph, all continue_nodes (one allocation for the node array)
    /// and every make_edge.
    std::optional<std::int64_t> build_ns;
    /// flow_graph: try_put(continue_msg) to every source node, then graph::wait_for_all.
    std::optional<std::int64_t> run_ns;
    /// flow_graph: graph::reset() alone (the part of replay_ns that rewinds the built graph).
    std::optional<std::int64_t> reset_ns;
    /// flow_graph: running the already-built graph again: reset(), try_put to the sources, wait_for_all.
    std::optional<std::int64_t> replay_ns;
    /// OpenMP: the creating thread's loop of `omp task depend(...)` inside `single`. Execution overlaps it:
    /// the other threads run ready tasks, and once more than 64 tasks per thread are pending libgomp runs a
    /// new task whose producers are done at once on the creating thread. Like our concurrent mode's
    /// orchestration time, not a creation-only cost.
    std::optional<std::int64_t> create_ns;
    /// Untimed: how long the call waited after its timed phases for the workers to go idle (settle_max_ms).
    std::int64_t settle_ns = 0;
    /// Checksum: task bodies executed over every timed execution (nodes per run, twice that with a
    /// flow_graph replay), summed after the timed regions. Callers should check or print it.
    std::uint64_t body_calls = 0;
};

/// run_tbb_flow_graph: one repetition on oneTBB flow_graph: one continue_node<continue_msg> per task of
/// `graph` (SPMD launches are one node each; dependency-only and alloc tasks are nodes too), one make_edge
/// per distinct producer edge inside the record, try_put to every node without producers. Bodies are empty
/// but for a volatile increment of the task's checksum slot (and the probe calls when a probe is given).
/// Producers outside the record (an earlier run) are ignored. Blocks until the graph has run.
/// Throws pto::Error InvalidArgument if a producer is not earlier than its consumer (naming both tasks),
/// or a probe is smaller than the graph. Returns after the settle wait of PeerOptions::settle_max_ms.
[[nodiscard]] PeerRun run_tbb_flow_graph(const GraphRecord& graph, const PeerOptions& options = {});

/// run_omp_depend: one repetition on OpenMP tasks (GCC libgomp): in `omp parallel` + `omp single`, one
/// `omp task` per task in submission order with depend(out: done[i]) on its own dependence byte and
/// depend(iterator(j = 0:k), in: done[producer[j]]) on its producers' bytes (OpenMP 5.0 iterators, so any
/// fan-in is one clause). Same graph rules, body and errors as run_tbb_flow_graph. Idle team threads wait
/// as libgomp's environment says (OMP_WAIT_POLICY, GOMP_SPINCOUNT; by default they spin a while, then
/// sleep): on a machine busier than its cores, spinning threads lose their time slices and the region's
/// closing barrier waits for them, so total_ns is far noisier than flow_graph's under load.
[[nodiscard]] PeerRun run_omp_depend(const GraphRecord& graph, const PeerOptions& options = {});

}  // namespace pto::bench
