// One scheduler thread: the back end of the shared pass (scheduler_pass.h) on real threads, and the loop
// around it with spin / yield / park backoff. The executor is a template parameter, chosen once when the
// thread starts, so the pass has no branch on it.
#include "scheduler.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "clock.h"
#include "host_cpus.h"
#include "start_delay.h"
#include "pto/runtime/detail/throw.h"
#include "run_phase.h"

namespace pto::detail {
namespace {

// Idle passes spent spinning, then yielding, before a scheduler parks. Parking costs a futex round trip
// (microseconds) on wake-up; spinning costs a host core the orchestrator may need on 2-core machines.
constexpr std::uint32_t kSpinPasses = 64;
constexpr std::uint32_t kYieldPasses = 64;
// Instant executor: its spin is a wait of kBatchWaitNs after each idle pass, unless the orchestrator stops
// submitting (Scheduler::wait_for_batch), and kBatchWaitPasses of them make its spinning phase.
constexpr std::int64_t kBatchWaitNs = 50'000;
constexpr std::uint32_t kBatchWaitPasses = 4;
// The orchestrator scheduling in a sleeping thread's place stops after this long without work.
constexpr std::int64_t kHelpIdleNs = 20'000;
// A parked scheduler with nothing running re-checks at least this often (a guard, not a mechanism: every
// state change that matters unparks it).
constexpr auto kIdleParkLimit = std::chrono::milliseconds(100);

/// spin_until: pauses the core until stop() holds (true) or the steady clock reaches `until_ns` (false),
/// checking both every few pauses: the timed spins of an idle scheduler (a batch wait, the linger).
template <class Stop>
bool spin_until(std::int64_t until_ns, Stop&& stop) {
    do {
        for (int i = 0; i < 8; ++i)
            cpu_relax();
        if (stop()) return true;
    } while (steady_ns() < until_ns);
    return false;
}

}  // namespace

/// EngineQueues: the thread's stash, then the lock-free ready queues, as HeldReadySource takes blocks from
/// them. Popping a task takes its queue token: while held, only this thread claims its blocks, so
/// blocks_claimed needs no RMW. A task handed back with blocks left goes to the shared queue, where other
/// threads can spread its blocks; with the instant executor to the stash first (see keep_returned).
class EngineQueues {
  public:
    /// keep_returned: a task handed back with unclaimed blocks goes to the thread's stash (the pass's next
    /// dispatch round takes it, local_ready.h) rather than to the shared queue.
    EngineQueues(Engine& engine, LocalReady& local, bool keep_returned)
        : engine_(engine), local_(local), keep_returned_(keep_returned) {}

    bool try_pop(Shape shape, std::uint32_t& slot) {
        return local_.try_pop(shape, slot) || engine_.ready.try_pop(shape, slot);
    }
    /// push: a task handed back by the dispatch plan (HeldReadySource::release).
    void push(Shape shape, std::uint32_t slot) {
        if (keep_returned_ && local_.try_push(shape, slot)) return;
        engine_.ready.push(shape, slot);
    }
    [[nodiscard]] bool is_empty(Shape shape) const {
        return local_.is_empty(shape) && engine_.ready.is_empty(shape);
    }
    std::uint32_t claim_block(std::uint32_t slot) {
        TaskSlot& task = engine_.tasks[slot];
        // Relaxed: the token's previous holder pushed with release and our pop acquired.
        const std::uint32_t claimed = task.blocks_claimed.load(std::memory_order_relaxed);
        task.blocks_claimed.store(claimed + 1, std::memory_order_relaxed);
        return claimed;
    }
    [[nodiscard]] std::uint32_t block_num(std::uint32_t slot) const { return engine_.tasks[slot].block_num; }

  private:
    Engine& engine_;
    LocalReady& local_;
    bool keep_returned_;
};

/// Scheduler::Backend: the shared pass on real threads. The clock is the steady clock (read once per phase,
/// not per subtask), a subtask ends when the executor says so (timed: its end time passed; compute: the
/// worker set `done`; instant: as it starts), and completions go through the Engine's protocol, with the
/// blocks of one task that end in one pass counted by one RMW (flush_finished_blocks).
template <Executor E>
class Scheduler::Backend {
  public:
    using Cluster = ClusterState;
    using Ref = SubtaskRef;
    static constexpr bool kPollsCores = E != Executor::Instant;
    // This thread starts a promoted subtask itself, at the poll: it cannot have ended by then.
    static constexpr bool kPendingMayHaveEnded = false;

