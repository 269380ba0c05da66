// Runtime: the task ring, the scheduler threads over the simulated cores, and the executors
// (docs/architecture.md). Its public face is what an embedder needs: construction, kernel registration and
// the reports and exports of a run. Runs are driven through pto::run and PTO2_SCOPE
// (pto/scope/orchestration.h); the task-level plumbing those build on is detail::TaskPort
// (pto/runtime/detail/task_port.h).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "pto/runtime/config.h"
#include "pto/runtime/error.h"
#include "pto/runtime/graph.h"
#include "pto/runtime/ids.h"
#include "pto/runtime/kernels.h"
#include "pto/runtime/stats.h"
#include "pto/runtime/task_desc.h"

namespace pto {

namespace detail {
class TaskPort;
}

/// Runtime: owns the scheduler threads and every preallocated pool. Construct once, register kernels, then
/// run any number of orchestrations (pto::run), one at a time; the report getters describe the last
/// finished run.
///
///     pto::Runtime rt(pto::RuntimeConfig::a2a3());
///     rt.register_kernel(pto::FuncId{0}, {"matmul", 26.0, &matmul_cpu});
///     pto::run(rt, [&] { PTO2_SCOPE(MANUAL) { ... } });   // see pto/scope/orchestration.h
class Runtime {
  public:
    /// Validates `config` (InvalidConfig), allocates every pool and starts the scheduler threads, which
    /// park until a run begins.
    explicit Runtime(RuntimeConfig config = {});
    /// Stops the scheduler threads. A run must not be in progress.
    ~Runtime();
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;

    [[nodiscard]] const RuntimeConfig& config() const;

    /// register_kernel: adds or replaces kernel `id`. Not during a run (RunInProgress).
    void register_kernel(FuncId id, KernelInfo info);
    /// find_kernel: the registered kernel or null.
    [[nodiscard]] const KernelInfo* find_kernel(FuncId id) const;
    /// kernel_name: the registered name, or "func <n>" for unregistered ids (for messages).
    [[nodiscard]] std::string kernel_name(FuncId id) const;

    /// in_run: whether a run is open on this runtime (on any thread).
    [[nodiscard]] bool in_run() const;

    // ---- Reports and export ------------------------------------------------------------------------------

    /// last_report: the report of the last finished run.
    [[nodiscard]] const RunReport& last_report() const;
    /// graph: the last run's graph (empty unless RuntimeConfig::record_graph).
    [[nodiscard]] const GraphRecord& graph() const;
    /// subtasks: the last run's subtask timestamps (empty unless RuntimeConfig::record_subtasks).
    [[nodiscard]] std::span<const SubtaskRecord> subtasks() const;
    /// aicpu_records: the last run's orchestrator and scheduler intervals (empty unless
    /// RuntimeConfig::record_subtasks): orchestrator first, in its order, then each scheduler's in its order.
    [[nodiscard]] std::span<const AicpuRecord> aicpu_records() const;

    struct Impl;

  private:
    // The run lifecycle, submission and retirement: plumbing for the scope and static_graph layers.
    friend class detail::TaskPort;

    std::unique_ptr<Impl> impl_;
};

}  // namespace pto
