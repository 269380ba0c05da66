// What a run can record: the graph the orchestrator built (tasks, logical edges, submission order) and a
// timestamp quadruple per subtask. Exporters, the virtual-time model, the peers and the tests read these.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pto/runtime/ids.h"
#include "pto/runtime/task_desc.h"

namespace pto {

/// RecordedTask: one submitted task, in submission order.
struct RecordedTask {
    TaskId id;
    TaskKind kind = TaskKind::Kernel;
    CoreType core = CoreType::None;
    FuncId funcs[3] = {};
    std::uint32_t block_num = 1;
    /// This task's producers are producers[first_producer, first_producer + producer_count).
    std::uint32_t first_producer = 0;
    std::uint32_t producer_count = 0;
};

/// KernelSummary: the kernel table entry a record refers to (name and mean duration for reports and the
/// virtual-time model).
struct KernelSummary {
    FuncId id;
    std::string name;
    double duration_us = 0.0;
};

/// RecordedRange: tasks [first, first + count) of one scope or one static-template instance.
struct RecordedRange {
    TaskId first;
    std::uint32_t count = 0;
};

/// RecordedWait: the orchestrator waited (Runtime::wait_for) until task `awaited` had completed before it
/// submitted task `before` (or, if `before` is past the last task, before the orchestration ended). One
/// record per awaited task, in the order of the waits.
struct RecordedWait {
    TaskId before;
    TaskId awaited;
};

/// GraphRecord: the logical graph of one run. Edges are every distinct producer a task named or discovered,
/// including producers that had already completed or retired when it was submitted (the runtime skips
/// those at run time, but they are part of the graph the orchestration function described).
struct GraphRecord {
    std::vector<RecordedTask> tasks;
    std::vector<TaskId> producers;
    std::vector<KernelSummary> kernels;
    /// One range per scope that ended with tasks in it, in the order the scopes ended (inner scopes before
    /// the scopes around them, so ranges nest), and one per static-template instance.
    std::vector<RecordedRange> scopes;
    std::vector<RecordedRange> instances;
    /// The orchestrator's waits (data-dependent orchestration), which the virtual-time model honours.
    std::vector<RecordedWait> waits;

    [[nodiscard]] std::span<const TaskId> producers_of(const RecordedTask& t) const {
        return {producers.data() + t.first_producer, t.producer_count};
    }
    /// kernel: the summary for `f`, or null if f was not registered.
    [[nodiscard]] const KernelSummary* kernel(FuncId f) const;
    /// index_of: position of task `id` in `tasks` (ids of one run are contiguous), or -1.
    [[nodiscard]] std::int64_t index_of(TaskId id) const;
    void clear();
};

/// GraphCounts: a recorded graph in the terms pto-bench and the reference graphs report (docs/bench.md).
/// Kernel edges join two kernel launches of the record; framework edges involve an alloc or dependency-only
/// task, or a producer outside the record (a task of an earlier run).
struct GraphCounts {
    std::uint64_t kernel_tasks = 0;
    std::uint64_t framework_tasks = 0;
    std::uint64_t subtasks = 0;  ///< blocks of the kernel launches
    std::uint64_t kernel_edges = 0;
    std::uint64_t framework_edges = 0;
    friend bool operator==(const GraphCounts&, const GraphCounts&) = default;
};

/// count_graph: the counts of `graph` (RuntimeConfig::record_graph).
[[nodiscard]] GraphCounts count_graph(const GraphRecord& graph);

/// SubtaskRecord: one block (or one MIX lane) on one core. Times are steady-clock nanoseconds since the run
/// started: dispatch (placed in a running or pending slot), handoff (the core took it up: the scheduler
/// handed it to the executor), start (the kernel body began: on the compute executor a worker thread
/// picked the job up, which can be much later than the handoff; on the other executors start == handoff),
/// end (the executor reported completion), finish (the scheduler processed the completion).
struct SubtaskRecord {
    TaskId task;
    FuncId func;
    std::uint32_t block_idx = 0;
    std::uint32_t core = 0;  ///< global core index: AIC cores first, then AIV cores
    std::uint8_t lane = 0;
    std::uint8_t scheduler = 0;
    CoreType core_type = CoreType::AIC;
    std::int64_t dispatch_ns = 0;
    std::int64_t handoff_ns = 0;
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
    std::int64_t finish_ns = 0;
    /// Causal stamps from one run-wide counter: drawn when the block was placed on a core and when its
    /// completion was handled. A consumer's dispatch_seq exceeds every finish_seq of its producers' blocks
    /// even when the clocks of two host cores disagree by a few nanoseconds, which timestamps cannot
    /// promise.
    std::uint64_t dispatch_seq = 0;
    std::uint64_t finish_seq = 0;
};

/// AicpuActivity: what an AICPU thread was doing during an AicpuRecord.
enum class AicpuActivity : std::uint8_t {
    Submit,          ///< orchestrator: one submit (task = its id)
    SubmitInstance,  ///< orchestrator: one static-template instance (task = its first id, count = tasks)
    WindowWait,      ///< orchestrator: waiting for a task slot (window_tasks)
    EdgeWait,        ///< orchestrator: waiting for edge-pool nodes (edge_capacity)
    ArgumentWait,    ///< orchestrator: waiting for argument-ring bytes (argument_bytes)
    HeapWait,        ///< orchestrator: waiting for heap bytes (heap_bytes)
    Complete,        ///< scheduler: handling finished subtasks (count = subtasks finished)
    Dispatch,        ///< scheduler: completing framework tasks and placing ready blocks (count = placed)
    TaskWait,        ///< orchestrator: wait_for (task = the first awaited task, count = tasks awaited)
};

/// to_string: "submit", "instance", "window wait", "edge wait", "argument wait", "heap wait", "complete",
/// "dispatch", "task wait" (the slice names of the model's trace where they mean the same).
[[nodiscard]] const char* to_string(AicpuActivity a);

/// AicpuRecord: one interval of an AICPU thread of a real run (RuntimeConfig::record_subtasks): thread 0
/// is the orchestrator, thread 1 + k scheduler k. Times as in SubtaskRecord. Scheduler passes that did
/// nothing are not recorded.
struct AicpuRecord {
    std::uint32_t thread = 0;
    AicpuActivity what = AicpuActivity::Submit;
    std::uint32_t count = 0;
    TaskId task;
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
};

}  // namespace pto
