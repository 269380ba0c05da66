// SchedulerPass: one scheduler pass, written once for the threaded schedulers (scheduler.cpp) and the
// virtual-time model (sim/scheduler_pass.cpp). A pass is a sequence of named steps:
//
//   collect         poll the thread's busy cores; every subtask that ended is taken off its core, and the
//                   core's pending subtask (if any) moves into the running slot;
//   complete        each ended subtask in turn: its SubtaskRecord, the MIX lane count, then its block ends;
//   dependency-only each queued dependency-only task in turn is completed;
//   dispatch        the occupancy snapshot, plan_dispatch over the ready queues, and the writes of the
//                   placements into the cores' running and pending slots; repeated while the back end
//                   asks for another round (blocks that ended as they were written released work);
//   publish         the back end publishes what the pass did (progress, wake-ups, statistics).
//
// What differs between threads and virtual time is the back end: the clock, the ready queues, the core
// table and how a subtask ends (a timed or computed kernel, or a precomputed virtual end). The threaded
// scheduler runs the steps back to back (run()); the model runs one step per event, because each step costs
// virtual time and other threads act in between (step()). Either way the order and the policy are this
// file's, so a change here changes both.
//
// The back end B provides (all inline; no virtual call and no allocation per task):
//   using Cluster, Ref                    a cluster (units, unit[u].running / .pending / .global_index,
//                                         mix_lanes_left, mix_failed) and the subtask reference a core slot
//                                         holds (slot, block, lane, dispatch_ns, dispatch_seq, is_empty())
//   kPollsCores                           false if subtasks end as they start (nothing to collect, and a
//                                         core never holds one: start() always returns its end)
//   kPendingMayHaveEnded                  whether a promoted pending subtask may already have ended when
//                                         its core was polled (virtual time: its end is known in advance)
//   clusters(), ready()                   the thread's clusters, and the ready queues (see HeldReadySource)
//   begin_pass()                          the pass starts
//   charge_poll()                         one busy core polled
//   ended(Cluster&, Core&) -> optional<SubtaskEnd>   the running subtask ended (nullopt: still running)
//   promoted(Cluster&, Core&)             a pending subtask moved into the running slot
//   collected(const Core&), end_collect() per polled core after the poll, and once after all
//   recording(), new_record(), facts(slot, lane), finish_ns(const SubtaskEnd&), time_base(), index(),
//   finish_seq()                          the subtask record (see end_subtask)
//   shape_of(slot)                        the task's ready-queue shape
//   lane_ended(const Ref&, const SubtaskEnd&)   every ended subtask (each MIX lane)
//   block_ended(slot, failed)             a block (every lane of a MIX block) ended
//   completions_done()                    the ended subtasks are handled
//   complete_dependency_only(slot)        a dependency-only task popped from its queue
//   begin_dispatch(), aborting(), cancel_queued() -> bool
//   idle_elsewhere(), use_pending_slots() the policy's inputs beyond this thread's occupancy
//   pushed_back()                         the source returned tasks with unclaimed blocks to their queues
//   begin_writes(placed), charge_write(cores), make_ref(const Placement&, const Core&)
//   start(Cluster&, Core&) -> optional<SubtaskEnd>   the running subtask starts (a value: it ended at once)
//   end_dispatch(placed)                  the round's writes are done (it may be followed by another round)
//   redispatch()                          whether the pass runs another dispatch round before it ends
//   end_pass(progressed)
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "dispatch_policy.h"
#include "pto/runtime/graph.h"
#include "task_slot.h"

namespace pto::detail {

/// HeldReadySource: the dispatch policy's view of the ready queues for one pass. Popping a task takes its
/// queue token: while held, only this thread claims its blocks, in order. A task with blocks left at the end
/// of the pass is pushed back to the tail of its queue, so other threads can spread its SPMD blocks. A queue
/// found empty stays empty for the rest of the plan: the policy asks once per free core, and a pop that
/// fails reads lines other threads write; what they push meanwhile waits for the next round.
/// Queues provides try_pop(Shape, slot&), push(Shape, slot), is_empty(Shape), claim_block(slot) (the next
/// block index, which the caller now owns) and block_num(slot).
template <class Queues>
class HeldReadySource {
  public:
    explicit HeldReadySource(Queues& queues) : queues_(queues) {}

