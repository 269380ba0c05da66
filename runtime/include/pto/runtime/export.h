// Writers for what a run records (docs/architecture.md observability): the subtask timeline as Perfetto /
// Chrome-trace JSON, the task graph as JSON and DOT, and per-kernel timing statistics. They read GraphRecord
// and SubtaskRecord (graph.h), from a real run or from the virtual-time model (simulate.h). All cold code.
#pragma once

#include <cstdint>
#include <cstddef>
#include <iosfwd>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "pto/runtime/config.h"
#include "pto/runtime/graph.h"
#include "pto/runtime/ids.h"

namespace pto {

// ---- Perfetto / Chrome trace ----------------------------------------------------------------------------

/// TraceSlice: one interval on an extra (non-AICore) track, e.g. an orchestrator submit or a scheduler pass.
struct TraceSlice {
    std::uint32_t track = 0;  ///< index into TraceExtras::tracks
    std::string name;
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
    TaskId task;  ///< the task the slice works on, if any (exported as args.task)
};

/// CounterSample / CounterSeries: a step function, value holding from time_ns until the next sample.
struct CounterSample {
    std::int64_t time_ns = 0;
    double value = 0.0;
};
struct CounterSeries {
    std::string name;
    std::vector<CounterSample> samples;
};

/// TraceExtras: the tracks a trace carries beyond the AICore lanes: AICPU threads (orchestrator,
/// schedulers) as named tracks of slices, and counters (the virtual-time model's overhead indicators).
struct TraceExtras {
    std::vector<std::string> tracks;  ///< track names, e.g. "orchestrator", "scheduler 0"
    std::vector<TraceSlice> slices;
    std::vector<CounterSeries> counters;
    /// One flow arrow per graph edge between two tasks that have subtask records (kernel launches), from
    /// the producer's last-ending subtask to the consumer's first-starting one, when the graph has at most
    /// kMaxTraceArrows such edges (a note says so when there are more). Edges to or from alloc and
    /// dependency-only tasks have no slice to attach to and are not drawn.
    bool dependency_arrows = false;
    /// Per kernel, a counter "running <kernel>": its subtasks running at each moment.
    bool kernel_counters = false;
    /// Key / value pairs written as the trace's "otherData" object (shown by Perfetto's trace info).
    std::vector<std::pair<std::string, std::string>> notes;
};

/// kMaxTraceArrows: the largest edge count drawn as flow arrows (each costs two events; beyond this the
/// viewers slow to a crawl and arrows are no longer legible).
inline constexpr std::size_t kMaxTraceArrows = 50000;

/// run_trace_extras: the AICPU lanes of a real run in the model's layout (track 0 "orchestrator" with
/// one slice per submit named after its kernel, and "window wait" / "edge wait" / ... slices; track 1 + k
/// "scheduler k" with "complete" and "dispatch" slices), dependency arrows and kernel counters on, and
/// notes naming the executor. With the instant executor the notes say that kernel slices last 0 us and
/// suggest the timed or compute executor (instant_executor_warning()).
[[nodiscard]] TraceExtras run_trace_extras(const GraphRecord& graph, std::span<const AicpuRecord> aicpu,
                                           const RuntimeConfig& config);
/// instant_executor_warning: the sentence a trace of the instant executor carries.
[[nodiscard]] const char* instant_executor_warning();

/// write_perfetto_trace: writes `records` as a Chrome Trace Event Format JSON object that ui.perfetto.dev
/// and chrome://tracing open as-is: {"traceEvents": [...], "displayTimeUnit": "ns"}.
///   - process 1 "AICore AIC" and process 2 "AICore AIV": one thread (track) per core of `machine`, named
///     "AIC <i> (cluster c, sched s)"; each subtask lane is a complete event ("ph":"X") named after its
///     kernel (graph.kernels, else "func <id>"), category AIC / AIV / MIX, args task, block, lane, scheduler,
///     dispatch_us and finish_us;
///   - process 3 "AICPU": one track per extras.tracks entry, one "X" event per slice;
///   - process 4 "Overhead": one counter ("ph":"C") per extras.counters series, one event per sample.
///   - process 5 "Kernels": with extras.kernel_counters, one counter "running <kernel>" per kernel;
///   - flow events ("ph":"s" / "f", category "dependency", one id per edge) with extras.dependency_arrows;
///   - "otherData": extras.notes.
/// Timestamps ("ts", "dur") are microseconds with nanosecond precision (three decimals), relative to the
/// run start. Records whose core index is outside `machine` throw Error{InvalidArgument}.
void write_perfetto_trace(std::ostream& out, const GraphRecord& graph, std::span<const SubtaskRecord> records,
                          const RuntimeConfig& machine);
void write_perfetto_trace(std::ostream& out, const GraphRecord& graph, std::span<const SubtaskRecord> records,
                          const RuntimeConfig& machine, const TraceExtras& extras);

// ---- Task graph ---------------------------------------------------------------------------------------

/// write_graph_json: {"schema": "pto-graph/1", "kernels": [{"id", "name", "duration_us"}],
/// "tasks": [{"id", "kind": "kernel"|"dependency-only"|"alloc", "core": "AIC"|"AIV"|"MIX"|"none",
/// "kernels": [names, three for MIX], "block_num", "producers": [ids]}]}, one task per line.
void write_graph_json(std::ostream& out, const GraphRecord& graph);

/// write_graph_dot: a graphviz digraph (`dot -Tsvg`): one node per task, "t<id>", labelled
/// "<kernel>\n#<id> x<block_num>", filled by core type (AIC light blue, AIV light green, MIX orange);
/// framework tasks are grey dashed ellipses labelled "alloc" / "dep-only". One edge "t<p> -> t<c>" per
/// recorded producer. Tasks sit in nested clusters ("subgraph cluster_<n>"): one per scope that ended
/// (dashed, labelled "scope #first-#last") and one per static-template instance (filled, "template
/// instance #first-#last"), from GraphRecord::scopes and ::instances.
void write_graph_dot(std::ostream& out, const GraphRecord& graph);

/// write_graph_dot_summary: the kernel-level graph: one node "k<n>" per kernel and core type (MIX: its
/// three lane kernels), labelled with its task and block counts, plus one per framework kind ("alloc",
/// "dep-only"); one edge per pair of nodes that has task edges, labelled and weighted by their count, pen
/// width growing with it. Edges to tasks outside the record are counted in the graph label only.
void write_graph_dot_summary(std::ostream& out, const GraphRecord& graph);

// ---- Timing statistics --------------------------------------------------------------------------------

/// TimingStats: durations of one group of subtask instances, in microseconds. An instance is one subtask
/// (end_ns - start_ns) for AIC and AIV tasks; for MIX tasks it is one block, lasting as long as the longest
/// of its lanes (the seed's convention). Percentiles use the nearest-index rule: with the n durations sorted
/// ascending, P(p) = sorted[round(p * (n - 1))], rounding halves to even (numpy's method="nearest"); it
/// always returns an observed duration and is consistent with the seed's tables (e.g. 6 samples:
/// median = 3rd, P90 = 5th, P99 = 6th value).
struct TimingStats {
    std::string label;               ///< kernel name, or "AIC" / "AIV" / "MIX" / "all" for core-type rows
    FuncId func;                     ///< the kernel (MIX: the AIC lane's kernel); none for core-type rows
    CoreType core = CoreType::None;  ///< None only for the "all" row
    std::uint64_t instances = 0;
    double total_us = 0.0;
    double mean_us = 0.0;
    double min_us = 0.0;
    double max_us = 0.0;
    double median_us = 0.0;
    double p90_us = 0.0;
    double p99_us = 0.0;
};

/// timing_by_kernel: one row per (kernel, core type), ordered by FuncId then core type. Names come from
/// graph.kernels ("func <id>" when missing). Works on real and simulated records alike.
[[nodiscard]] std::vector<TimingStats> timing_by_kernel(const GraphRecord& graph,
                                                        std::span<const SubtaskRecord> records);
/// timing_by_core_type: rows "AIC", "AIV", "MIX" (each present only if it has instances), then "all".
[[nodiscard]] std::vector<TimingStats> timing_by_core_type(std::span<const SubtaskRecord> records);
/// summarize_durations: the row for arbitrary durations (microseconds, any order); label/func/core unset.
[[nodiscard]] TimingStats summarize_durations(std::vector<double> durations_us);
/// write_timing_table: a fixed-width text table of `rows` (kernel, core, instances, total, mean, min, max,
/// median, P90, P99).
void write_timing_table(std::ostream& out, std::span<const TimingStats> rows);

}  // namespace pto
