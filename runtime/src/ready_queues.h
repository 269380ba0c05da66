// ReadyQueues: the ready task slots of each shape (AIC, AIV, MIX, dependency-only), in two lock-free
// structures. A shared MPMC queue per shape takes what any thread pushes (a scheduler's releases it does
// not keep, blocks handed back). The orchestrator's own ready tasks go through its feed instead: per kernel
// shape a single-producer ring it fills in batches, so handing work to another CPU costs it a few plain
// stores per batch instead of a compare-and-swap on lines the schedulers keep polling. Schedulers pop both.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "task_slot.h"

namespace pto::detail {

/// A task is in at most one queue or feed, at most once, while it has unclaimed blocks: the thread that pops
/// it holds it exclusively, claims blocks, and pushes it back (to the shared queue) only if blocks remain.
/// So each queue and feed needs window_tasks entries at most, and a push never fails or allocates
/// (Boost.Lockfree bounded_push on a preallocated node pool; the feeds' rings are preallocated).
class ReadyQueues {
  public:
    explicit ReadyQueues(std::uint32_t capacity);
    ~ReadyQueues();
    ReadyQueues(const ReadyQueues&) = delete;
    ReadyQueues& operator=(const ReadyQueues&) = delete;

    /// push: queues `slot` in the shared queue; release ordering, so the popper sees everything written
    /// before.
    void push(Shape shape, std::uint32_t slot);
    /// stage: the orchestrator's push. A kernel task waits in the orchestrator's batch until publish()
    /// (or until the batch fills); a dependency-only task is pushed at once. Orchestrator thread only.
    void stage(Shape shape, std::uint32_t slot);
    /// publish: makes every staged task visible to the schedulers, one release store per shape that has
    /// any. Orchestrator thread only; it publishes before it leaves any runtime call (so nothing a
    /// scheduler could wait for stays staged).
    void publish();
    /// has_staged: the orchestrator staged tasks it has not published (checked when a run ends).
    [[nodiscard]] bool has_staged() const;
    /// try_pop: the oldest slot of `shape` in the shared queue, else in the orchestrator's feed; acquire
    /// ordering. The feed has one consumer at a time: while another thread pops it, it reads as empty here.
    bool try_pop(Shape shape, std::uint32_t& slot);
    /// is_empty: a snapshot of the shared queue and the published feed; may be stale by the time the
    /// caller acts on it.
    [[nodiscard]] bool is_empty(Shape shape) const;
    [[nodiscard]] bool all_empty() const;

  private:
    struct Queues;
    std::unique_ptr<Queues> queues_;
};

}  // namespace pto::detail