    // With the instant executor a task whose blocks outnumber this thread's cores comes back after every
    // round; through the shared queue that cost a push and a pop, five compare-and-swaps, each time (perf).
    explicit Backend(Scheduler& scheduler)
        : s_(scheduler),
          engine_(scheduler.engine_),
          queues_(scheduler.engine_, scheduler.local_ready_, /*keep_returned=*/E == Executor::Instant) {}

    [[nodiscard]] std::span<ClusterState> clusters() const { return s_.clusters(); }
    EngineQueues& ready() { return queues_; }

    // ---- collect
    void begin_pass() {
        timed_ = s_.settings_.profile || s_.settings_.record_subtasks;
        t0_ = timed_ ? now_ns() : 0;
        finished_before_ = s_.ctx_.counters.total();
        subtasks_before_ = s_.stats_.subtasks_completed;
        framework_completed_ = 0;
        placed_ = 0;
        dispatch_rounds_ = 0;
        s_.ctx_.pushed_ready = false;
        now_ = (E != Executor::Instant || s_.settings_.record_subtasks) ? now_ns() : 0;
        if constexpr (kPollsCores) {
            aborting_ = engine_.control.abort_requested();
            busy_ = 0;
            oldest_start_ = 0;
            oldest_task_ = ~0ull;
        }
    }
    void charge_poll() {}
    std::optional<SubtaskEnd> ended(ClusterState&, CoreState& core) {
        if constexpr (E == Executor::Timed) {
            if (now_ >= core.end_ns) return SubtaskEnd{core.start_ns, core.start_ns, core.end_ns, false};
            if (aborting_) [[unlikely]] {
                // A simulated kernel can simply be cut short when the watchdog aborts the run.
                engine_.record_failure(core.running.slot,
                                       "aborted by the watchdog before its simulated duration ended");
                return SubtaskEnd{core.start_ns, core.start_ns, now_, true};
            }
            return std::nullopt;
        } else {
            // Acquire pairs with the worker's release store: result, error and the times are visible.
            if (!core.done.load(std::memory_order_acquire)) return std::nullopt;
            core.done.store(false, std::memory_order_relaxed);
            const bool failed = core.result != 0;
            // Now, before the promoted subtask's worker may overwrite the core's error.
            if (failed) [[unlikely]]
                engine_.record_failure(core.running.slot, std::move(core.error));
            // Only the compute executor runs the body later than the handoff (on a pool worker).
            return SubtaskEnd{core.start_ns, core.body_start_ns, core.end_ns, failed};
        }
    }
    void promoted(ClusterState&, CoreState& core) {
        if (aborting_) [[unlikely]]
            s_.drop_unstarted(core);
        else
            s_.start_running<E>(core, now_);
    }
    void collected(const CoreState& core) {
        if (core.running.is_empty()) return;
        ++busy_;
        if (oldest_task_ == ~0ull || core.start_ns < oldest_start_) {
            oldest_start_ = core.start_ns;
            oldest_task_ = engine_.tasks.info(core.running.slot).task_id;
        }
    }
    void end_collect() {
        s_.busy_cores_.store(busy_, std::memory_order_relaxed);
        s_.oldest_task_.store(oldest_task_, std::memory_order_relaxed);
        s_.oldest_start_ns_.store(oldest_start_, std::memory_order_relaxed);
    }

