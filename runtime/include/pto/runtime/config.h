// RuntimeConfig: the simulated chip (clusters, cores, scheduler threads), every capacity the runtime
// preallocates at construction, and the executor. Defaults model the a2a3 chip
// (docs/design/machine-model.md); a5 is a preset.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pto {

/// Executor: what a simulated core does with a subtask (docs/architecture.md).
enum class Executor : std::uint8_t {
    Instant,  ///< completes at dispatch: pure scheduling throughput ("Fake Return")
    Timed,    ///< completes once the kernel's duration x timed_scale has passed on the wall clock
    Compute,  ///< runs the registered C++ kernel on a oneTBB worker pool; the core is busy until it returns
};

/// to_string: "instant", "timed" or "compute" (the names pto-bench and the example programs accept).
[[nodiscard]] std::string_view to_string(Executor e);
/// parse_executor: the executor named by to_string's text, or nullopt.
[[nodiscard]] std::optional<Executor> parse_executor(std::string_view name);

/// OrchestrationMode: whether scheduling overlaps orchestration (docs/architecture.md "serial mode").
enum class OrchestrationMode : std::uint8_t {
    Concurrent,  ///< schedulers dispatch while the orchestrator submits (the default, the device's mode)
    Serial,      ///< schedulers start once the orchestration function returns; the window must hold the graph
};

/// DependencyCheck: what the dependency checker does with a hazard the declared dependencies leave
/// unordered (RuntimeConfig::check_dependencies; docs/graphs.md, "Checking a graph").
enum class DependencyCheck : std::uint8_t {
    Off,     ///< no checking; the submit path does not pay for it
    Report,  ///< each finding is logged as a warning and listed in the run's report
    Error,   ///< the offending submit throws Error{MissingDependency}; other findings are reported
};

/// to_string: "off", "report" or "error" (the values PTO_CHECK_DEPS accepts, besides 0 and 1).
[[nodiscard]] std::string_view to_string(DependencyCheck c);
/// parse_dependency_check: "off"/"0", "report"/"1", "error", or nullopt.
[[nodiscard]] std::optional<DependencyCheck> parse_dependency_check(std::string_view text);

/// RuntimeConfig: plain data with documented defaults; Runtime's constructor calls validate().
/// Every pool is sized here and allocated once, so nothing on the per-task path allocates; when a pool
/// fills, the orchestrator waits for tasks to retire (back-pressure), and reports CapacityDeadlock naming
/// the knob below when waiting cannot help.
struct RuntimeConfig {
    // ---- Machine model ----------------------------------------------------------------------------------
    /// Clusters of cores. Default 24 (a2a3). Range 1..4096.
    std::uint32_t cluster_count = 24;
    /// AIC (cube) cores per cluster. Default 1. Must be 1 (a MIX subtask uses the cluster's AIC as lane 0).
    std::uint32_t aic_per_cluster = 1;
    /// AIV (vector) cores per cluster. Default 2 (lanes 1 and 2 of a MIX subtask). Range 1..2.
    std::uint32_t aiv_per_cluster = 2;
    /// Scheduler threads; cluster c belongs to thread c mod scheduler_threads, never split. Default 3.
    /// Range 1..cluster_count. More threads than host cores is allowed (they park when idle).
    std::uint32_t scheduler_threads = 3;
    /// Concurrent mode: how long a scheduler thread awake at the end of a run keeps spinning for the next
    /// one before it parks, in microseconds. Runs that follow each other closely (a decode loop, repeated
    /// measurements) then start without waking a thread, which costs tens of microseconds on a virtual
    /// machine. At most one thread per CPU but the orchestrator's lingers. Default 100; 0 parks at once;
    /// range 0..10^7. Ignored in serial mode and when the process may use only one CPU (the spin would
    /// hold back the orchestrator).
    std::uint32_t scheduler_linger_us = 100;
    /// Concurrent mode, instant executor, two or more CPUs: when the orchestration function has returned
    /// with most of the run still to do and the awake schedulers idle, the orchestrator thread schedules
    /// the rest itself in the place of a sleeping scheduler thread (its clusters, its statistics), where
    /// the tasks it just submitted are in cache, while the awake schedulers stand aside. The sleeping
    /// thread stays asleep. Default true; ignored in serial mode (whose scheduling is measured on its own)
    /// and with the timed and compute executors (their schedulers wait on kernels, not on dispatch work).
    bool orchestrator_schedules_at_end = true;