    [[nodiscard]] bool has(Shape shape) const {
        const std::uint32_t i = index(shape);
        return held_[i] != kNoSlot || (!drained_[i] && !queues_.is_empty(shape));
    }

    bool take(Shape shape, std::uint32_t& slot, std::uint32_t& block) {
        const std::uint32_t i = index(shape);
        std::uint32_t& held = held_[i];
        if (held == kNoSlot) {
            std::uint32_t popped = kNoSlot;
            if (drained_[i] || !queues_.try_pop(shape, popped)) {
                drained_[i] = true;
                return false;
            }
            held = popped;
        }
        slot = held;
        block = queues_.claim_block(held);
        if (block + 1 == queues_.block_num(held)) held = kNoSlot;
        return true;
    }

    /// release: returns held tasks with unclaimed blocks to their queues; true if any was returned.
    bool release() {
        bool returned = false;
        for (std::uint32_t i = 0; i < kHeldShapes; ++i) {
            if (held_[i] == kNoSlot) continue;
            queues_.push(static_cast<Shape>(i), held_[i]);
            held_[i] = kNoSlot;
            returned = true;
        }
        return returned;
    }

  private:
    static constexpr std::uint32_t kHeldShapes = 3;  // AIC, AIV, MIX
    static std::uint32_t index(Shape s) { return static_cast<std::uint32_t>(s); }

    Queues& queues_;
    std::uint32_t held_[kHeldShapes] = {kNoSlot, kNoSlot, kNoSlot};
    bool drained_[kHeldShapes] = {};  // a pop of this shape failed in this plan
};

/// snapshot_occupancy: what plan_dispatch needs of each cluster: which units hold a running or a pending
/// subtask.
template <class Cluster>
void snapshot_occupancy(std::span<const Cluster> clusters, std::span<ClusterOccupancy> occupancy) {
    for (std::size_t i = 0; i < clusters.size(); ++i) {
        const Cluster& cluster = clusters[i];
        ClusterOccupancy& occ = occupancy[i];
        occ.units = cluster.units;
        for (std::uint32_t u = 0; u < cluster.units; ++u) {
            occ.running[u] = !cluster.unit[u].running.is_empty();
            occ.pending[u] = !cluster.unit[u].pending.is_empty();
        }
    }
}

/// mark_idle: the occupancy of clusters whose units hold nothing between writes (a back end whose subtasks
/// end as they start): every unit free, without reading the cores.
template <class Cluster>
void mark_idle(std::span<const Cluster> clusters, std::span<ClusterOccupancy> occupancy) {
    for (std::size_t i = 0; i < clusters.size(); ++i) {
        // Field by field: assigning a whole ClusterOccupancy{...} built a temporary whose 8-byte reload
        // spanned two smaller stores, a store-forwarding stall per cluster on every dispatch pass, 42 % of
        // the instant executor's scheduling loop (perf).
        ClusterOccupancy& occ = occupancy[i];
        occ.units = clusters[i].units;
        for (std::uint32_t u = 0; u < kMaxUnitsPerCluster; ++u) {
            occ.running[u] = false;
            occ.pending[u] = false;
        }
    }
}

/// SubtaskEnd: how a subtask ended, in the back end's clock: when its core took it up (handoff), when its
/// kernel body began and ended, and whether it failed.
struct SubtaskEnd {
    std::int64_t handoff_ns = 0;
    std::int64_t start_ns = 0;
    std::int64_t end_ns = 0;
    bool failed = false;
};

/// SubtaskFacts: what a SubtaskRecord needs of the task behind a subtask.
struct SubtaskFacts {
    TaskId task;
    FuncId func;
    CoreType core_type = CoreType::AIC;
};

/// PassStep: the step a pass runs next. Idle between passes (the next step starts a pass with collect).
enum class PassStep : std::uint8_t { Idle, Complete, DependencyOnly, Dispatch };

/// PassState: one scheduler thread's pass between steps, preallocated (prepare) so no step allocates.
template <class Ref>
struct PassState {
    struct Ended {
        std::uint32_t cluster;  // position in the thread's cluster list
        std::uint8_t unit;
        Ref ref;
        SubtaskEnd end;
    };

