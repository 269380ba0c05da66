// Plain counter structs a run reports: orchestrator phases, per-scheduler-thread loop figures, and the
// run totals. Each is written by one thread during the run and read after it ends.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pto/runtime/ids.h"

namespace pto {

/// OrchestratorStats: what the orchestrator thread did. Counters are always kept; the *_ns phase times only
/// when RuntimeConfig::profile_orchestrator is set (otherwise 0).
struct OrchestratorStats {
    std::uint64_t submits = 0;             ///< tasks of every kind
    std::uint64_t edges_linked = 0;        ///< consumer linked into a running or pending producer's fanout
    std::uint64_t edges_to_completed = 0;  ///< producer already completed: reference kept, no fanin
    std::uint64_t edges_to_retired = 0;    ///< producer already retired: edge skipped (docs/architecture.md)
    std::uint64_t edges_duplicate = 0;     ///< the same producer named twice for one consumer
    std::uint64_t link_flushes = 0;        ///< producers whose staged consumers were spliced (one CAS each)
    std::uint64_t window_waits = 0;        ///< submits that waited for a task slot
    std::uint64_t heap_waits = 0;          ///< submits that waited for heap bytes
    std::uint64_t edge_waits = 0;          ///< submits that waited for edge-pool nodes
    std::uint64_t argument_waits = 0;      ///< submits that waited for argument-ring bytes
    std::uint64_t tensormap_waits = 0;     ///< submits that waited for tensormap entries
    std::uint64_t tensormap_lookups = 0;   ///< views looked up in AUTO scopes
    std::uint64_t tensormap_inserts = 0;   ///< entries written in AUTO scopes
    std::uint64_t scopes_closed = 0;
    std::uint64_t waits = 0;                 ///< wait_for calls (data-dependent orchestration)
    std::uint64_t heap_bytes_allocated = 0;  ///< bytes of runtime-allocated tensors (create-infos, allocs)
    std::int64_t ring_alloc_ns = 0;          ///< slot, heap and edge-node reservation, including waits
    std::int64_t arg_copy_ns = 0;            ///< copying arguments into the slot
    std::int64_t dep_lookup_ns = 0;          ///< tensormap lookups
    std::int64_t insert_ns = 0;              ///< tensormap inserts
    std::int64_t fanin_ns = 0;               ///< linking into producers' fanout lists and publishing
    std::int64_t scope_end_ns = 0;           ///< dropping scope references
    std::int64_t wait_ns = 0;                ///< blocked in wait_for (always measured: waits are rare)
};

/// SchedulerStats: one scheduler thread's loop. complete/dispatch/idle times are measured only when
/// RuntimeConfig::profile_orchestrator is set.
struct SchedulerStats {
    std::uint32_t thread = 0;
    std::uint64_t loops = 0;       ///< passes of the scheduling loop
    std::uint64_t busy_loops = 0;  ///< passes that completed or dispatched something
    std::uint64_t subtasks_dispatched = 0;
    std::uint64_t subtasks_completed = 0;
    std::uint64_t tasks_completed = 0;  ///< tasks whose last subtask (or dependency-only task) ended here
    std::uint64_t parks = 0;            ///< times the thread slept for lack of work
    /// instant executor: idle passes after which the thread waited for the orchestrator to publish more
    /// (docs/architecture.md "Threads"); 0 in serial mode, where the orchestration has ended first
    std::uint64_t batch_waits = 0;
    /// 1 if this thread was still awake after the previous run (RuntimeConfig::scheduler_linger_us) when
    /// this run began, so the run did not have to wake it; 0 otherwise
    std::uint64_t awake_at_run_start = 0;
    /// passes the orchestrator thread ran in this thread's place while it slept, after the orchestration
    /// function returned (RuntimeConfig::orchestrator_schedules_at_end); included in `loops`
    std::uint64_t orchestrator_loops = 0;
    std::int64_t complete_ns = 0;
    std::int64_t dispatch_ns = 0;
    std::int64_t idle_ns = 0;

