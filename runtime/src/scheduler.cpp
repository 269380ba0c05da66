// One scheduler thread's loop: completions -> framework tasks -> dispatch, with spin / yield / park backoff.
// The executor is a template parameter, chosen once when the thread starts, so the pass has no branch on it.
#include "scheduler.h"

#include <algorithm>
#include <chrono>

#include "clock.h"
#include "start_delay.h"
#include "pto/runtime/detail/throw.h"
#include "run_phase.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace pto::detail {
namespace {

// Idle passes spent spinning, then yielding, before a scheduler parks. Parking costs a futex round trip
// (microseconds) on wake-up; spinning costs a host core the orchestrator may need on 2-core machines.
constexpr std::uint32_t kSpinPasses = 64;
constexpr std::uint32_t kYieldPasses = 64;
// A parked scheduler with nothing running re-checks at least this often (a guard, not a mechanism: every
// state change that matters unparks it).
constexpr auto kIdleParkLimit = std::chrono::milliseconds(100);

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
}

}  // namespace

/// ReadySource: the dispatch policy's view of the ready queues for one pass. Popping a task takes its
/// queue token: while held, only this thread claims its blocks, so blocks_claimed needs no RMW. A task with
/// blocks left at the end of the pass is pushed back, so other threads can spread its SPMD blocks.
class Scheduler::ReadySource {
  public:
    explicit ReadySource(Engine& engine) : engine_(engine) {}

    [[nodiscard]] bool has(Shape shape) const {
        return held_[index(shape)] != kNoSlot || !engine_.ready.is_empty(shape);
    }

    bool take(Shape shape, std::uint32_t& slot, std::uint32_t& block) {
        std::uint32_t& held = held_[index(shape)];
        if (held == kNoSlot) {
            std::uint32_t popped = kNoSlot;
            if (!engine_.ready.try_pop(shape, popped)) return false;
            held = popped;
        }
        TaskSlot& task = engine_.slots[held];
        // Relaxed: the token's previous holder pushed with release and our pop acquired.
        const std::uint32_t claimed = task.blocks_claimed.load(std::memory_order_relaxed);
        task.blocks_claimed.store(claimed + 1, std::memory_order_relaxed);
        slot = held;
        block = claimed;
        if (claimed + 1 == task.block_num) held = kNoSlot;
        return true;
    }

    /// release: returns held tasks with unclaimed blocks to their queues; true if any was returned.
    bool release() {
        bool returned = false;
        for (std::uint32_t i = 0; i < kHeldShapes; ++i) {
            if (held_[i] == kNoSlot) continue;
            engine_.ready.push(static_cast<Shape>(i), held_[i]);
            held_[i] = kNoSlot;
            returned = true;
        }
        return returned;
    }

  private:
    static constexpr std::uint32_t kHeldShapes = 3;  // AIC, AIV, MIX
    static std::uint32_t index(Shape s) { return static_cast<std::uint32_t>(s); }

    Engine& engine_;
    std::uint32_t held_[kHeldShapes] = {kNoSlot, kNoSlot, kNoSlot};
};

Scheduler::Scheduler(Engine& engine, const RunSettings& settings, ComputePool* compute, std::uint32_t index)
    : engine_(engine),
      settings_(settings),
      compute_(compute),
      index_(index),
      rng_state_(engine.config.seed * 0x9E3779B97F4A7C15ull + index + 1) {
    const RuntimeConfig& config = engine.config;
    const std::vector<std::uint32_t> owned = owned_clusters(config, index);
    cluster_count_ = static_cast<std::uint32_t>(owned.size());
    clusters_ = std::make_unique<ClusterState[]>(cluster_count_);
    for (std::uint32_t i = 0; i < cluster_count_; ++i) {
        const std::uint32_t c = owned[i];
        ClusterState& cluster = clusters_[i];
        cluster.units = config.aic_per_cluster + config.aiv_per_cluster;
        for (std::uint32_t u = 0; u < cluster.units; ++u)
            cluster.unit[u].global_index = global_core_index(config, c, u);
    }
    occupancy_.resize(cluster_count_);
    placements_.resize(cluster_count_ * kMaxUnitsPerCluster * 2);
    ctx_.cancelled_ready.reserve(config.window_tasks);
    finished_blocks_.reserve(placements_.size());
    thread_ = std::thread([this] { thread_main(); });
}