    // ---- complete
    [[nodiscard]] bool recording() const { return s_.settings_.record_subtasks; }
    SubtaskRecord& new_record() { return s_.records_.emplace_back(); }
    [[nodiscard]] SubtaskFacts facts(std::uint32_t slot, std::uint8_t lane) const {
        const TaskSlot& task = engine_.tasks[slot];
        const CoreType type = task.shape == Shape::MIX
                                  ? CoreType::MIX
                                  : (task.shape == Shape::AIC ? CoreType::AIC : CoreType::AIV);
        return SubtaskFacts{engine_.tasks.task_id_of(slot), task.funcs[lane], type};
    }
    /// finish_ns: the pass read its clock before it saw this kernel end, which a compute worker stamps
    /// just before it releases `done`: the completion was handled no earlier than both.
    [[nodiscard]] std::int64_t finish_ns(const SubtaskEnd& end) const { return std::max(now_, end.end_ns); }
    [[nodiscard]] std::int64_t time_base() const { return s_.settings_.start_ns; }
    [[nodiscard]] std::uint32_t index() const { return s_.index_; }
    std::uint64_t finish_seq() { return engine_.progress.next_record_stamp(); }
    [[nodiscard]] Shape shape_of(std::uint32_t slot) const { return engine_.tasks[slot].shape; }
    void lane_ended(const SubtaskRef&, const SubtaskEnd&) { ++s_.stats_.subtasks_completed; }
    void block_ended(std::uint32_t slot, bool failed) { s_.block_finished(slot, failed); }
    void completions_done() {
        s_.flush_finished_blocks();
        t1_ = timed_ ? now_ns() : 0;
    }

    // ---- dependency-only
    void complete_dependency_only(std::uint32_t slot) {
        engine_.complete_task(slot, Outcome::Ok, s_.ctx_);
        ++s_.stats_.tasks_completed;
        ++framework_completed_;
    }

    // ---- dispatch
    void begin_dispatch() {}
    [[nodiscard]] bool aborting() const { return engine_.control.abort_requested(); }
    bool cancel_queued() {
        hand_over_stash();
        return engine_.cancel_queued(s_.ctx_);
    }
    [[nodiscard]] IdleElsewhere idle_elsewhere() const {
        IdleElsewhere idle;
        if constexpr (E != Executor::Instant) {
            const WakeUps::IdleCount elsewhere = engine_.wake.idle_elsewhere(s_.index_);
            idle.aic = elsewhere.aic;
            idle.aiv = elsewhere.aiv;
        }
        return idle;
    }
    [[nodiscard]] static constexpr bool use_pending_slots() { return E != Executor::Instant; }
    void pushed_back() { s_.ctx_.pushed_ready = true; }
    void begin_writes(std::uint32_t placed) {
        // Read after the pops: a block's start then never precedes the completion that made it ready, which
        // the ordering tests (and a faithful trace) rely on.
        if (placed != 0 && (E != Executor::Instant || s_.settings_.record_subtasks)) now_ = now_ns();
    }
    void charge_write(std::uint32_t) { ++s_.stats_.subtasks_dispatched; }
    SubtaskRef make_ref(const Placement& p, const CoreState&) {
        const std::uint64_t seq = s_.settings_.record_subtasks ? engine_.progress.next_record_stamp() : 0;
        return SubtaskRef{p.slot, p.block, p.lane, now_, seq};
    }
    std::optional<SubtaskEnd> start(ClusterState&, CoreState& core) {
        if constexpr (E == Executor::Instant) {
            return SubtaskEnd{now_, now_, now_, false};
        } else {
            s_.start_running<E>(core, now_);
            return std::nullopt;
        }
    }
    void end_dispatch(std::uint32_t placed) {
        s_.flush_finished_blocks();
        placed_ += placed;
        ++dispatch_rounds_;
        if constexpr (E != Executor::Instant) s_.publish_idle_cores();
    }
    /// redispatch: whether the pass dispatches again before it ends. With the instant executor the blocks
    /// of a round end as they are written, and the flush above may have made their consumers ready into
    /// the stash: dispatching them in this pass keeps a chain on this thread. Bounded, so the pass still
    /// publishes its progress regularly.
    [[nodiscard]] bool redispatch() const {
        return E == Executor::Instant && dispatch_rounds_ < kMaxDispatchRounds && !s_.local_ready_.is_empty();
    }

