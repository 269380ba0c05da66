// RunRecorder: what a run records for export and the virtual-time model, when asked to: the graph (tasks,
// producers, instances, scopes, waits, kernels; RuntimeConfig::record_graph) and the timelines (subtask
// records and AICPU intervals; record_subtasks). Orchestrator thread; the scheduler threads' records are
// appended once the run drained. The checks whether to record are inline, so a run that records nothing
// pays one predictable branch per submit.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "pto/runtime/graph.h"
#include "pto/runtime/kernels.h"
#include "pto/runtime/stats.h"
#include "pto/runtime/task_desc.h"

namespace pto::detail {

class RunRecorder {
  public:
    RunRecorder(bool record_graph, bool record_subtasks)
        : graph_on_(record_graph), timelines_on_(record_subtasks) {}

    /// start_run: forgets the previous run's records.
    void start_run();

    // ---- The graph (only with record_graph)

    void task(const TaskSpec& spec, TaskId id, std::span<const TaskId> producers) {
        if (graph_on_) record_task(spec, id, producers);
    }
    /// instance_node: node `n` of an instance, submitted as task `id` (internal producers as ids).
    void instance_node(const InstanceNode& n, TaskId id) {
        if (graph_on_) record_instance_node(n, id);
    }
    void instance(TaskId first, std::uint32_t count) {
        if (graph_on_) graph_.instances.push_back(RecordedRange{first, count});
    }
    void scope(TaskId begin, TaskId end) {
        if (graph_on_ && end.value > begin.value)
            graph_.scopes.push_back(
                RecordedRange{begin, static_cast<std::uint32_t>(end.value - begin.value)});
    }
    /// wait: the orchestration function waited for `awaited` before submitting task `next`.
    void wait(TaskId next, TaskId awaited) {
        if (graph_on_) graph_.waits.push_back(RecordedWait{next, awaited});
    }
    /// kernels: the registered kernels, at the end of a run.
    void kernels(const std::vector<KernelInfo>& table);

    // ---- The timelines (only with record_subtasks)

    /// aicpu_sink: where the orchestrator's intervals go, or null when not recording.
    [[nodiscard]] std::vector<AicpuRecord>* aicpu_sink() { return timelines_on_ ? &aicpu_ : nullptr; }
    /// append: a scheduler thread's records, once the run drained.
    void append(std::span<const SubtaskRecord> subtasks, std::span<const AicpuRecord> aicpu);
    /// finish_timelines: subtask records in dispatch order.
    void finish_timelines();

    [[nodiscard]] const GraphRecord& graph() const { return graph_; }
    [[nodiscard]] std::span<const SubtaskRecord> subtasks() const { return subtasks_; }
    [[nodiscard]] std::span<const AicpuRecord> aicpu() const { return aicpu_; }

  private:
    void record_task(const TaskSpec& spec, TaskId id, std::span<const TaskId> producers);
    void record_instance_node(const InstanceNode& n, TaskId id);

    const bool graph_on_;
    const bool timelines_on_;
    GraphRecord graph_;
    std::vector<TaskId> producer_scratch_;  // one task's producers, sorted and unique
    std::vector<TaskId> instance_scratch_;  // one instance node's producers as ids
    std::vector<SubtaskRecord> subtasks_;
    std::vector<AicpuRecord> aicpu_;  // the orchestrator's while running, then the schedulers' appended
};

}  // namespace pto::detail
