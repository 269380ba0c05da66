// The simulated scheduler threads: each pass polls its busy cores, handles the finished blocks (fanout
// walk included), completes dependency-only tasks, asks plan_dispatch for placements and writes them, every
// step advancing the thread's clock by its cost; an idle thread sleeps until a core ends or work arrives.
#include "simulator.h"

#include <algorithm>
#include <limits>
#include <span>

namespace pto::detail::sim {

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
            if (c.unit[u].running.task != kNoTask) wake = std::min(wake, c.unit[u].running.end_ns);
    if (wake != std::numeric_limits<std::int64_t>::max()) step_at(s, std::max(now, wake));
}

void Simulator::on_scheduler_step(SchedState& s, std::int64_t now) {
    switch (s.phase) {
        case Phase::Idle:
            begin_pass(s, now);
            break;
        case Phase::Completing:
            complete_next(s, now);
            break;
        case Phase::DependencyOnly:
            dependency_only_next(s, now);
            break;
        case Phase::Dispatch:
            dispatch(s, now);
            break;
    }
}

void Simulator::begin_pass(SchedState& s, std::int64_t now) {
    s.sleeping = false;
    if (!dispatch_enabled_) {
        go_to_sleep(s, now);
        return;
    }
    ++out_.scheduler_passes;
    s.pass_start_ns = now;
    s.did_work = false;
    s.handled = 0;
    s.finished.clear();
    s.next_finished = 0;
    // Poll the status register of every core holding a subtask; a core that ran its pending subtask too
    // reports both.
    std::uint32_t polled = 0;
    for (std::uint32_t ci = 0; ci < s.clusters.size(); ++ci) {
        SimCluster& c = s.clusters[ci];
        for (std::uint32_t u = 0; u < c.units; ++u) {
            SimCore& core = c.unit[u];
            if (core.running.task == kNoTask) continue;
            ++polled;
            while (core.running.task != kNoTask && core.running.end_ns <= now) {
                s.finished.push_back(Finished{ci, static_cast<std::uint8_t>(u), core.running});
                core.running = core.pending;
                core.pending = CoreSlot{};
            }
        }
    }
    s.phase = Phase::Completing;
    step_at(s, now + poll_ns_ * polled);
}

void Simulator::complete_next(SchedState& s, std::int64_t now) {
    if (s.next_finished == s.finished.size()) {
        s.phase = Phase::DependencyOnly;
        step_at(s, now);
        return;
    }
    const Finished f = s.finished[s.next_finished++];
    SimCluster& cluster = s.clusters[f.cluster];
    record_subtask(s, cluster.unit[f.unit], f.slot, now);
    s.did_work = true;
    const std::uint32_t i = f.slot.task;
    out_.task_end_ns[i] = std::max(out_.task_end_ns[i], f.slot.end_ns);
    if (tasks_[i].shape == Shape::MIX && --cluster.mix_lanes_left != 0) {
        step_at(s, now);  // the block is handled with its last lane; earlier lanes cost only their poll
        return;
    }
    // Every finished block costs one completion; the block that ends its task also walks the fanout.
    std::int64_t cost = completion_ns_;
    if (++tasks_[i].blocks_finished == blocks_[i].block_num) {
        ++s.handled;
        cost += close_task(i, now, now + completion_ns_);
    }
    out_.drain_ns = std::max(out_.drain_ns, now + cost);
    step_at(s, now + cost);
}

void Simulator::dependency_only_next(SchedState& s, std::int64_t now) {
    std::deque<std::uint32_t>& q = ready_.of(Shape::DependencyOnly);
    if (q.empty()) {
        s.phase = Phase::Dispatch;
        step_at(s, now);
        return;
    }
    const std::uint32_t i = q.front();
    q.pop_front();
    s.did_work = true;
    ++s.handled;
    const std::int64_t cost = completion_ns_ + close_task(i, now, now + completion_ns_);
    out_.drain_ns = std::max(out_.drain_ns, now + cost);
    step_at(s, now + cost);
}

