// SimGraph: the recorded graph as indices for the virtual-time model: the producer of each recorded edge
// and the consumers of each task, validated once before the simulation starts.
#pragma once

#include <cstdint>
#include <vector>

#include "pto/runtime/graph.h"

namespace pto::detail::sim {

/// SimGraph: the recorded graph as indices: producers per edge (graph index, or -1 for a producer outside
/// the record, treated as long retired) and consumers per task (ascending, CSR).
struct SimGraph {
    std::vector<std::int64_t> producer_index;   // parallel to GraphRecord::producers
    std::vector<std::uint32_t> consumer_begin;  // size tasks + 1
    std::vector<std::uint32_t> consumers;
    /// The orchestrator's waits (GraphRecord::waits), in order: before submitting task wait_before[k]
    /// (an index; the task count means "before the orchestration ends") it waits for task wait_awaited[k].
    std::vector<std::uint32_t> wait_before;
    std::vector<std::uint32_t> wait_awaited;

    /// build: validates that producers precede consumers, kernel tasks have a core type and block_num, and
    /// every wait names a task submitted before it, in submission order.
    static SimGraph build(const GraphRecord& graph);
};

}  // namespace pto::detail::sim
