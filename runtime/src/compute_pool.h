// ComputePool: the oneTBB worker pool the compute executor runs kernels on, so simulated cores cost no
// thread each and a busy core is simply a kernel still running on some worker.
#pragma once

#include <cstdint>
#include <memory>

#include "core_table.h"
#include "engine.h"

namespace pto::detail {

/// ComputeJob: what a worker needs to run one subtask and report back to the core that holds it.
struct ComputeJob {
    Engine* engine;
    CoreState* core;
    std::uint32_t slot;
    std::uint32_t block;
    std::uint32_t lane;
    std::uint32_t scheduler;
    std::int64_t delay_ns;  // jitter: busy time before the kernel starts (RuntimeConfig::timed_jitter)
    bool stamp_start;       // recording: stamp CoreState::body_start_ns when the kernel body begins
};

class ComputePool {
  public:
    /// threads: worker count; 0 = one per host core.
    explicit ComputePool(std::uint32_t threads);
    ~ComputePool();
    ComputePool(const ComputePool&) = delete;
    ComputePool& operator=(const ComputePool&) = delete;

    /// submit: runs the job's kernel on a worker; the worker sets job.core->done (release) when it
    /// returns and wakes the owning scheduler. Exceptions become a failed status with their message.
    void submit(const ComputeJob& job);
    /// wait_idle: blocks until every submitted job has returned (used at shutdown).
    void wait_idle();

  private:
    struct Arena;
    std::unique_ptr<Arena> arena_;
};

}  // namespace pto::detail
