// WakeUps: how the runtime's threads wake each other: one Parker per scheduler thread and one for the
// orchestrator, the count of sleeping schedulers that lets a push skip the wake-up when enough are awake,
// the limit on awake schedulers (host_cpus.h), and the idle-core hints the scheduler threads publish for
// each other's dispatch policy.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "parker.h"
#include "task_slot.h"

namespace pto::detail {

class WakeUps {
  public:
    /// `wake_one` (the instant executor): a push wakes one sleeper, and only while fewer than `awake_limit`
    /// (awake_scheduler_limit in host_cpus.h) schedulers are awake. Otherwise (timed and compute executors)
    /// a push wakes every sleeper, since only a particular thread may have the idle core a block needs.
    WakeUps(std::uint32_t scheduler_threads, std::uint32_t awake_limit, bool wake_one);

    /// wake_sleeping_schedulers: after pushing ready work, makes sure an awake scheduler will see it (a
    /// seq_cst fence, then one load when none sleeps). A scheduler counted awake runs another pass, or
    /// re-checks the queues after its enter_sleep, before it can sleep, so with enough of them awake
    /// nobody is woken: on a host with fewer cores than threads every wake-up is a context switch.
    void wake_sleeping_schedulers() {
        // Orders the caller's queue push before the sleeper count read (Parker protocol, fence form).
        std::atomic_thread_fence(std::memory_order_seq_cst);
        const std::uint32_t sleeping = sleeping_.load(std::memory_order_relaxed);
        if (sleeping == 0) return;
        if (!wake_one_) {
            wake_all_schedulers();
            return;
        }
        if (thread_count_ - sleeping >= awake_limit_) return;
        wake_one_scheduler();
    }
    /// wake_for_dispatch: dispatch was just enabled: wakes sleepers until as many schedulers are awake as
    /// the policy keeps (one lingering after the previous run counts; every one with the timed and
    /// compute executors).
    void wake_for_dispatch() {
        if (!wake_one_) {
            wake_all_schedulers();
            return;
        }
        const std::uint32_t awake = thread_count_ - sleeping_.load(std::memory_order_seq_cst);
        for (std::uint32_t i = awake; i < awake_limit_; ++i)
            if (!wake_one_scheduler()) return;
    }
    /// wake_all_schedulers: unparks every scheduler (after a change of dispatch, abort or shutdown).
    void wake_all_schedulers() {
        for (auto& p : scheduler_parkers_)
            p->unpark();
    }
    /// wake_scheduler: unparks scheduler `index` (compute workers call it when a kernel returns).
    void wake_scheduler(std::uint32_t index) { scheduler_parkers_[index]->unpark(); }
    [[nodiscard]] Parker& scheduler_parker(std::uint32_t index) { return *scheduler_parkers_[index]; }
    /// orchestrator: where the orchestrator parks while it waits inside the runtime.
    [[nodiscard]] Parker& orchestrator() { return orchestrator_; }
    void wake_orchestrator() { orchestrator_.unpark(); }

    /// Sleep accounting of a scheduler thread around each of its parks (seq_cst: pairs with the fence in
    /// wake_sleeping_schedulers, so a pusher either sees the count or the sleeper's re-check sees the push).
    void enter_sleep() { sleeping_.fetch_add(1, std::memory_order_seq_cst); }
    void leave_sleep() {
        sleeping_.fetch_sub(1, std::memory_order_seq_cst);
        // A pusher that still counted this thread asleep and found it already unparked woke nobody: the
        // pass this thread runs next must see that push.
        std::atomic_thread_fence(std::memory_order_seq_cst);
    }
    /// try_linger: whether a scheduler may spin for the next run now: at most `limit` do at once (after a
    /// run of the timed or compute executors every scheduler may be awake). stop_lingering ends a
    /// successful one.
    [[nodiscard]] bool try_linger(std::uint32_t limit) {
        if (lingering_.fetch_add(1, std::memory_order_relaxed) < limit) return true;
        lingering_.fetch_sub(1, std::memory_order_relaxed);
        return false;
    }
    void stop_lingering() { lingering_.fetch_sub(1, std::memory_order_relaxed); }
    /// lingering: schedulers spinning for the next run now (a hint).
    [[nodiscard]] std::uint32_t lingering() const { return lingering_.load(std::memory_order_relaxed); }
    /// over_awake_limit: more schedulers are awake than the policy keeps; an idle one should park now.
    [[nodiscard]] bool over_awake_limit() const {
        return thread_count_ - sleeping_.load(std::memory_order_relaxed) > awake_limit_;
    }

    // ---- Seats
    //
    // A scheduler's seat is the right to run passes over its clusters with its state. Its thread holds it
    // while awake and offers it while asleep; the orchestrator, done orchestrating, may borrow an offered
    // seat and run that scheduler's passes itself (Scheduler::help_until_drained). A thread that wakes
    // while its seat is lent waits for it to come back. The acquire / release on the seat word is what
    // hands the scheduler's private state (statistics, pass buffers) from one thread to the other.