    // ---- publish
    void end_pass(bool progressed) {
        hand_over_stash();
        const std::uint64_t ended = s_.ctx_.counters.total() - finished_before_;
        if (ended != 0)
            engine_.add_finished(ended);
        else if (progressed)
            engine_.progress.note_progress();  // blocks moved: a long SPMD task is not a stall
        if (s_.ctx_.pushed_ready) engine_.wake.wake_sleeping_schedulers();
        if (!timed_) return;
        const std::int64_t t2 = now_ns();
        if (s_.settings_.profile) {
            s_.stats_.complete_ns += t1_ - t0_;
            s_.stats_.dispatch_ns += t2 - t1_;
        }
        if (s_.settings_.record_subtasks)
            s_.record_pass(t0_, t1_, t2, s_.stats_.subtasks_completed - subtasks_before_, placed_,
                           framework_completed_);
    }

  private:
    static constexpr std::uint32_t kMaxDispatchRounds = 16;

    [[nodiscard]] std::int64_t now_ns() const { return s_.now_ns(); }
    /// hand_over_stash: what the stash still holds goes to the shared queues, for any thread to take.
    void hand_over_stash() {
        if (s_.local_ready_.drain([&](Shape shape, std::uint32_t slot) { engine_.ready.push(shape, slot); }))
            s_.ctx_.pushed_ready = true;
    }

