// DispatchControl: the orchestrator's switches the scheduler threads read every pass: whether they may
// dispatch, the quiesce epoch they acknowledge, whether the run is aborting, and shutdown. Written by the
// orchestrator (and the destructor), read by the schedulers; each switch says its memory order.
#pragma once

#include <atomic>
#include <cstdint>

#include "task_slot.h"

namespace pto::detail {

class DispatchControl {
  public:
    /// enable_dispatch / disable_dispatch: seq_cst, pairing with the parked schedulers' re-check (Parker
    /// protocol); the caller wakes them.
    void enable_dispatch() { dispatch_enabled_.store(true, std::memory_order_seq_cst); }
    /// quiesce: disables dispatch, then bumps the quiesce epoch; returns the new epoch, which each scheduler
    /// acknowledges once it runs no pass any more (Scheduler::acknowledged_epoch).
    std::uint64_t quiesce() {
        dispatch_enabled_.store(false, std::memory_order_seq_cst);
        return quiesce_epoch_.fetch_add(1, std::memory_order_seq_cst) + 1;
    }
    [[nodiscard]] bool dispatch_enabled(std::memory_order order = std::memory_order_acquire) const {
        return dispatch_enabled_.load(order);
    }
    [[nodiscard]] std::uint64_t quiesce_epoch() const {
        return quiesce_epoch_.load(std::memory_order_acquire);
    }

    /// request_abort: every thread that makes a task ready after this sees it (seq_cst) and cancels it.
    void request_abort() { abort_requested_.store(true, std::memory_order_seq_cst); }
    void clear_abort() { abort_requested_.store(false, std::memory_order_relaxed); }
    [[nodiscard]] bool abort_requested() const { return abort_requested_.load(std::memory_order_relaxed); }

    void shut_down() { shutting_down_.store(true, std::memory_order_seq_cst); }
    [[nodiscard]] bool shutting_down(std::memory_order order = std::memory_order_acquire) const {
        return shutting_down_.load(order);
    }

  private:
    alignas(kFalseSharingRange) std::atomic<bool> dispatch_enabled_{false};
    std::atomic<bool> shutting_down_{false};
    std::atomic<std::uint64_t> quiesce_epoch_{0};
    std::atomic<bool> abort_requested_{false};
};

}  // namespace pto::detail
