// PeerGraph: a GraphRecord translated, outside any timed region, into what both peers build from: positions
// instead of TaskIds, each task's distinct producers in one array, and the tasks without producers.
#pragma once

#include <cstdint>
#include <vector>

#include "peer.h"
#include "pto/runtime/graph.h"

namespace pto::bench::detail {

struct PeerGraph {
    std::uint32_t nodes = 0;
    std::uint64_t kernel_tasks = 0;
    /// Task i's producers are producers[first[i], first[i + 1]), positions < i, ascending and distinct.
    std::vector<std::uint32_t> first;
    std::vector<std::uint32_t> producers;
    /// Tasks with no producer inside the record, in submission order.
    std::vector<std::uint32_t> sources;

    [[nodiscard]] std::uint64_t edges() const noexcept { return producers.size(); }
};

/// make_peer_graph: translates `graph` (producers outside the record are dropped, duplicates merged).
/// Throws InvalidArgument if a producer is not earlier than its consumer or the record has 2^32 tasks.
PeerGraph make_peer_graph(const GraphRecord& graph);

/// start_run: the PeerRun every peer fills in, with what both know before building anything: the peer,
/// its threads (options.threads, or the hardware threads when 0, at least 1), the graph's sizes. Throws
/// InvalidArgument if a given probe holds fewer tasks than the graph.
PeerRun start_run(Peer peer, const PeerGraph& graph, const PeerOptions& options);

/// settle: waits, untimed, until the process's other threads stop using CPU, at most
/// options.settle_max_ms; returns the nanoseconds waited.
std::int64_t settle(const PeerOptions& options);

/// now_ns: steady_clock nanoseconds, the one clock of every peer phase.
std::int64_t now_ns() noexcept;

}  // namespace pto::bench::detail
