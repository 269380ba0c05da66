// Parker: lets one thread sleep until another thread has news for it, without a lost wake-up and without
// any cost to the waker while nobody sleeps. Used by scheduler threads (no work) and the orchestrator
// (window full, run draining).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace pto::detail {

/// cpu_relax: the spin-wait hint (x86 `pause`, Arm `yield`) between polls of a busy-waiting thread, so
/// the core spends less power and a sibling hardware thread more time while it waits.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

/// Protocol. Waiter: park_until(check, deadline) sets `parked_` (seq_cst), then evaluates `check` and
/// sleeps only if it is still false. Waker: makes its news visible, then calls unpark(), which reads
/// `parked_` (seq_cst) and takes the lock only if the waiter is parked. The two seq_cst accesses order
/// "waiter publishes parked -> waiter re-checks" against "waker publishes news -> waker reads parked":
/// either the waiter's re-check sees the news or the waker sees parked_ and notifies under the lock.
/// The waker's news must be published with a seq_cst store or RMW (or be followed by a seq_cst fence).
class Parker {
  public:
    using Clock = std::chrono::steady_clock;

    /// park_until: sleeps until unpark(), `deadline`, or a spurious wake-up, unless check() is already
    /// true after announcing the park. Returns check()'s last value.
    template <class Check>
    bool park_until(Check&& check, Clock::time_point deadline) {
        std::unique_lock lock(mutex_);
        parked_.store(true, std::memory_order_seq_cst);
        // Orders the store before check()'s loads even where they are not seq_cst themselves.
        std::atomic_thread_fence(std::memory_order_seq_cst);
        bool ready = check();
        if (!ready && !notified_) cv_.wait_until(lock, deadline, [&] { return notified_; });
        notified_ = false;
        parked_.store(false, std::memory_order_relaxed);  // only the waiter reads its own flag's reset
        return ready || check();
    }

    /// unpark: wakes the waiter if it is parked; cheap (one load) otherwise. Returns whether it was parked.
    bool unpark() {
        if (!parked_.load(std::memory_order_seq_cst)) return false;
        {
            std::lock_guard lock(mutex_);
            notified_ = true;
        }
        cv_.notify_one();
        return true;
    }

    /// is_asleep: whether the waiter sleeps now and nobody has woken it yet. While it sleeps it cannot
    /// leave park_until without taking the mutex this takes, so everything it wrote before it parked is
    /// visible to the caller, and stays as it was until the caller unparks it or its deadline passes.
    [[nodiscard]] bool is_asleep() {
        std::lock_guard lock(mutex_);
        return parked_.load(std::memory_order_relaxed) && !notified_;
    }

    /// spin_until: polls check() up to `polls` times, pausing the core between polls, and returns its last
    /// value; for waits that usually end within microseconds, before parking. A park and its wake-up are
    /// two system calls and a context switch (tens of microseconds on a virtual machine), against a
    /// spin's few microseconds of a core, so only a thread that has a CPU to itself should spin.
    template <class Check>
    static bool spin_until(Check&& check, std::uint32_t polls) {
        for (std::uint32_t i = 0; i < polls; ++i) {
            if (check()) return true;
            cpu_relax();
        }
        return check();
    }

  private:
    std::atomic<bool> parked_{false};
    bool notified_ = false;  // guarded by mutex_
    std::mutex mutex_;
    std::condition_variable cv_;
};

}  // namespace pto::detail
