// The simulated scheduler threads: the shared pass (scheduler_pass.h) on a virtual clock. Each step of a
// pass is one event; the back end charges its costs to the thread's clock and the next step runs when they
// are paid, so other threads and the orchestrator act in between. An idle thread sleeps until a core ends
// or work arrives.
#include <algorithm>
#include <limits>
#include <optional>
#include <span>

#include "scheduler_pass.h"
#include "simulator.h"

namespace pto::detail::sim {

/// Simulator::PassBackend: the shared pass in virtual time for one step of thread `s`, which starts at `now`.
/// Subtask times are decided at the write (a pending subtask starts when the running one ends), so a poll
/// just compares them with the clock; costs advance clock().
class Simulator::PassBackend {
  public:
    using Cluster = SimCluster;
    using Ref = CoreSlot;
    static constexpr bool kPollsCores = true;
    // A core runs its pending subtask on its own, and its end is known since the write: a core polled late
    // reports both.
    static constexpr bool kPendingMayHaveEnded = true;

    PassBackend(Simulator& sim, SchedState& s, std::int64_t now) : sim_(sim), s_(s), now_(now), clock_(now) {}

    /// clock: when the step's costs are paid (the next step's time).
    [[nodiscard]] std::int64_t clock() const { return clock_; }

    [[nodiscard]] std::span<SimCluster> clusters() const { return s_.clusters; }
    SimReadyQueues& ready() { return sim_.ready_; }

    // ---- collect ----
    void begin_pass() {
        ++sim_.out_.scheduler_passes;
        s_.pass_start_ns = now_;
        s_.handled = 0;
    }
    void charge_poll() { clock_ += sim_.poll_ns_; }
    std::optional<SubtaskEnd> ended(SimCluster&, SimCore& core) const {
        if (core.running.end_ns > now_) return std::nullopt;
        return SubtaskEnd{core.running.start_ns, core.running.start_ns, core.running.end_ns, false};
    }
    void promoted(SimCluster&, SimCore&) {}
    void collected(const SimCore&) {}
    void end_collect() {}

    // ---- complete ----
    [[nodiscard]] static constexpr bool recording() { return true; }  // the timeline is the model's output
    SubtaskRecord& new_record() { return sim_.out_.timeline.emplace_back(); }
    [[nodiscard]] SubtaskFacts facts(std::uint32_t task, std::uint8_t lane) const {
        const RecordedTask& t = sim_.graph_.tasks[task];
        return SubtaskFacts{t.id, t.funcs[lane], t.core};
    }
    [[nodiscard]] std::int64_t finish_ns(const SubtaskEnd&) const { return now_; }
    [[nodiscard]] static constexpr std::int64_t time_base() { return 0; }
    [[nodiscard]] std::uint32_t index() const { return s_.index; }
    [[nodiscard]] static constexpr std::uint64_t finish_seq() { return 0; }  // no causal stamps
    [[nodiscard]] Shape shape_of(std::uint32_t task) const { return sim_.tasks_[task].shape; }
    void lane_ended(const CoreSlot& ref, const SubtaskEnd& end) {
        std::int64_t& task_end = sim_.out_.task_end_ns[ref.slot];
        task_end = std::max(task_end, end.end_ns);
    }
    /// block_ended: every finished block costs one completion; the block that ends its task also walks the
    /// fanout (a MIX block is handled with its last lane; earlier lanes cost only their poll).
    void block_ended(std::uint32_t task, bool) {
        std::int64_t cost = sim_.completion_ns_;
        if (++sim_.tasks_[task].blocks_finished == sim_.ready_.blocks[task].block_num) {
            ++s_.handled;
            cost += sim_.close_task(task, now_, now_ + sim_.completion_ns_);
        }
        charge(cost);
    }
    void completions_done() {}

    // ---- dependency-only ----
    void complete_dependency_only(std::uint32_t task) {
        ++s_.handled;
        charge(sim_.completion_ns_ + sim_.close_task(task, now_, now_ + sim_.completion_ns_));
    }