void Simulator::dispatch(SchedState& s, std::int64_t now) {
    s.dispatch_start_ns = now;
    for (std::size_t ci = 0; ci < s.clusters.size(); ++ci) {
        const SimCluster& c = s.clusters[ci];
        ClusterOccupancy& occ = s.occupancy[ci];
        occ.units = c.units;
        for (std::uint32_t u = 0; u < c.units; ++u) {
            occ.running[u] = c.unit[u].running.task != kNoTask;
            occ.pending[u] = c.unit[u].pending.task != kNoTask;
        }
    }
    // The other threads' idle cores right now, as the threaded schedulers publish them after each pass.
    IdleElsewhere idle_elsewhere;
    for (const SchedState& other : scheds_) {
        if (&other == &s) continue;
        for (const SimCluster& c : other.clusters)
            for (std::uint32_t u = 0; u < c.units; ++u)
                if (c.unit[u].running.task == kNoTask) ++(u == 0 ? idle_elsewhere.aic : idle_elsewhere.aiv);
    }
    SimReadySource source(ready_, blocks_);
    const std::uint32_t placed =
        plan_dispatch(std::span<ClusterOccupancy>(s.occupancy), source, config_.use_pending_slots,
                      idle_elsewhere, s.placements.data());
    source.release();

    // The decisions are made now; the writes follow one after another, dispatch_us per block (plus
    // core_pickup_us per core written). A subtask starts start_latency_us after its write lands, or, in a
    // pending slot, when the core's running subtask ends if that is later: the pending slot hides the
    // latency behind the running kernel.
    std::int64_t cursor = now;
    for (std::uint32_t k = 0; k < placed;) {
        const Placement& p = s.placements[k];
        SimCluster& cluster = s.clusters[p.cluster];
        const std::uint32_t i = p.slot;
        cursor += dispatch_ns_;
        if (tasks_[i].shape == Shape::MIX) {
            // plan_dispatch emits the lanes of a MIX block together; all start when the last is written,
            // and each lane ends (and frees its core) after its own duration.
            cursor += pickup_ns_ * cluster.units;
            cluster.mix_lanes_left = cluster.units;
            for (std::uint32_t l = 0; l < cluster.units; ++l) {
                const Placement& lp = s.placements[k + l];
                CoreSlot slot{i, lp.block, lp.lane, cursor, cursor + latency_ns_, 0};
                slot.end_ns = slot.start_ns + lane_duration_ns(i, lp.block, lp.lane);
                cluster.unit[lp.unit].running = slot;
            }
            k += cluster.units;
            continue;
        }
        cursor += pickup_ns_;
        SimCore& core = cluster.unit[p.unit];
        CoreSlot slot{i, p.block, 0, cursor, cursor + latency_ns_, 0};
        if (p.to_pending) slot.start_ns = std::max(slot.start_ns, core.running.end_ns);
        slot.end_ns = slot.start_ns + lane_duration_ns(i, p.block, 0);
        (p.to_pending ? core.pending : core.running) = slot;
        ++k;
    }
    if (placed != 0) s.did_work = true;
    end_pass(s, cursor);
}

void Simulator::end_pass(SchedState& s, std::int64_t end) {
    s.busy_ns += end - s.pass_start_ns;
    s.free_at_ns = end;
    s.phase = Phase::Idle;
    if (config_.record_trace) {
        const std::uint32_t track = 1 + s.index;
        if (s.dispatch_start_ns > s.pass_start_ns)
            out_.trace.slices.push_back(TraceSlice{track, s.handled != 0 ? "complete" : "poll",
                                                   s.pass_start_ns, s.dispatch_start_ns, TaskId{}});
        if (end > s.dispatch_start_ns)
            out_.trace.slices.push_back(TraceSlice{track, "dispatch", s.dispatch_start_ns, end, TaskId{}});
    }
    if (s.did_work) {
        step_at(s, end);
    } else {
        go_to_sleep(s, end);
    }
}

void Simulator::record_subtask(const SchedState& s, const SimCore& core, const CoreSlot& slot,
                               std::int64_t finish_ns) {
    const RecordedTask& t = graph_.tasks[slot.task];
    SubtaskRecord& r = out_.timeline.emplace_back();
    r.task = t.id;
    r.func = t.funcs[slot.lane];
    r.block_idx = slot.block;
    r.core = core.global_index;
    r.lane = slot.lane;
    r.scheduler = static_cast<std::uint8_t>(s.index);
    r.core_type = t.core;
    r.dispatch_ns = slot.dispatch_ns;
    r.handoff_ns = slot.start_ns;
    r.start_ns = slot.start_ns;
    r.end_ns = slot.end_ns;
    r.finish_ns = finish_ns;
}

std::int64_t Simulator::lane_duration_ns(std::uint32_t i, std::uint32_t block, std::uint32_t lane) const {
    return durations_.duration_ns(graph_.tasks[i].funcs[lane], i, block, lane);
}

}  // namespace pto::detail::sim