    PassStep step = PassStep::Idle;
    bool progressed = false;  // a subtask ended, a task completed or a block was placed
    std::vector<Ended> ended;
    std::size_t next_ended = 0;
    std::vector<ClusterOccupancy> occupancy;
    std::vector<Placement> placements;

    /// prepare: sizes the buffers for `clusters` clusters (a core reports at most its running and its
    /// pending subtask per pass; plan_dispatch writes at most a running and a pending lane per unit).
    void prepare(std::size_t clusters) {
        ended.reserve(clusters * kMaxUnitsPerCluster * 2);
        occupancy.resize(clusters);
        placements.resize(clusters * kMaxUnitsPerCluster * 2);
    }
};

template <class B>
class SchedulerPass {
  public:
    using Cluster = typename B::Cluster;
    using Ref = typename B::Ref;
    using Core = std::remove_reference_t<decltype(std::declval<Cluster&>().unit[0])>;
    using State = PassState<Ref>;

    SchedulerPass(B& backend, State& state) : b_(backend), s_(state) {}

    /// run: one whole pass, step after step; returns whether it made progress. The step is a local here, so
    /// the compiler can thread the transitions into straight-line code.
    bool run() {
        PassStep at = PassStep::Idle;
        do {
            at = advance(at);
        } while (at != PassStep::Idle);
        return s_.progressed;
    }

    /// step: runs the pass's next step (starting a pass if none is under way); false once the pass ended.
    bool step() {
        s_.step = advance(s_.step);
        return s_.step != PassStep::Idle;
    }

    /// end_subtask: the shared handling of one ended subtask: its record, the MIX lane count (a MIX block
    /// ends with its last lane, failed if any lane failed), then the block's end.
    void end_subtask(Cluster& cluster, const Core& core, const Ref& ref, const SubtaskEnd& end) {
        if (b_.recording()) {
            const SubtaskFacts facts = b_.facts(ref.slot, ref.lane);
            const std::int64_t base = b_.time_base();
            SubtaskRecord& r = b_.new_record();
            r.task = facts.task;
            r.func = facts.func;
            r.block_idx = ref.block;
            r.core = core.global_index;
            r.lane = ref.lane;
            r.scheduler = static_cast<std::uint8_t>(b_.index());
            r.core_type = facts.core_type;
            r.dispatch_ns = ref.dispatch_ns - base;
            r.handoff_ns = end.handoff_ns - base;
            r.start_ns = end.start_ns - base;
            r.end_ns = end.end_ns - base;
            r.finish_ns = b_.finish_ns(end) - base;
            r.dispatch_seq = ref.dispatch_seq;
            r.finish_seq = b_.finish_seq();
        }
        b_.lane_ended(ref, end);
        bool failed = end.failed;
        if (b_.shape_of(ref.slot) == Shape::MIX) {
            cluster.mix_failed |= failed;
            if (--cluster.mix_lanes_left != 0) return;
            failed = cluster.mix_failed;
        }
        b_.block_ended(ref.slot, failed);
    }

  private:
    /// advance: runs step `at`; returns the next one (Idle once the pass ended). The one place that orders
    /// the steps.
    PassStep advance(PassStep at) {
        switch (at) {
            case PassStep::Idle:
                collect();
                return PassStep::Complete;
            case PassStep::Complete:
                if (complete_next()) return PassStep::Complete;
                b_.completions_done();
                return PassStep::DependencyOnly;
            case PassStep::DependencyOnly:
                return dependency_only_next() ? PassStep::DependencyOnly : PassStep::Dispatch;
            case PassStep::Dispatch:
                break;
        }
        dispatch();
        if (b_.redispatch()) return PassStep::Dispatch;
        b_.end_pass(s_.progressed);
        return PassStep::Idle;
    }