    // ---- Capacities -------------------------------------------------------------------------------------
    /// Task window: tasks submitted but not yet retired. Power of two, 8..2^24. Default 4096.
    /// Larger windows let the orchestrator run further ahead (and serial mode needs the whole graph), at
    /// 64 B of slot state plus the argument ring's default 512 B per slot; smaller windows apply
    /// back-pressure sooner.
    std::uint32_t window_tasks = 4096;
    /// Heap ring for runtime-allocated tensors (create-infos, alloc_tensors). Default 64 MiB. Pages are
    /// touched only as buffers are used. A scope whose live buffers exceed it deadlocks (CapacityDeadlock).
    std::uint64_t heap_bytes = 64ull << 20;
    /// Edge pool: producer->consumer links of tasks in the window (12 bytes each). Power of two,
    /// 64..2^26. Default 2^17. Dense graphs (Qwen3 non-spmd has ~18 edges per launch) need more.
    std::uint32_t edge_capacity = 1u << 17;
    /// Argument ring: each task's tensors (96 bytes each) and scalars (8 bytes each) are copied here,
    /// packed, until it retires. 0 (the default) means window_tasks x 512 bytes. At least 8192 otherwise.
    /// Tasks with many tensor arguments need more; when it is full the orchestrator waits for retirement.
    std::uint64_t argument_bytes = 0;
    /// Tensormap entries (one per live tracked write or read of a view). Default 2^16, power of two.
    /// Used by AUTO scopes only. Entries of retired tasks are reclaimed lazily.
    std::uint32_t tensormap_entries = 1u << 16;

    // ---- Execution --------------------------------------------------------------------------------------
    Executor executor = Executor::Instant;
    OrchestrationMode orchestration = OrchestrationMode::Concurrent;
    /// Upper limit of timed_scale: with kernel durations of at most kMaxKernelDurationUs (kernels.h), a
    /// scaled duration in nanoseconds stays far inside 64 bits.
    static constexpr double kMaxTimedScale = 1e6;
    /// Timed executor: wall time = kernel duration_us x timed_scale. Default 1.0; in (0, kMaxTimedScale].
    double timed_scale = 1.0;
    /// Timed executor: each subtask's duration is multiplied by a uniform factor in [1-j, 1+j]. Compute
    /// executor: each kernel starts after a random delay of up to j x duration x timed_scale, to shake the
    /// order in which independent kernels run (tests use it to expose missing edges). Default 0. Range 0..1.
    double timed_jitter = 0.0;
    /// Seed for jitter and any other randomness of a run; runs with equal seeds draw equal sequences.
    std::uint64_t seed = 1;
    /// Compute executor worker threads; 0 = one per host core. Default 0.
    std::uint32_t compute_threads = 0;
    /// Compute executor: each kernel starts after a random delay drawn uniformly from 0..this many
    /// microseconds, whatever the kernel's registered device time. CPU kernels take far longer than their
    /// device times, so this is the knob that reorders independent kernels enough to expose a missing
    /// edge (with check_dependencies and a golden check). Default 0; range 0..10^6. Added to timed_jitter's
    /// delay when both are set.
    double compute_start_jitter_us = 0.0;

    // ---- Checking ---------------------------------------------------------------------------------------
    /// Dependency checker: in MANUAL scopes and template instances, discover in shadow the hazards the
    /// tasks' tensor views imply and report each one the declared dependencies leave unordered. Default
    /// Off; the environment variable PTO_CHECK_DEPS (0, 1, off, report, error) overrides it for every run,
    /// so an unmodified program can be checked. Costs a shadow tensormap lookup and insert per tracked
    /// argument plus a reachability search per hazard (docs/graphs.md); nothing when Off.
    DependencyCheck check_dependencies = DependencyCheck::Off;

    // ---- Observability ----------------------------------------------------------------------------------
    /// Record the submitted graph (tasks, edges, order) for export and for the virtual-time model.
    bool record_graph = false;
    /// Record per-subtask timestamps (dispatch, start, end, finish) for Perfetto export.
    bool record_subtasks = false;
    /// Time each orchestrator phase per submit (adds two clock reads per phase); counters are always kept.
    bool profile_orchestrator = false;
    /// Watchdog: report a stall after this long without progress. Default 10000 ms; 0 disables.
    std::uint32_t stall_timeout_ms = 10000;

    /// a2a3: 24 clusters x (1 AIC + 2 AIV), 3 schedulers (the defaults above).
    static RuntimeConfig a2a3() { return RuntimeConfig{}; }
    /// a5: 32 clusters x (1 AIC + 2 AIV), 4 schedulers.
    static RuntimeConfig a5() {
        RuntimeConfig c;
        c.cluster_count = 32;
        c.scheduler_threads = 4;
        return c;
    }

    [[nodiscard]] std::uint32_t aic_count() const { return cluster_count * aic_per_cluster; }
    [[nodiscard]] std::uint32_t aiv_count() const { return cluster_count * aiv_per_cluster; }
    /// argument_ring_bytes: argument_bytes, or its default when 0.
    [[nodiscard]] std::uint64_t argument_ring_bytes() const {
        return argument_bytes != 0 ? argument_bytes : std::uint64_t{window_tasks} * 512;
    }

    /// validate: throws Error{InvalidConfig} naming the first knob out of range.
    void validate() const;
};

}  // namespace pto
