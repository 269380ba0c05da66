// Simulator: the discrete-event core of the virtual-time model. One orchestrator and N scheduler threads
// as state machines on one EventQueue; the schedulers run the threaded schedulers' pass (scheduler_pass.h)
// one step per event, over a virtual-time back end. report.cpp turns its output into a SimReport.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dispatch_policy.h"
#include "event_queue.h"
#include "kernel_durations.h"
#include "kernel_names.h"
#include "pto/runtime/graph.h"
#include "pto/runtime/simulate.h"
#include "ready_source.h"
#include "scheduler_pass.h"
#include "sim_graph.h"

namespace pto::detail::sim {

/// SimOutput: what a simulation observed; report.cpp derives the rest.
struct SimOutput {
    std::vector<SubtaskRecord> timeline;
    std::vector<ReadyMark> ready;
    std::vector<std::int64_t> task_end_ns;  // per task: last subtask end (kernel) or completion (framework)
    std::vector<std::int64_t> submit_cost_ns;  // per task, the orchestrator's cost to submit it
    std::int64_t drain_ns = 0;
    std::int64_t orch_busy_ns = 0;
    std::int64_t orch_wait_ns = 0;
    std::int64_t orchestration_end_ns = 0;
    std::uint64_t window_waits = 0;
    std::int64_t task_wait_ns = 0;  // the orchestrator blocked in recorded waits (wait_for)
    std::uint64_t task_waits = 0;   // recorded waits that found their task unfinished
    std::vector<std::int64_t> sched_busy_ns;
    std::uint64_t scheduler_passes = 0;
    TraceExtras trace;  // tracks and slices; counters are added by the report
};

class Simulator {
  public:
    Simulator(const GraphRecord& graph, const SimGraph& sim_graph, const KernelDurations& durations,
              const SimConfig& config);
    SimOutput run();

  private:
    // ---- Per-task state ----
    struct TaskState {
        Shape shape = Shape::DependencyOnly;
        std::int32_t fanin = 0;  // producers not yet completed, counted at publication
        std::uint32_t refs = 0;  // retirement references: own completion + linked consumers
        std::uint32_t blocks_finished = 0;
        bool closed = false;  // completed; its fanout list was taken
        bool retired = false;
    };

    // ---- Cores (owned by one scheduler) ----
    /// CoreSlot: a subtask in a core's running or pending slot, with the times fixed when it was written.
    struct CoreSlot {
        std::uint32_t slot = kNoSlot;  // graph index of the task
        std::uint32_t block = 0;
        std::uint8_t lane = 0;
        std::int64_t dispatch_ns = 0;
        std::int64_t start_ns = 0;
        std::int64_t end_ns = 0;
        std::uint64_t dispatch_seq = 0;  // always 0: the model draws no causal stamps

        [[nodiscard]] bool is_empty() const { return slot == kNoSlot; }
    };
    struct SimCore {
        CoreSlot running;
        CoreSlot pending;  // starts when `running` ends (the core reads its next task itself)
        std::uint32_t global_index = 0;
    };
    struct SimCluster {
        std::uint32_t units = 3;
        SimCore unit[kMaxUnitsPerCluster];
        std::uint32_t mix_lanes_left = 0;
        bool mix_failed = false;  // the model's kernels never fail
    };

    // ---- Scheduler threads ----
    struct SchedState {
        std::uint32_t index = 0;
        std::vector<SimCluster> clusters;
        PassState<CoreSlot> pass;
        bool sleeping = true;
        std::uint64_t generation = 0;
        std::int64_t free_at_ns = 0;  // end of the current or last pass
        std::int64_t pass_start_ns = 0;
        std::int64_t dispatch_start_ns = 0;
        std::uint32_t handled = 0;  // tasks completed (kernel or dependency-only) in this pass
        std::int64_t busy_ns = 0;
    };

    void on_publish(std::uint32_t task, std::int64_t now);
    void on_release(std::uint32_t task, std::int64_t now);
    void on_scheduler_step(SchedState& s, std::int64_t now);

    void orchestrator_next(std::int64_t now);
    /// awaits_unfinished: the orchestrator must wait before its next submit (a recorded wait names a task
    /// not yet completed); starts the wait and returns true, or consumes the satisfied waits.
    bool awaits_unfinished(std::int64_t now);
    /// resume_after_wait: a task completed at `now`; ends the orchestrator's wait if that satisfies it.
    void resume_after_wait(std::int64_t now);
    void make_ready(std::uint32_t task, std::int64_t now);
    /// close_task: the task completed at `now`; releases are scheduled from `walk_start`, one fanout edge
    /// each. Returns the fanout walk's cost.
    std::int64_t close_task(std::uint32_t task, std::int64_t now, std::int64_t walk_start);
    void drop_reference(std::uint32_t task);
    void try_retire(std::int64_t now);

    /// PassBackend: the shared scheduler pass's hooks in virtual time (scheduler_pass.cpp).
    class PassBackend;
    /// end_pass: thread `s` ended a pass at `end`; it runs another at once if this one made progress.
    void end_pass(SchedState& s, std::int64_t end, bool progressed);
    void go_to_sleep(SchedState& s, std::int64_t now);
    void wake_sleepers(std::int64_t now);
    void step_at(SchedState& s, std::int64_t when);
    [[nodiscard]] std::int64_t lane_duration_ns(std::uint32_t task, std::uint32_t block,
                                                std::uint32_t lane) const;
    /// share_of: the k-th of `count` equal shares of `total` (integers that sum to total exactly).
    [[nodiscard]] static std::uint64_t share_of(std::uint64_t total, std::uint64_t k, std::uint64_t count);
    [[nodiscard]] std::string task_label(std::uint32_t task) const;

    const GraphRecord& graph_;
    const SimGraph& sim_graph_;
    const KernelDurations& durations_;
    const SimConfig& config_;
    const bool serial_;
    const std::uint64_t window_;

    // Costs in nanoseconds.
    std::int64_t submit_ns_, submit_edge_ns_, lookup_ns_, insert_ns_, dispatch_ns_, completion_ns_,
        fanout_edge_ns_, latency_ns_, pickup_ns_, poll_ns_;

    EventQueue events_;
    std::vector<TaskState> tasks_;
    std::vector<std::uint8_t> edge_linked_;  // parallel to GraphRecord::producers: counted a reference
    SimReadyQueues ready_;
    std::vector<SchedState> scheds_;

    // Orchestrator.
    std::uint32_t next_submit_ = 0;
    std::uint64_t kernel_count_ = 0;       // kernel tasks in the graph
    std::uint64_t kernels_submitted_ = 0;  // spreads the tensormap totals over kernel submits
    std::uint32_t published_count_ = 0;
    std::uint32_t retired_count_ = 0;
    bool orch_waiting_ = false;
    std::int64_t orch_wait_start_ = 0;
    bool dispatch_enabled_ = true;
    std::size_t next_wait_ = 0;   // first recorded wait not yet satisfied (SimGraph::wait_*)
    bool orch_awaiting_ = false;  // blocked in a recorded wait since task_wait_start_
    std::int64_t task_wait_start_ = 0;

    std::uint32_t closed_count_ = 0;
    KernelNames kernel_names_;
    SimOutput out_;
};

}  // namespace pto::detail::sim