    [[nodiscard]] double tasks_per_busy_loop() const {
        return busy_loops == 0 ? 0.0 : static_cast<double>(tasks_completed) / static_cast<double>(busy_loops);
    }
};

/// TaskFailure: a task whose kernel failed, with the first failing subtask's message and how many of its
/// subtasks (blocks, MIX lanes) failed.
struct TaskFailure {
    TaskId task;
    std::string kernel;
    std::string message;
    std::uint32_t failed_subtasks = 1;
};

/// StallKind: why the watchdog saw no progress for RuntimeConfig::stall_timeout_ms (docs/reliability.md).
enum class StallKind : std::uint8_t {
    KernelTooLong,       ///< a subtask has been running longer than the timeout
    ReadyNotDispatched,  ///< ready tasks are queued, no core is busy, and no scheduler dispatches them
    DependencyDeadlock,  ///< unfinished tasks are neither ready nor running, or finished tasks do not retire
    OrchestratorStarvation,  ///< nothing is left to run and the orchestration function submits nothing
};

/// to_string: "kernel running too long", "ready but not dispatched", "dependency deadlock",
/// "orchestrator starvation".
[[nodiscard]] const char* to_string(StallKind kind);

/// StallReport: one stall the watchdog diagnosed. Starvation is only reported (the orchestration function
/// is user code, so the runtime cannot act on it); the other kinds abort the run once the orchestrator
/// waits on the stuck work (Error{Stall}).
struct StallReport {
    StallKind kind = StallKind::KernelTooLong;
    std::vector<TaskId> tasks;  ///< stuck task ids, oldest first (at most 16)
    std::string message;        ///< the class, the timeout, what was seen and the stuck ids
    std::int64_t at_ns = 0;     ///< when it was diagnosed, from the start of the run
    bool aborted_run = false;   ///< the runtime aborted the run because of it
};

/// HazardKind: how two accesses of overlapping views conflict.
enum class HazardKind : std::uint8_t {
    ReadAfterWrite,   ///< RAW: the later task reads what the earlier one wrote
    WriteAfterWrite,  ///< WAW: both write; the later write must land last
    WriteAfterRead,   ///< WAR: the later task overwrites what the earlier one reads
};
/// to_string: "RAW", "WAW" or "WAR".
[[nodiscard]] const char* to_string(HazardKind kind);

/// DependencyFinding: what the dependency checker (RuntimeConfig::check_dependencies) saw.
struct DependencyFinding {
    enum class Kind : std::uint8_t {
        MissingEdge,  ///< a hazard between two tasks that no declared dependency orders, even transitively
        UnexplainedEdge,  ///< information: a declared edge between kernel tasks that orders no hazard
    };
    Kind kind = Kind::MissingEdge;
    HazardKind hazard = HazardKind::ReadAfterWrite;  ///< MissingEdge only
    TaskId producer;                                 ///< the earlier task
    TaskId consumer;                                 ///< the later task
    std::string message;  ///< both tasks (id, kernel, scope or template node), both views, the hazard
};

/// RunReport: totals of one run. completed + failed + cancelled == submitted always holds after a run.
struct RunReport {
    std::uint64_t submitted = 0;        ///< tasks of every kind
    std::uint64_t kernel_tasks = 0;     ///< kernel launches
    std::uint64_t framework_tasks = 0;  ///< alloc and dependency-only tasks
    std::uint64_t subtasks = 0;         ///< sum of block_num over kernel launches
    std::uint64_t completed = 0;
    std::uint64_t failed = 0;
    std::uint64_t cancelled = 0;        ///< depended, directly or not, on a failed task; never ran
    std::int64_t orchestration_ns = 0;  ///< wall time of the orchestration function
    std::int64_t end_to_end_ns = 0;     ///< from run start until every task finished
    /// The std::chrono::steady_clock reading (ns since its epoch) the run's record timestamps count from,
    /// so a kernel that reads the same clock can be placed on the recorded timeline.
    std::int64_t start_steady_ns = 0;
    OrchestratorStats orchestrator;
    std::vector<SchedulerStats> schedulers;
    std::vector<TaskFailure>
        failures;  ///< first failed tasks, one entry each, in the order observed (at most 16)
    std::vector<StallReport> stalls;  ///< watchdog reports, in the order diagnosed (at most 16 kept)
    bool aborted = false;             ///< a stall aborted the run: what had not started was cancelled
    /// Dependency checker (RuntimeConfig::check_dependencies): hazards left unordered, and declared kernel
    /// edges that order no hazard. Filled in the report pto::run / Orchestrator::run returns; the first
    /// 256 findings are kept in `dependency_findings`.
    std::uint64_t missing_dependencies = 0;
    std::uint64_t unexplained_edges = 0;
    std::vector<DependencyFinding> dependency_findings;

    /// ok: no task failed or was cancelled, no stall aborted the run, and the checker (when on) found no
    /// missing dependency.
    [[nodiscard]] bool ok() const {
        return failed == 0 && cancelled == 0 && !aborted && missing_dependencies == 0;
    }
};

}  // namespace pto
