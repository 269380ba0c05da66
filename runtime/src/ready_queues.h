// ReadyQueues: one lock-free MPMC queue of ready task slots per shape (AIC, AIV, MIX, dependency-only).
// Any thread may push (the orchestrator, or the completer that released the last fanin); schedulers pop.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "task_slot.h"

namespace pto::detail {

/// A task is in at most one queue, at most once, while it has unclaimed blocks: the thread that pops it
/// holds it exclusively, claims blocks, and pushes it back only if blocks remain. So each queue needs
/// window_tasks entries at most, and a push never fails or allocates (Boost.Lockfree bounded_push on a
/// preallocated node pool).
class ReadyQueues {
  public:
    explicit ReadyQueues(std::uint32_t capacity);
    ~ReadyQueues();
    ReadyQueues(const ReadyQueues&) = delete;
    ReadyQueues& operator=(const ReadyQueues&) = delete;

    /// push: queues `slot`; release ordering, so the popper sees everything written before.
    void push(Shape shape, std::uint32_t slot);
    /// try_pop: the oldest queued slot of `shape`, if any; acquire ordering.
    bool try_pop(Shape shape, std::uint32_t& slot);
    /// is_empty: a snapshot; may be stale by the time the caller acts on it.
    [[nodiscard]] bool is_empty(Shape shape) const;
    [[nodiscard]] bool all_empty() const;

  private:
    struct Queues;
    std::unique_ptr<Queues> queues_;
};

}  // namespace pto::detail