Scheduler::~Scheduler() {
    engine_.shutting_down.store(true, std::memory_order_seq_cst);
    engine_.scheduler_parkers[index_]->unpark();
    thread_.join();
}

void Scheduler::reset_for_run() {
    stats_ = SchedulerStats{};
    stats_.thread = index_;
    ctx_.counters = CompletionCounters{};
    records_.clear();
    aicpu_records_.clear();
    if (settings_.record_subtasks) {
        records_.reserve(engine_.config.window_tasks);
        aicpu_records_.reserve(engine_.config.window_tasks);
    }
}

std::int64_t Scheduler::now_ns() const {
    return steady_ns();
}

std::uint64_t Scheduler::next_random() {
    // splitmix64: a seeded, per-thread sequence for timed-executor jitter.
    std::uint64_t z = (rng_state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void Scheduler::thread_main() {
    const RuntimeThreadMark mark("a scheduler thread");
    switch (engine_.config.executor) {
        case Executor::Instant:
            loop<Executor::Instant>();
            break;
        case Executor::Timed:
            loop<Executor::Timed>();
            break;
        case Executor::Compute:
            loop<Executor::Compute>();
            break;
    }
}

template <Executor E>
void Scheduler::loop() {
    std::uint32_t idle_passes = 0;
    while (!engine_.shutting_down.load(std::memory_order_acquire)) {
        // Epoch first, then the flag: the orchestrator disables dispatch before bumping the epoch, so
        // seeing epoch e (acquire) and then "disabled" proves no pass will run until dispatch is enabled
        // again; acknowledging e tells the orchestrator this thread's statistics are stable.
        const std::uint64_t epoch = engine_.quiesce_epoch.load(std::memory_order_acquire);
        if (!engine_.dispatch_enabled.load(std::memory_order_acquire)) {
            acked_epoch_.store(epoch, std::memory_order_release);
            Parker& parker = *engine_.scheduler_parkers[index_];
            parker.park_until(
                [&] {
                    return engine_.shutting_down.load(std::memory_order_seq_cst) ||
                           engine_.dispatch_enabled.load(std::memory_order_seq_cst);
                },
                Parker::Clock::now() + kIdleParkLimit);
            continue;
        }
        ++stats_.loops;
        if (pass<E>()) {
            ++stats_.busy_loops;
            idle_passes = 0;
            continue;
        }
        ++idle_passes;
        if (idle_passes < kSpinPasses) {
            cpu_relax();
        } else if (idle_passes < kSpinPasses + kYieldPasses) {
            std::this_thread::yield();
        } else {
            const std::int64_t t0 = settings_.profile ? now_ns() : 0;
            park(E == Executor::Timed && has_unfinished_cores());
            if (settings_.profile) stats_.idle_ns += now_ns() - t0;
            idle_passes = 0;
        }
    }
}

template <Executor E>
bool Scheduler::pass() {
    const bool profile = settings_.profile;
    const bool record = settings_.record_subtasks;
    const std::int64_t t0 = profile || record ? now_ns() : 0;
    const std::uint64_t finished_before = ctx_.counters.total();
    const std::uint64_t subtasks_before = stats_.subtasks_completed;
    bool progressed = false;
    std::uint32_t placed_in_pass = 0;
    ctx_.pushed_ready = false;
    std::int64_t now = (E != Executor::Instant || settings_.record_subtasks) ? now_ns() : 0;

    if constexpr (E != Executor::Instant) {
        const bool aborting = engine_.abort_requested.load(std::memory_order_relaxed);
        std::uint32_t busy = 0;
        std::int64_t oldest_start = 0;
        std::uint64_t oldest_task = ~0ull;
        for (ClusterState& cluster : clusters()) {
            for (std::uint32_t u = 0; u < cluster.units; ++u) {
                CoreState& core = cluster.unit[u];
                if (core.running.is_empty()) continue;
                bool finished = false;
                if constexpr (E == Executor::Timed) {
                    if (now >= core.end_ns) {
                        finish_running(cluster, core, 0, nullptr, core.end_ns, now);
                        finished = true;
                    } else if (aborting) [[unlikely]] {
                        // A simulated kernel can simply be cut short when the watchdog aborts the run.
                        std::string error = "aborted by the watchdog before its simulated duration ended";
                        finish_running(cluster, core, -1, &error, now, now);
                        finished = true;
                    }
                } else {
                    // Acquire pairs with the worker's release store: result, error and end_ns are visible.
                    if (core.done.load(std::memory_order_acquire)) {
                        core.done.store(false, std::memory_order_relaxed);
                        finish_running(cluster, core, core.result, &core.error, core.end_ns, now);
                        finished = true;
                    }
                }
                if (finished) {
                    progressed = true;
                    if (!core.running.is_empty()) {
                        if (aborting) [[unlikely]]
                            drop_unstarted(core);
                        else
                            start_running<E>(cluster, core, now);
                    }
                }
                if (!core.running.is_empty()) {
                    ++busy;
                    if (oldest_task == ~0ull || core.start_ns < oldest_start) {
                        oldest_start = core.start_ns;
                        oldest_task = engine_.slot_info[core.running.slot].task_id;
                    }
                }
            }
        }
        busy_cores_.store(busy, std::memory_order_relaxed);
        oldest_task_.store(oldest_task, std::memory_order_relaxed);
        oldest_start_ns_.store(oldest_start, std::memory_order_relaxed);
    }
    flush_finished_blocks();
    const std::int64_t t1 = profile || record ? now_ns() : 0;

    std::uint32_t slot = 0;
    std::uint32_t framework_completed = 0;
    while (engine_.ready.try_pop(Shape::DependencyOnly, slot)) {
        engine_.complete_task(slot, Outcome::Ok, ctx_);
        ++stats_.tasks_completed;
        ++framework_completed;
        progressed = true;
    }

    if (engine_.abort_requested.load(std::memory_order_relaxed)) [[unlikely]] {
        progressed |= engine_.cancel_queued(ctx_);
    } else {
        for (std::uint32_t i = 0; i < cluster_count_; ++i) {
            const ClusterState& cluster = clusters_[i];
            ClusterOccupancy& occ = occupancy_[i];
            occ.units = cluster.units;
            for (std::uint32_t u = 0; u < cluster.units; ++u) {
                occ.running[u] = !cluster.unit[u].running.is_empty();
                occ.pending[u] = !cluster.unit[u].pending.is_empty();
            }
        }
        IdleElsewhere idle_elsewhere;
        if constexpr (E != Executor::Instant) {
            for (std::uint32_t t = 0; t < engine_.config.scheduler_threads; ++t) {
                if (t == index_) continue;
                idle_elsewhere.aic += engine_.idle_cores[t].aic.load(std::memory_order_relaxed);
                idle_elsewhere.aiv += engine_.idle_cores[t].aiv.load(std::memory_order_relaxed);
            }
        }
        ReadySource source(engine_);
        const std::uint32_t placed =
            plan_dispatch(std::span<ClusterOccupancy>(occupancy_), source, E != Executor::Instant,
                          idle_elsewhere, placements_.data());
        if (source.release()) ctx_.pushed_ready = true;
        // Read after the pops: a block's start then never precedes the completion that made it ready, which
        // the ordering tests (and a faithful trace) rely on.
        if (placed != 0 && (E != Executor::Instant || settings_.record_subtasks)) now = now_ns();
        for (std::uint32_t i = 0; i < placed; ++i) {
            const Placement& p = placements_[i];
            ClusterState& cluster = clusters_[p.cluster];
            CoreState& core = cluster.unit[p.unit];
            const std::uint64_t seq = settings_.record_subtasks
                                          ? engine_.record_sequence.fetch_add(1, std::memory_order_relaxed)
                                          : 0;
            const SubtaskRef ref{p.slot, p.block, p.lane, now, seq};
            if (p.lane == 0) ++stats_.subtasks_dispatched;
            if (p.to_pending) {
                core.pending = ref;
                continue;
            }
            core.running = ref;
            if (engine_.slots[p.slot].shape == Shape::MIX && p.lane == 0) {
                cluster.mix_lanes_left = cluster.units;
                cluster.mix_failed = false;
            }
            start_running<E>(cluster, core, now);
        }
        flush_finished_blocks();
        progressed |= placed != 0;
        placed_in_pass = placed;
        if constexpr (E != Executor::Instant) publish_idle_cores();
    }

    const std::uint64_t ended = ctx_.counters.total() - finished_before;
    if (ended != 0)
        engine_.add_finished(ended);
    else if (progressed)
        engine_.note_progress();  // blocks moved: a long SPMD task is not a stall
    if (ctx_.pushed_ready) engine_.wake_schedulers();
    if (profile || record) {
        const std::int64_t t2 = now_ns();
        if (profile) {
            stats_.complete_ns += t1 - t0;
            stats_.dispatch_ns += t2 - t1;
        }
        if (record)
            record_pass(t0, t1, t2, stats_.subtasks_completed - subtasks_before, placed_in_pass,
                        framework_completed);
    }
    return progressed;
}

template <Executor E>
void Scheduler::start_running(ClusterState& cluster, CoreState& core, std::int64_t now) {
    core.start_ns = now;
    const SubtaskRef& ref = core.running;
    if constexpr (E == Executor::Instant) {
        finish_running(cluster, core, 0, nullptr, now, now);
    } else if constexpr (E == Executor::Timed) {
        const FuncId func = engine_.slots[ref.slot].funcs[ref.lane];
        std::int64_t duration =
            func.value < settings_.duration_ns.size() ? settings_.duration_ns[func.value] : 0;
        const double jitter = engine_.config.timed_jitter;
        if (jitter > 0.0) {
            const double unit = static_cast<double>(next_random() >> 11) * 0x1.0p-53;  // [0, 1)
            duration = static_cast<std::int64_t>(static_cast<double>(duration) *
                                                 (1.0 + jitter * (2.0 * unit - 1.0)));
        }
        core.end_ns = now + duration;
    } else {
        // One draw per jitter that is on: without jitter the compute executor touches no random state.
        const RuntimeConfig& config = engine_.config;
        const auto draw = [this] { return static_cast<double>(next_random() >> 11) * 0x1.0p-53; };  // [0, 1)
        std::int64_t duration = 0;
        double unit_relative = 0.0, unit_absolute = 0.0;
        if (config.timed_jitter > 0.0) {
            const FuncId func = engine_.slots[ref.slot].funcs[ref.lane];
            duration = func.value < settings_.duration_ns.size() ? settings_.duration_ns[func.value] : 0;
            unit_relative = draw();
        }
        if (config.compute_start_jitter_us > 0.0) unit_absolute = draw();
        const std::int64_t delay = compute_start_delay_ns(config, duration, unit_relative, unit_absolute);
        compute_->submit(ComputeJob{&engine_, &core, ref.slot, ref.block, ref.lane, index_, delay,
                                    settings_.record_subtasks});
    }
}

void Scheduler::record_pass(std::int64_t t0, std::int64_t t1, std::int64_t t2, std::uint64_t finished,
                            std::uint32_t placed, std::uint64_t framework_completed) {
    // Only passes that did something: idle polling would swamp the trace and the memory.
    const std::int64_t base = settings_.start_ns;
    const std::uint32_t thread = 1 + index_;
    if (finished != 0)
        aicpu_records_.push_back(AicpuRecord{thread, AicpuActivity::Complete,
                                             static_cast<std::uint32_t>(finished), TaskId{}, t0 - base,
                                             t1 - base});
    if (placed != 0 || framework_completed != 0)
        aicpu_records_.push_back(
            AicpuRecord{thread, AicpuActivity::Dispatch, placed, TaskId{}, t1 - base, t2 - base});
}

void Scheduler::finish_running(ClusterState& cluster, CoreState& core, int status, std::string* error,
                               std::int64_t end_ns, std::int64_t now) {
    const SubtaskRef ref = core.running;
    core.running = core.pending;  // the caller starts the promoted subtask
    core.pending = SubtaskRef{};
    ++stats_.subtasks_completed;

    TaskSlot& task = engine_.slots[ref.slot];
    if (settings_.record_subtasks) {
        const std::int64_t base = settings_.start_ns;
        SubtaskRecord& r = records_.emplace_back();
        r.task = engine_.task_id_of(ref.slot);
        r.func = task.funcs[ref.lane];
        r.block_idx = ref.block;
        r.core = core.global_index;
        r.lane = ref.lane;
        r.scheduler = static_cast<std::uint8_t>(index_);
        r.core_type = task.shape == Shape::MIX ? CoreType::MIX
                                               : (task.shape == Shape::AIC ? CoreType::AIC : CoreType::AIV);
        r.dispatch_ns = ref.dispatch_ns - base;
        r.handoff_ns = core.start_ns - base;
        // Only the compute executor runs the body later than the handoff (on a pool worker).
        r.start_ns =
            (engine_.config.executor == Executor::Compute ? core.body_start_ns : core.start_ns) - base;
        r.end_ns = end_ns - base;
        // The pass read `now` before it saw this kernel end, which a compute worker stamps just before it
        // releases `done`: the completion was handled no earlier than both.
        r.finish_ns = std::max(now, end_ns) - base;
        r.dispatch_seq = ref.dispatch_seq;
        r.finish_seq = engine_.record_sequence.fetch_add(1, std::memory_order_relaxed);
    }

    // Read before the block count below: once another thread finishes the last block, the task may retire
    // and its slot be reused at any moment.
    const std::uint32_t block_num = task.block_num;
    bool failed = status != 0;
    if (failed) [[unlikely]] {
        engine_.record_failure(ref.slot, error != nullptr ? std::move(*error) : std::string("kernel failed"));
    }
    if (task.shape == Shape::MIX) {
        cluster.mix_failed |= failed;
        if (--cluster.mix_lanes_left != 0) return;
        failed = cluster.mix_failed;
    }
    // Blocks of one task finishing in one pass are counted with one RMW (flush_finished_blocks): an SPMD
    // launch of n blocks costs one atomic per pass instead of n.
    if (!finished_blocks_.empty() && finished_blocks_.back().slot == ref.slot) {
        FinishedBlocks& batch = finished_blocks_.back();
        ++batch.count;
        batch.failed |= failed;
    } else {
        finished_blocks_.push_back(FinishedBlocks{ref.slot, 1, block_num, failed});
    }
}

void Scheduler::flush_finished_blocks() {
    for (const FinishedBlocks& batch : finished_blocks_) {
        TaskSlot& task = engine_.slots[batch.slot];
        // Ordered before the block count (release) so the thread finishing the last block sees it.
        if (batch.failed) task.outcome.store(Outcome::Failed, std::memory_order_relaxed);
        // acq_rel: the thread counting the last block owns the task's completion. Nothing else of the slot
        // is read after this unless that thread is us (block_num was read while a block was still ours).
        if (task.blocks_finished.fetch_add(batch.count, std::memory_order_acq_rel) + batch.count !=
            batch.block_num)
            continue;
        ++stats_.tasks_completed;
        engine_.complete_task(batch.slot, task.outcome.load(std::memory_order_relaxed), ctx_);
    }
    finished_blocks_.clear();
}

void Scheduler::drop_unstarted(CoreState& core) {
    // After an abort a block pre-loaded into the pending slot never starts. It ends like a cancelled queue
    // entry: a one-block task is cancelled, a wider one fails (other blocks may have run).
    const SubtaskRef ref = core.running;
    core.running = SubtaskRef{};
    TaskSlot& task = engine_.slots[ref.slot];
    const std::uint32_t block_num = task.block_num;
    if (block_num == 1) {
        task.outcome.store(Outcome::Cancelled, std::memory_order_relaxed);
    } else {
        task.outcome.store(Outcome::Failed, std::memory_order_relaxed);
        engine_.record_failure(
            ref.slot, "aborted after a stall: block " + std::to_string(ref.block) + " never started");
    }
    // acq_rel: the last block's thread owns the task's completion (as in finish_running).
    if (task.blocks_finished.fetch_add(1, std::memory_order_acq_rel) + 1 != block_num) return;
    engine_.complete_task(ref.slot, task.outcome.load(std::memory_order_relaxed), ctx_);
}

void Scheduler::publish_idle_cores() {
    std::uint32_t aic = 0;
    std::uint32_t aiv = 0;
    for (const ClusterState& cluster : clusters())
        for (std::uint32_t u = 0; u < cluster.units; ++u)
            if (cluster.unit[u].running.is_empty()) ++(u == 0 ? aic : aiv);
    // Relaxed: a hint for the other threads' policy (see Engine::IdleCores).
    engine_.idle_cores[index_].aic.store(aic, std::memory_order_relaxed);
    engine_.idle_cores[index_].aiv.store(aiv, std::memory_order_relaxed);
}

bool Scheduler::has_unfinished_cores() const {
    for (const ClusterState& cluster : clusters())
        for (std::uint32_t u = 0; u < cluster.units; ++u)
            if (!cluster.unit[u].running.is_empty()) return true;
    return false;
}

std::int64_t Scheduler::earliest_end_ns() const {
    std::int64_t earliest = INT64_MAX;
    for (const ClusterState& cluster : clusters())
        for (std::uint32_t u = 0; u < cluster.units; ++u)
            if (!cluster.unit[u].running.is_empty()) earliest = std::min(earliest, cluster.unit[u].end_ns);
    return earliest;
}

void Scheduler::park(bool timed_cores_busy) {
    ++stats_.parks;
    auto deadline = Parker::Clock::now() + kIdleParkLimit;
    if (timed_cores_busy) {
        const auto until_end =
            std::chrono::nanoseconds(std::max<std::int64_t>(0, earliest_end_ns() - now_ns()));
        deadline = std::min(deadline, Parker::Clock::now() + until_end);
    }
    // seq_cst: pairs with the fence in Engine::wake_schedulers (a pusher either sees this count or this
    // thread's check below sees its push).
    engine_.sleeping_schedulers.fetch_add(1, std::memory_order_seq_cst);
    engine_.scheduler_parkers[index_]->park_until(
        [&] {
            if (engine_.shutting_down.load(std::memory_order_seq_cst) ||
                !engine_.dispatch_enabled.load(std::memory_order_seq_cst) || !engine_.ready.all_empty())
                return true;
            for (const ClusterState& cluster : clusters())
                for (std::uint32_t u = 0; u < cluster.units; ++u)
                    if (cluster.unit[u].done.load(std::memory_order_acquire)) return true;
            return false;
        },
        deadline);
    engine_.sleeping_schedulers.fetch_sub(1, std::memory_order_seq_cst);
}

}  // namespace pto::detail