    /// collect: takes every ended subtask off its core (in cluster and unit order) and promotes the
    /// core's pending subtask.
    void collect() {
        s_.progressed = false;
        s_.ended.clear();
        s_.next_ended = 0;
        b_.begin_pass();
        if constexpr (B::kPollsCores) {
            const std::span<Cluster> clusters = b_.clusters();
            for (std::uint32_t c = 0; c < clusters.size(); ++c) {
                Cluster& cluster = clusters[c];
                for (std::uint32_t u = 0; u < cluster.units; ++u) {
                    Core& core = cluster.unit[u];
                    if (core.running.is_empty()) continue;
                    b_.charge_poll();
                    while (const std::optional<SubtaskEnd> end = b_.ended(cluster, core)) {
                        s_.progressed = true;
                        s_.ended.push_back({c, static_cast<std::uint8_t>(u), core.running, *end});
                        core.running = core.pending;
                        core.pending = Ref{};
                        if (core.running.is_empty()) break;
                        b_.promoted(cluster, core);
                        if (!B::kPendingMayHaveEnded || core.running.is_empty()) break;
                    }
                    b_.collected(core);
                }
            }
            b_.end_collect();
        }
    }

    /// complete_next: handles the next ended subtask; false once all are handled.
    bool complete_next() {
        if (s_.next_ended == s_.ended.size()) return false;
        const typename State::Ended& e = s_.ended[s_.next_ended++];
        Cluster& cluster = b_.clusters()[e.cluster];
        end_subtask(cluster, cluster.unit[e.unit], e.ref, e.end);
        return true;
    }

    /// dependency_only_next: completes the next queued dependency-only task; false once the queue is empty.
    bool dependency_only_next() {
        std::uint32_t slot = 0;
        if (!b_.ready().try_pop(Shape::DependencyOnly, slot)) return false;
        s_.progressed = true;
        b_.complete_dependency_only(slot);
        return true;
    }

    /// dispatch: plans the placements over the occupancy snapshot and writes them to the cores.
    void dispatch() {
        b_.begin_dispatch();
        if (b_.aborting()) [[unlikely]] {
            s_.progressed |= b_.cancel_queued();
            return;
        }
        const std::span<Cluster> clusters = b_.clusters();
        if constexpr (B::kPollsCores)
            snapshot_occupancy(std::span<const Cluster>(clusters), std::span<ClusterOccupancy>(s_.occupancy));
        else
            mark_idle(std::span<const Cluster>(clusters), std::span<ClusterOccupancy>(s_.occupancy));
        HeldReadySource source(b_.ready());
        const std::uint32_t placed =
            plan_dispatch(std::span<ClusterOccupancy>(s_.occupancy.data(), clusters.size()), source,
                          b_.use_pending_slots(), b_.idle_elsewhere(), s_.placements.data());
        if (source.release()) b_.pushed_back();
        b_.begin_writes(placed);
        for (std::uint32_t i = 0; i < placed; ++i)
            write(clusters[s_.placements[i].cluster], s_.placements[i]);
        s_.progressed |= placed != 0;
        b_.end_dispatch(placed);
    }

    /// write: one placement into its unit's running or pending slot. A block is written once (a MIX block
    /// once for all its lanes, which plan_dispatch emits together, lane 0 first).
    void write(Cluster& cluster, const Placement& p) {
        Core& core = cluster.unit[p.unit];
        const Shape shape = b_.shape_of(p.slot);
        if (p.lane == 0) b_.charge_write(shape == Shape::MIX ? cluster.units : 1);
        const Ref ref = b_.make_ref(p, core);
        if constexpr (!B::kPollsCores) {
            // Ends as it starts (the instant executor): the core never holds it, so nothing is written to
            // the core and no pending slot is used.
            if (shape == Shape::MIX && p.lane == 0) {
                cluster.mix_lanes_left = cluster.units;
                cluster.mix_failed = false;
            }
            end_subtask(cluster, core, ref, *b_.start(cluster, core));
            return;
        }
        if (p.to_pending) {
            core.pending = ref;
            return;
        }
        core.running = ref;
        if (shape == Shape::MIX && p.lane == 0) {
            cluster.mix_lanes_left = cluster.units;
            cluster.mix_failed = false;
        }
        if (const std::optional<SubtaskEnd> end = b_.start(cluster, core)) {
            // Ended as it started (the instant executor): nothing to poll for.
            core.running = core.pending;
            core.pending = Ref{};
            end_subtask(cluster, core, ref, *end);
        }
    }

    B& b_;
    State& s_;
};

}  // namespace pto::detail