    Scheduler& s_;
    Engine& engine_;
    EngineQueues queues_;
    bool timed_ = false;  // profiling or recording: the pass's phases are timed
    bool aborting_ = false;
    std::int64_t now_ = 0;
    std::int64_t t0_ = 0, t1_ = 0;
    std::uint64_t finished_before_ = 0;
    std::uint64_t subtasks_before_ = 0;
    std::uint64_t framework_completed_ = 0;
    std::uint32_t placed_ = 0;
    std::uint32_t dispatch_rounds_ = 0;
    std::uint32_t busy_ = 0;
    std::int64_t oldest_start_ = 0;
    std::uint64_t oldest_task_ = ~0ull;
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
    pass_.prepare(cluster_count_);
    const std::uint32_t cpus = usable_cpus();
    if (config.orchestration == OrchestrationMode::Concurrent && cpus > 1)
        linger_ns_ = std::int64_t{config.scheduler_linger_us} * 1000;
    linger_limit_ = schedulers_beside_orchestrator(config.scheduler_threads, cpus);
    ctx_.cancelled_ready.reserve(config.window_tasks);
    ctx_.local_ready = &local_ready_;
    finished_capacity_ = static_cast<std::uint32_t>(
        std::max<std::size_t>({1, pass_.placements.size(), pass_.ended.capacity()}));
    finished_blocks_ = std::make_unique<FinishedBlocks[]>(finished_capacity_);
    thread_ = std::thread([this] { thread_main(); });
}

Scheduler::~Scheduler() {
    engine_.control.shut_down();
    engine_.wake.wake_scheduler(index_);
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

double Scheduler::draw_unit() {
    return static_cast<double>(next_random() >> 11) * 0x1.0p-53;
}

std::int64_t Scheduler::scaled_duration_ns(FuncId func) const {
    return func.value < settings_.duration_ns.size() ? settings_.duration_ns[func.value] : 0;
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
    Backend<E> backend(*this);
    SchedulerPass pass(backend, pass_);
    std::uint32_t idle_passes = 0;
    while (!engine_.control.shutting_down()) {
        // Epoch first, then the flag: the orchestrator disables dispatch before bumping the epoch, so
        // seeing epoch e (acquire) and then "disabled" proves no pass will run until dispatch is enabled
        // again; acknowledging e tells the orchestrator this thread's statistics are stable.
        const std::uint64_t epoch = engine_.control.quiesce_epoch();
        if (!engine_.control.dispatch_enabled()) {
            // seq_cst, then the unpark: the orchestrator may be parked in quiesce_schedulers waiting for
            // this acknowledgement (Parker protocol); a load when it is not.
            if (acked_epoch_.load(std::memory_order_relaxed) != epoch) {
                acked_epoch_.store(epoch, std::memory_order_seq_cst);
                engine_.wake.wake_orchestrator();
                if (wait_for_next_run()) continue;
            }
            // Counted asleep like an idle park: once dispatch is enabled, a push wakes this thread only if
            // the awake ones are too few (WakeUps::wake_sleeping_schedulers).
            sleep_in_seat([&] {
                sleep_until(
                    [&] {
                        return engine_.control.shutting_down(std::memory_order_seq_cst) ||
                               engine_.control.dispatch_enabled(std::memory_order_seq_cst);
                    },
                    Parker::Clock::now() + kIdleParkLimit);
            });
            continue;
        }
        if constexpr (E == Executor::Instant) {
            if (engine_.progress.orchestrator_scheduling()) {
                stand_aside();
                continue;
            }
        }
        ++stats_.loops;
        if (pass.run()) {
            ++stats_.busy_loops;
            idle_passes = 0;
            continue;
        }
        ++idle_passes;
        // Idle passes 1..spin_passes spin, the next kYieldPasses yield, the one after parks.
        constexpr std::uint32_t spin_passes = E == Executor::Instant ? kBatchWaitPasses : kSpinPasses;
        // More schedulers awake than the host's CPUs allow for (instant executor): the others take the
        // work, this one parks at once instead of spinning against them and the orchestrator.
        if (engine_.wake.over_awake_limit()) idle_passes = spin_passes + kYieldPasses + 1;
        if (idle_passes <= spin_passes) {
            if constexpr (E == Executor::Instant)
                wait_for_batch();
            else
                cpu_relax();
        } else if (idle_passes <= spin_passes + kYieldPasses) {
            std::this_thread::yield();
        } else {
            // Read before the park: the orchestrator may take a sleeping scheduler for quiesced
            // (quiesce_schedulers) and rewrite the settings for the next run while it sleeps; without
            // profiling nothing here touches them, or the statistics, after the park.
            const bool profile = settings_.profile;
            const std::int64_t t0 = profile ? now_ns() : 0;
            ++stats_.parks;
            const bool timed_cores_busy = E == Executor::Timed && has_unfinished_cores();
            sleep_in_seat([&] { park(timed_cores_busy); });
            if (profile) stats_.idle_ns += now_ns() - t0;
            idle_passes = 0;
        }
    }
}

template <Executor E>
void Scheduler::start_running(CoreState& core, std::int64_t now) {
    core.start_ns = now;
    const SubtaskRef& ref = core.running;
    const FuncId func = engine_.tasks[ref.slot].funcs[ref.lane];
    const double jitter = engine_.config.timed_jitter;
    if constexpr (E == Executor::Timed) {
        std::int64_t duration = scaled_duration_ns(func);
        if (jitter > 0.0)
            duration = static_cast<std::int64_t>(static_cast<double>(duration) *
                                                 (1.0 + jitter * (2.0 * draw_unit() - 1.0)));
        core.end_ns = now + duration;
    } else {
        // One draw per jitter that is on: without jitter the compute executor touches no random state.
        std::int64_t duration = 0;
        double unit_relative = 0.0, unit_absolute = 0.0;
        if (jitter > 0.0) {
            duration = scaled_duration_ns(func);
            unit_relative = draw_unit();
        }
        if (engine_.config.compute_start_jitter_us > 0.0) unit_absolute = draw_unit();
        const std::int64_t delay =
            compute_start_delay_ns(engine_.config, duration, unit_relative, unit_absolute);
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

void Scheduler::flush_finished_blocks() {
    // The batch's successful releases are summed per consumer and applied below (release_batch.h); one
    // task's consumers are distinct, so a batch of one has nothing to sum.
    if (finished_count_ > 1) ctx_.releases = &releases_;
    for (std::uint32_t i = 0; i < finished_count_; ++i) {
        const FinishedBlocks& batch = finished_blocks_[i];
        TaskSlot& task = engine_.tasks[batch.slot];
        // Ordered before the block count (release) so the thread finishing the last block sees it.
        if (batch.failed) task.outcome.store(Outcome::Failed, std::memory_order_relaxed);
        // Every block ended here (a one-block task, or all of an SPMD task's in one pass): no other thread
        // holds one, so this thread completes the task without counting (a locked add per task, perf).
        // Otherwise, acq_rel: the thread counting the last block owns the task's completion. Nothing else
        // of the slot is read after this unless that thread is us (block_num was read while a block was
        // still ours).
        if (batch.count != batch.block_num &&
            task.blocks_finished.fetch_add(batch.count, std::memory_order_acq_rel) + batch.count !=
                batch.block_num)
            continue;
        ++stats_.tasks_completed;
        engine_.complete_task(batch.slot, task.outcome.load(std::memory_order_relaxed), ctx_);
    }
    finished_count_ = 0;
    if (ctx_.releases != nullptr) {
        if (!releases_.is_empty()) engine_.apply_releases(ctx_);
        ctx_.releases = nullptr;
    }
}

void Scheduler::drop_unstarted(CoreState& core) {
    // After an abort a block pre-loaded into the pending slot never starts. It ends like a cancelled queue
    // entry: a one-block task is cancelled, a wider one fails (other blocks may have run).
    const SubtaskRef ref = core.running;
    core.running = SubtaskRef{};
    TaskSlot& task = engine_.tasks[ref.slot];
    const std::uint32_t block_num = task.block_num;
    if (block_num == 1) {
        task.outcome.store(Outcome::Cancelled, std::memory_order_relaxed);
    } else {
        task.outcome.store(Outcome::Failed, std::memory_order_relaxed);
        engine_.record_failure(
            ref.slot, "aborted after a stall: block " + std::to_string(ref.block) + " never started");
    }
    // acq_rel: the last block's thread owns the task's completion (as in flush_finished_blocks).
    if (task.blocks_finished.fetch_add(1, std::memory_order_acq_rel) + 1 != block_num) return;
    engine_.complete_task(ref.slot, task.outcome.load(std::memory_order_relaxed), ctx_);
}

void Scheduler::publish_idle_cores() {
    std::uint32_t aic = 0;
    std::uint32_t aiv = 0;
    for (const ClusterState& cluster : clusters())
        for (std::uint32_t u = 0; u < cluster.units; ++u)
            if (cluster.unit[u].running.is_empty()) ++(u == 0 ? aic : aiv);
    // A hint for the other threads' policy (see WakeUps::publish_idle).
    engine_.wake.publish_idle(index_, WakeUps::IdleCount{aic, aiv});
}

void Scheduler::wait_for_batch() {
    // With the instant executor no core is ever busy, so an idle scheduler waits for the orchestrator
    // alone. Polling at once would take each task as it is published and complete it while the
    // orchestrator still works beside it: the feed's indices, the task's slot and its edges then cross
    // between the CPUs once per task, and the orchestrator stalls on them (its own cost rose 1.5-5x in
    // concurrent runs of paged attention). Waiting lets a batch build up that crosses together. The wait
    // ends early once the orchestrator stops submitting (a wait of its own, or the end of its
    // orchestration), so neither its waits nor the run's end pay for it; the loads below read lines that
    // change only then, so spinning on them costs the orchestrator nothing.
    if (engine_.progress.orchestrator_stopped()) return;
    ++stats_.batch_waits;
    waiting_for_batch_.store(true, std::memory_order_relaxed);
    spin_until(now_ns() + kBatchWaitNs, [&] {
        return engine_.progress.orchestrator_stopped() ||
               !engine_.control.dispatch_enabled(std::memory_order_relaxed) ||
               engine_.control.shutting_down(std::memory_order_relaxed);
    });
    waiting_for_batch_.store(false, std::memory_order_relaxed);
}

void Scheduler::stand_aside() {
    // The orchestrator schedules the end of the run on its own CPU, where the tasks it just submitted are
    // in cache: a second thread taking tasks beside it pulls each task's line across the CPUs and pushes
    // its consumers' lines back (end to end 1.2-1.6x slower than leaving them to one thread, measured).
    spin_until(now_ns() + kBatchWaitNs, [&] {
        return !engine_.progress.orchestrator_scheduling() ||
               !engine_.control.dispatch_enabled(std::memory_order_relaxed) ||
               engine_.control.shutting_down(std::memory_order_relaxed);
    });
}

bool Scheduler::wait_for_next_run() {
    // Runs often follow each other within microseconds (a decode loop, a benchmark's repetitions), and a
    // parked thread takes tens of microseconds to wake on a virtual machine: the next run's start would
    // pay that, and its orchestrator the futex call. Not in serial mode (dispatch stays disabled through
    // the next orchestration, which the spin would share the machine with) nor on one CPU (linger_ns_ 0).
    // At most one per CPU but the orchestrator's spins. The spin reads only the dispatch switches: the
    // orchestrator resets this thread's statistics and the run settings meanwhile, before it enables
    // dispatch (acquire below). A new quiesce (a deadlock proof, a recovery) ends the spin too: it waits
    // for this thread's acknowledgement, which the loop gives.
    if (linger_ns_ == 0 || !engine_.wake.try_linger(linger_limit_)) return false;
    const std::uint64_t acknowledged = acked_epoch_.load(std::memory_order_relaxed);
    const bool next = spin_until(now_ns() + linger_ns_, [&] {
        if (engine_.control.shutting_down(std::memory_order_relaxed) ||
            engine_.control.quiesce_epoch() != acknowledged)
            return true;
        if (!engine_.control.dispatch_enabled(std::memory_order_acquire)) return false;
        stats_.awake_at_run_start = 1;
        return true;
    });
    engine_.wake.stop_lingering();
    return next;
}

template <class Sleep>
void Scheduler::sleep_in_seat(Sleep&& sleep) {
    // Everything a pass needs is as the next pass expects it here (the stash and the finished batch are
    // empty between passes), so the orchestrator may run passes in this thread's place while it sleeps.
    engine_.wake.offer_seat(index_);
    sleep();
    while (!engine_.wake.reclaim_seat(index_)) {
        // Lent: the orchestrator runs this scheduler's passes until the run drains; it wakes this thread
        // when it gives the seat back.
        sleep_until(
            [&] {
                return engine_.wake.seat_returned(index_) ||
                       engine_.control.shutting_down(std::memory_order_seq_cst);
            },
            Parker::Clock::now() + kIdleParkLimit);
    }
}

template <class Check>
void Scheduler::sleep_until(Check&& check, Parker::Clock::time_point deadline) {
    // Pairs with the fence in WakeUps::wake_sleeping_schedulers (a pusher either sees this count or this
    // thread's check sees its push).
    engine_.wake.enter_sleep();
    engine_.wake.scheduler_parker(index_).park_until(std::forward<Check>(check), deadline);
    engine_.wake.leave_sleep();
}

bool Scheduler::help_until_drained() {
    // The orchestrator's CPU is free once its orchestration function returned; the sleeping thread whose
    // place it takes would need a wake-up (tens of microseconds on a virtual machine) to use it, and the
    // work the orchestrator just published is in its own cache. It gives up after a while without work:
    // the awake schedulers hold the rest, or something is stuck and the run's end waits as before (the
    // watchdog keeps watching).
    PTO_ASSERT(engine_.config.executor == Executor::Instant, "helping needs subtasks that end as they start");
    Backend<Executor::Instant> backend(*this);
    SchedulerPass pass(backend, pass_);
    std::int64_t idle_since = 0;
    while (!engine_.progress.is_drained()) {
        if (!engine_.control.dispatch_enabled(std::memory_order_acquire) ||
            engine_.control.abort_requested() || engine_.control.shutting_down(std::memory_order_relaxed))
            return false;
        ++stats_.loops;
        ++stats_.orchestrator_loops;
        if (pass.run()) {
            ++stats_.busy_loops;
            idle_since = 0;
            continue;
        }
        const std::int64_t now = now_ns();
        if (idle_since == 0) idle_since = now;
        if (now - idle_since > kHelpIdleNs) return engine_.progress.is_drained();
        cpu_relax();
    }
    return true;
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
    auto deadline = Parker::Clock::now() + kIdleParkLimit;
    if (timed_cores_busy) {
        const auto until_end =
            std::chrono::nanoseconds(std::max<std::int64_t>(0, earliest_end_ns() - now_ns()));
        deadline = std::min(deadline, Parker::Clock::now() + until_end);
    }
    sleep_until(
        [&] {
            if (engine_.control.shutting_down(std::memory_order_seq_cst) ||
                !engine_.control.dispatch_enabled(std::memory_order_seq_cst) || !engine_.ready.all_empty())
                return true;
            for (const ClusterState& cluster : clusters())
                for (std::uint32_t u = 0; u < cluster.units; ++u)
                    if (cluster.unit[u].done.load(std::memory_order_acquire)) return true;
            return false;
        },
        deadline);
}

}  // namespace pto::detail