    /// offer_seat: scheduler `index` is about to sleep; its state is left as the next pass expects it.
    void offer_seat(std::uint32_t index) { seats_[index].state.store(kOffered, std::memory_order_release); }
    /// reclaim_seat: scheduler `index` woke; true if it holds its seat again, false if the seat is lent (the
    /// thread then waits for seat_returned, and return_seat will wake it).
    [[nodiscard]] bool reclaim_seat(std::uint32_t index) {
        std::uint32_t expected = kOffered;
        if (seats_[index].state.compare_exchange_strong(expected, kHeld, std::memory_order_acquire))
            return true;
        expected = kLent;
        // seq_cst: pairs with return_seat's exchange, so either it sees kWanted and wakes the thread or the
        // thread's park re-check sees the seat offered again (Parker protocol).
        seats_[index].state.compare_exchange_strong(expected, kWanted, std::memory_order_seq_cst);
        return false;
    }
    /// seat_returned: the lent seat of scheduler `index` came back (its thread may reclaim it).
    [[nodiscard]] bool seat_returned(std::uint32_t index) const {
        return seats_[index].state.load(std::memory_order_seq_cst) == kOffered;
    }
    /// try_borrow_seat: the orchestrator takes the seat of scheduler `index` if its thread is asleep.
    [[nodiscard]] bool try_borrow_seat(std::uint32_t index) {
        std::uint32_t expected = kOffered;
        return seats_[index].state.compare_exchange_strong(expected, kLent, std::memory_order_acquire);
    }
    /// return_seat: gives a borrowed seat back, waking its thread if it woke meanwhile and waits for it.
    void return_seat(std::uint32_t index) {
        if (seats_[index].state.exchange(kOffered, std::memory_order_seq_cst) == kWanted)
            scheduler_parkers_[index]->unpark();
    }
    /// is_held: scheduler `index`'s thread holds its seat (it is awake).
    [[nodiscard]] bool is_held(std::uint32_t index) const {
        return seats_[index].state.load(std::memory_order_relaxed) == kHeld;
    }
    /// is_lent: the orchestrator runs scheduler `index`'s passes now (its thread must not be woken for work).
    [[nodiscard]] bool is_lent(std::uint32_t index) const {
        const std::uint32_t s = seats_[index].state.load(std::memory_order_relaxed);
        return s == kLent || s == kWanted;
    }

    /// IdleCount: idle AIC and AIV cores.
    struct IdleCount {
        std::uint32_t aic = 0;
        std::uint32_t aiv = 0;
    };
    /// publish_idle: scheduler `index`'s idle cores after its last pass. Written (relaxed) by that thread
    /// only; read (relaxed) by the others as a hint for the dispatch policy, so staleness is harmless.
    void publish_idle(std::uint32_t index, IdleCount idle) {
        idle_cores_[index].aic.store(idle.aic, std::memory_order_relaxed);
        idle_cores_[index].aiv.store(idle.aiv, std::memory_order_relaxed);
    }
    /// idle_elsewhere: the idle cores every scheduler thread but `index` published.
    [[nodiscard]] IdleCount idle_elsewhere(std::uint32_t index) const {
        IdleCount idle;
        for (std::uint32_t t = 0; t < thread_count_; ++t) {
            if (t == index) continue;
            idle.aic += idle_cores_[t].aic.load(std::memory_order_relaxed);
            idle.aiv += idle_cores_[t].aiv.load(std::memory_order_relaxed);
        }
        return idle;
    }

  private:
    struct alignas(kFalseSharingRange) IdleCores {
        std::atomic<std::uint32_t> aic{0};
        std::atomic<std::uint32_t> aiv{0};
    };

    /// wake_one_scheduler: unparks the first parked scheduler whose seat is not lent, if any is parked (a
    /// thread woken while the orchestrator holds its seat could only wait for it).
    bool wake_one_scheduler() {
        for (std::uint32_t i = 0; i < thread_count_; ++i)
            if (!is_lent(i) && scheduler_parkers_[i]->unpark()) return true;
        return false;
    }

    static constexpr std::uint32_t kHeld = 0;     // the thread's (awake)
    static constexpr std::uint32_t kOffered = 1;  // the thread sleeps; the orchestrator may borrow it
    static constexpr std::uint32_t kLent = 2;     // the orchestrator runs the scheduler's passes
    static constexpr std::uint32_t kWanted = 3;   // lent, and the thread woke and waits for it
    struct alignas(kFalseSharingRange) Seat {
        std::atomic<std::uint32_t> state{kHeld};
    };

    std::uint32_t thread_count_;
    std::uint32_t awake_limit_;
    bool wake_one_;
    std::vector<std::unique_ptr<Parker>> scheduler_parkers_;
    std::unique_ptr<IdleCores[]> idle_cores_;  // one per scheduler thread
    std::unique_ptr<Seat[]> seats_;            // one per scheduler thread
    std::atomic<std::uint32_t> sleeping_{0};
    std::atomic<std::uint32_t> lingering_{0};
    Parker orchestrator_;
};

inline WakeUps::WakeUps(std::uint32_t scheduler_threads, std::uint32_t awake_limit, bool wake_one)
    : thread_count_(scheduler_threads),
      awake_limit_(awake_limit),
      wake_one_(wake_one),
      idle_cores_(std::make_unique<IdleCores[]>(scheduler_threads)),
      seats_(std::make_unique<Seat[]>(scheduler_threads)) {
    for (std::uint32_t i = 0; i < scheduler_threads; ++i)
        scheduler_parkers_.push_back(std::make_unique<Parker>());
}

}  // namespace pto::detail
