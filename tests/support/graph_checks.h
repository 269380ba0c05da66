// Assertions over a finished run: every kernel subtask ran exactly once, and no subtask started before
// every subtask of each of its producers ended (through dependency-only tasks transitively).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "execution_log.h"
#include "pto/runtime/graph.h"

namespace pto::test {

/// Span: the earliest start and latest end of one task's subtasks, in whatever unit the source uses.
struct TaskSpan {
    std::uint64_t first_start = ~0ull;
    std::uint64_t last_end = 0;
    std::uint32_t runs = 0;
};

/// check_execution: returns an empty string if the run is consistent with the graph, else the first
/// violation. `spans` is indexed like graph.tasks.
std::string check_ordering(const GraphRecord& graph, const std::vector<TaskSpan>& spans);

/// spans_from_subtasks: spans from the runtime's subtask records (their causal dispatch_seq / finish_seq
/// stamps), counting subtasks.
std::vector<TaskSpan> spans_from_subtasks(const GraphRecord& graph, std::span<const SubtaskRecord> records);
/// spans_from_timeline: spans from start_ns / end_ns, for simulated timelines (one exact virtual clock).
std::vector<TaskSpan> spans_from_timeline(const GraphRecord& graph, std::span<const SubtaskRecord> records);
/// spans_from_log: spans from an ExecutionLog's sequence numbers.
std::vector<TaskSpan> spans_from_log(const GraphRecord& graph, const std::vector<ExecutionEntry>& entries);

/// check_exactly_once: every kernel task's subtasks (block x lane) ran once each; returns the first problem.
std::string check_exactly_once_records(const GraphRecord& graph, std::span<const SubtaskRecord> records);
std::string check_exactly_once_log(const GraphRecord& graph, const std::vector<ExecutionEntry>& entries);

/// check_recorded_run: check_exactly_once_records, then check_ordering over the records' spans: the first
/// problem of a run recorded with record_graph and record_subtasks, or an empty string.
std::string check_recorded_run(const GraphRecord& graph, std::span<const SubtaskRecord> records);

}  // namespace pto::test
