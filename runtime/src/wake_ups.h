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

    /// wake_one_scheduler: unparks the first parked scheduler, if any is parked.
    bool wake_one_scheduler() {
        for (auto& p : scheduler_parkers_)
            if (p->unpark()) return true;
        return false;
    }

    std::uint32_t thread_count_;
    std::uint32_t awake_limit_;
    bool wake_one_;
    std::vector<std::unique_ptr<Parker>> scheduler_parkers_;
    std::unique_ptr<IdleCores[]> idle_cores_;  // one per scheduler thread
    std::atomic<std::uint32_t> sleeping_{0};
    std::atomic<std::uint32_t> lingering_{0};
    Parker orchestrator_;
};

inline WakeUps::WakeUps(std::uint32_t scheduler_threads, std::uint32_t awake_limit, bool wake_one)
    : thread_count_(scheduler_threads),
      awake_limit_(awake_limit),
      wake_one_(wake_one),
      idle_cores_(std::make_unique<IdleCores[]>(scheduler_threads)) {
    for (std::uint32_t i = 0; i < scheduler_threads; ++i)
        scheduler_parkers_.push_back(std::make_unique<Parker>());
}

}  // namespace pto::detail