    // ---- dispatch ----
    void begin_dispatch() { s_.dispatch_start_ns = now_; }
    [[nodiscard]] static constexpr bool aborting() { return false; }
    static constexpr bool cancel_queued() { return false; }
    /// idle_elsewhere: the other threads' idle cores right now, as the threaded schedulers publish them
    /// after each pass.
    [[nodiscard]] IdleElsewhere idle_elsewhere() const {
        IdleElsewhere idle;
        for (const SchedState& other : sim_.scheds_) {
            if (&other == &s_) continue;
            for (const SimCluster& c : other.clusters)
                for (std::uint32_t u = 0; u < c.units; ++u)
                    if (c.unit[u].running.is_empty()) ++(u == 0 ? idle.aic : idle.aiv);
        }
        return idle;
    }
    [[nodiscard]] bool use_pending_slots() const { return sim_.config_.use_pending_slots; }
    void pushed_back() {}
    void begin_writes(std::uint32_t) {}
    /// charge_write: the decisions are made; the writes follow one after another, dispatch_us per block
    /// plus core_pickup_us per core written.
    void charge_write(std::uint32_t cores) { clock_ += sim_.dispatch_ns_ + sim_.pickup_ns_ * cores; }
    /// make_ref: a subtask starts start_latency_us after its write lands, or, in a pending slot, when the
    /// core's running subtask ends if that is later: the pending slot hides the latency behind the running
    /// kernel. The lanes of a MIX block all start when the block is written; each ends after its own kernel.
    [[nodiscard]] CoreSlot make_ref(const Placement& p, const SimCore& core) const {
        CoreSlot ref{p.slot, p.block, p.lane, clock_, clock_ + sim_.latency_ns_, 0};
        if (p.to_pending) ref.start_ns = std::max(ref.start_ns, core.running.end_ns);
        ref.end_ns = ref.start_ns + sim_.lane_duration_ns(p.slot, p.block, p.lane);
        return ref;
    }
    static std::optional<SubtaskEnd> start(SimCluster&, SimCore&) { return std::nullopt; }
    void end_dispatch(std::uint32_t) {}
    /// redispatch: one round per pass; a subtask never ends as it is written here.
    [[nodiscard]] static constexpr bool redispatch() { return false; }

    // ---- publish ----
    void end_pass(bool progressed) { sim_.end_pass(s_, clock_, progressed); }

  private:
    void charge(std::int64_t cost) {
        sim_.out_.drain_ns = std::max(sim_.out_.drain_ns, now_ + cost);
        clock_ += cost;
    }

    Simulator& sim_;
    SchedState& s_;
    const std::int64_t now_;
    std::int64_t clock_;
};

void Simulator::step_at(SchedState& s, std::int64_t when) {
    events_.push(when, EventKind::SchedulerStep, s.index, s.generation);
}

void Simulator::wake_sleepers(std::int64_t now) {
    if (!dispatch_enabled_) return;
    for (SchedState& s : scheds_) {
        if (!s.sleeping) continue;
        s.sleeping = false;
        ++s.generation;  // cancels its timer
        step_at(s, std::max(now, s.free_at_ns));
    }
}

void Simulator::go_to_sleep(SchedState& s, std::int64_t now) {
    s.sleeping = true;
    ++s.generation;
    // A polling thread notices a core finishing; the model wakes it exactly then. Ready work pushed by
    // anyone wakes it through wake_sleepers.
    std::int64_t wake = std::numeric_limits<std::int64_t>::max();
    for (const SimCluster& c : s.clusters)
        for (std::uint32_t u = 0; u < c.units; ++u)
            if (!c.unit[u].running.is_empty()) wake = std::min(wake, c.unit[u].running.end_ns);
    if (wake != std::numeric_limits<std::int64_t>::max()) step_at(s, std::max(now, wake));
}

void Simulator::on_scheduler_step(SchedState& s, std::int64_t now) {
    if (s.pass.step == PassStep::Idle) {
        s.sleeping = false;
        if (!dispatch_enabled_) {
            go_to_sleep(s, now);
            return;
        }
    }
    PassBackend backend(*this, s, now);
    if (SchedulerPass(backend, s.pass).step()) step_at(s, backend.clock());
}

void Simulator::end_pass(SchedState& s, std::int64_t end, bool progressed) {
    s.busy_ns += end - s.pass_start_ns;
    s.free_at_ns = end;
    if (config_.record_trace) {
        const std::uint32_t track = 1 + s.index;
        if (s.dispatch_start_ns > s.pass_start_ns)
            out_.trace.slices.push_back(TraceSlice{track, s.handled != 0 ? "complete" : "poll",
                                                   s.pass_start_ns, s.dispatch_start_ns, TaskId{}});
        if (end > s.dispatch_start_ns)
            out_.trace.slices.push_back(TraceSlice{track, "dispatch", s.dispatch_start_ns, end, TaskId{}});
    }
    if (progressed) {
        step_at(s, end);
    } else {
        go_to_sleep(s, end);
    }
}

std::int64_t Simulator::lane_duration_ns(std::uint32_t i, std::uint32_t block, std::uint32_t lane) const {
    return durations_.duration_ns(graph_.tasks[i].funcs[lane], i, block, lane);
}

}  // namespace pto::detail::sim
