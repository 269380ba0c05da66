// Runtime::Impl: the orchestrator-side state (id window, retirement, heap ring, bookkeeping per slot,
// recorder) around the shared Engine, the scheduler threads and the watchdog.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compute_pool.h"
#include "engine.h"
#include "heap_ring.h"
#include "pto/runtime/runtime.h"
#include "scheduler.h"
#include "watchdog.h"

namespace pto {

namespace detail {

/// SlotBook: orchestrator-private bookkeeping of one slot (never read by other threads).
struct SlotBook {
    std::uint64_t edge_end;       // edge counter after this task's nodes: freed when it retires
    std::uint64_t heap_end;       // heap mark after this task's buffers: freed when it retires
    std::uint64_t args_end;       // argument-ring mark after this task's record: freed when it retires
    std::uint64_t last_consumer;  // id of the newest consumer linked to it, to merge duplicate producers
    bool scope_held;              // an open scope still holds this task's scope reference
};

}  // namespace detail

struct Runtime::Impl {
    explicit Impl(const RuntimeConfig& config);
    ~Impl();

    // ---- orchestrator-side operations (runtime.cpp, submit.cpp) ----
    void begin_run();
    void end_orchestration();
    RunReport end_run();
    TaskId submit(const TaskSpec& spec, std::span<const TaskId> producers, bool scoped);
    TaskId submit_instance(std::span<InstanceNode> nodes, bool scoped);
    TaskId try_retire();
    void wait_for_retirement(std::string_view knob);
    void release_scope(TaskId begin, TaskId end);

    // submit.cpp helpers
    void check_run_open(const char* call) const;
    void validate_spec(const TaskSpec& spec, TaskId id) const;
    void validate_producers(std::span<const TaskId> producers, TaskId id, const TaskSpec& spec) const;
    void check_heap_need(std::uint64_t reserve_bytes, TaskId id, const TaskSpec* spec) const;
    void reserve(std::uint64_t slots, std::uint64_t edge_nodes, std::uint64_t heap_bytes, std::uint64_t arg_bytes);
    std::uint32_t init_slot(const TaskSpec& spec, TaskId id, bool scoped);
    std::uint32_t select_producers(TaskId id, std::span<const TaskId> producers);
    std::uint32_t link_candidates(std::uint32_t slot, const std::uint32_t* producers, std::uint32_t count,
                                  bool& cancelled);
    void settle(std::uint32_t slot, std::uint32_t expected, std::uint32_t closed, bool cancelled);
    void count_submit(const TaskSpec& spec);
    void record_task(const TaskSpec& spec, TaskId id, std::span<const TaskId> producers);
    void finish_orchestrator_completions();
    [[noreturn]] void throw_deadlock(std::string_view knob) const;
    std::string describe_task(TaskId id, const TaskSpec* spec = nullptr) const;
    std::uint64_t knob_value(std::string_view knob) const;

    const RuntimeConfig config;
    detail::Engine engine;
    detail::RunSettings settings;
    std::unique_ptr<detail::ComputePool> compute;
    std::vector<std::unique_ptr<detail::Scheduler>> schedulers;

    // Orchestrator-private state.
    std::unique_ptr<detail::SlotBook[]> books;
    detail::HeapRing heap;
    std::uint64_t next_id = 0;
    std::uint64_t run_first_id = 0;
    std::uint64_t retired_before = 0;
    bool in_run = false;
    bool orchestration_ended = false;
    bool poisoned = false;  // a stalled kernel never returned: the runtime cannot start another run
    std::int64_t run_start_ns = 0;
    std::int64_t orchestration_ns = 0;
    detail::CompletionContext orchestrator_ctx;
    std::uint64_t orchestrator_finished_published = 0;  // of orchestrator_ctx.counters, in finished_tasks
    OrchestratorStats stats;
    std::uint64_t kernel_tasks = 0;
    std::uint64_t framework_tasks = 0;
    std::uint64_t subtasks = 0;
    GraphRecord graph;
    std::vector<TaskId> record_scratch;
    std::vector<TaskId> instance_scratch;
    std::vector<std::uint32_t> candidates;      // producer slots selected for linking (scratch)
    std::vector<std::uint32_t> instance_marks;  // per instance node: how many candidates are its own
    std::vector<SubtaskRecord> subtask_records;
    RunReport last_report;

    // Shared with the watchdog.
    std::atomic<std::uint64_t> submits_published{0};  // orchestrator stores (relaxed) after each submit
    std::atomic<bool> orchestrator_waiting{false};    // the orchestrator is parked inside the runtime
    std::atomic<std::uint64_t> retired_published{0};  // retired_before, stored (relaxed) by try_retire
    std::unique_ptr<detail::Watchdog> watchdog;
};

}  // namespace pto
