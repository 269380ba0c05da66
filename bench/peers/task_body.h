// The empty task body both peers run, the same for every task: a volatile increment of the task's checksum
// slot, plus the probe calls when a test observes the run. Inline so each peer's node body holds it whole.
#pragma once

#include <cstdint>

#include "peer.h"

namespace pto::bench::detail {

/// BodyContext: shared by every body of one repetition. The calling thread sets `probe` between executions
/// (before try_put / task creation); the peer's task spawning orders that write before the bodies read it.
struct BodyContext {
    /// One slot per task. Volatile so the compiler keeps a store in every body: without a side effect an
    /// OpenMP task body may be optimised to nothing. A per-task slot (not a shared atomic counter) keeps the
    /// side effect from adding a contended cache line that our own instant executor does not pay; each slot
    /// has one writer at a time because each task runs once per execution.
    volatile std::uint32_t* hits = nullptr;
    PeerProbe* probe = nullptr;
};

inline void run_task_body(const BodyContext& ctx, std::uint32_t task) noexcept {
    PeerProbe* const probe = ctx.probe;
    if (probe != nullptr) [[unlikely]]
        probe->on_start(task);
    ctx.hits[task] = ctx.hits[task] + 1u;
    if (probe != nullptr) [[unlikely]]
        probe->on_end(task);
}

}  // namespace pto::bench::detail
