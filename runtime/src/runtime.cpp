// The Runtime facade and the run lifecycle: construction of the shared state and threads, begin_run,
// end_orchestration, end_run (drain, quiesce, retire, report) and the stall abort path.
#include "pto/runtime/runtime.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#include "logging.h"
#include "pto/runtime/detail/throw.h"
#include "runtime_impl.h"

namespace pto {
namespace {

std::int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

const RuntimeConfig& validated(const RuntimeConfig& config) {
    config.validate();
    return config;
}

}  // namespace

// ---- Impl: construction --------------------------------------------------------------------------------

Runtime::Impl::Impl(const RuntimeConfig& cfg)
    : config(validated(cfg)),
      engine(config),
      books(std::make_unique<detail::SlotBook[]>(config.window_tasks)),
      heap(config.heap_bytes) {
    for (std::uint32_t i = 0; i < config.window_tasks; ++i)
        books[i] = detail::SlotBook{0, 0, 0, ~0ull, false};
    orchestrator_ctx.cancelled_ready.reserve(config.window_tasks);
    candidates.reserve(4096);
    instance_marks.reserve(1024);
    if (config.executor == Executor::Compute)
        compute = std::make_unique<detail::ComputePool>(config.compute_threads);
    for (std::uint32_t i = 0; i < config.scheduler_threads; ++i)
        schedulers.push_back(std::make_unique<detail::Scheduler>(engine, settings, compute.get(), i));
    watchdog = std::make_unique<detail::Watchdog>(*this);
    detail::logger().debug("runtime up: {} clusters x (1 AIC + {} AIV), {} scheduler threads, window {}",
                           config.cluster_count, config.aiv_per_cluster, config.scheduler_threads,
                           config.window_tasks);
}

Runtime::Impl::~Impl() {
    if (in_run && !poisoned) {
        try {
            end_run();
        } catch (const std::exception& e) {
            detail::logger().error("run still open when the runtime was destroyed: {}", e.what());
        }
    }
    watchdog.reset();
    schedulers.clear();  // joins the threads before the pool and the engine go away
    compute.reset();
}

// ---- Impl: run lifecycle --------------------------------------------------------------------------------

void Runtime::Impl::begin_run() {
    if (poisoned) [[unlikely]]
        detail::throw_error(ErrorCode::Stall,
                            "this runtime cannot start a run: a kernel of an aborted run never returned");
    if (in_run) [[unlikely]]
        detail::throw_error(ErrorCode::RunInProgress,
                            "a run is already in progress on this runtime (started at task " +
                                std::to_string(run_first_id) + "); runs do not nest");
    // Every task of the previous run retired in end_run, so the pools start empty.
    run_first_id = next_id;
    retired_before = next_id;
    retired_published.store(next_id, std::memory_order_relaxed);
    heap.reset();
    engine.edges.reset();
    engine.args.reset();
    stats = OrchestratorStats{};
    kernel_tasks = framework_tasks = subtasks = 0;
    orchestrator_ctx.counters = detail::CompletionCounters{};
    orchestrator_finished_published = 0;
    orchestrator_ctx.pushed_ready = false;
    graph.clear();
    subtask_records.clear();
    {
        std::lock_guard lock(engine.failures_mutex);
        engine.failures.clear();
    }
    engine.finished_tasks.store(0, std::memory_order_relaxed);
    engine.submitted_total.store(~0ull, std::memory_order_relaxed);
    engine.abort_requested.store(false, std::memory_order_relaxed);
    submits_published.store(0, std::memory_order_relaxed);

    settings.record_subtasks = config.record_subtasks;
    settings.profile = config.profile_orchestrator;
    settings.duration_ns.assign(engine.kernels.size(), 0);
    for (std::size_t f = 0; f < engine.kernels.size(); ++f)
        settings.duration_ns[f] = static_cast<std::int64_t>(engine.kernels[f].duration_us * 1000.0 * config.timed_scale);
    for (auto& s : schedulers) s->reset_for_run();

    in_run = true;
    orchestration_ended = false;
    run_start_ns = steady_ns();
    settings.start_ns = run_start_ns;
    watchdog->arm();
    if (config.orchestration == OrchestrationMode::Concurrent) {
        // seq_cst: pairs with the parked schedulers' re-check (Parker protocol).
        engine.dispatch_enabled.store(true, std::memory_order_seq_cst);
        for (auto& p : engine.scheduler_parkers) p->unpark();
    }
}

void Runtime::Impl::end_orchestration() {
    if (!in_run || orchestration_ended) return;
    orchestration_ns = steady_ns() - run_start_ns;
    orchestration_ended = true;
    engine.submitted_total.store(next_id - run_first_id, std::memory_order_seq_cst);
    if (config.orchestration == OrchestrationMode::Serial) {
        engine.dispatch_enabled.store(true, std::memory_order_seq_cst);
        for (auto& p : engine.scheduler_parkers) p->unpark();
    }
}

RunReport Runtime::Impl::end_run() {
    if (!in_run) [[unlikely]]
        detail::throw_error(ErrorCode::NoActiveRun, "end_run without a run in progress");
    end_orchestration();
    // Scope holds the orchestration function left behind (only possible without the scope layer).
    for (std::uint64_t id = retired_before; id < next_id; ++id)
        books[static_cast<std::uint32_t>(id) & engine.window_mask].scope_held = false;

    // Waits until the run drained; returns early when the watchdog reports a stall (first wait) or when
    // `limit` passes (the wait after an abort).
    std::optional<detail::StallReport> stall;
    const auto wait_drained = [&](std::optional<std::chrono::milliseconds> limit) {
        const auto start = std::chrono::steady_clock::now();
        while (!engine.run_is_drained()) {
            if (!stall && watchdog->has_report()) return;
            if (limit && std::chrono::steady_clock::now() - start > *limit) return;
            orchestrator_waiting.store(true, std::memory_order_relaxed);
            engine.orchestrator_parker.park_until(
                [&] { return engine.run_is_drained() || (!stall && watchdog->has_report()); },
                detail::Parker::Clock::now() + std::chrono::milliseconds(50));
            orchestrator_waiting.store(false, std::memory_order_relaxed);
        }
    };
    wait_drained(std::nullopt);
    if (!engine.run_is_drained()) {
        // The watchdog diagnosed a stall: cancel everything not yet running, then give running kernels one
        // more timeout to return.
        stall = watchdog->take_report();
        PTO_ASSERT(stall.has_value(), "the first wait ends undrained only on a stall report");
        detail::logger().warn("{}", stall->message);
        engine.abort_requested.store(true, std::memory_order_seq_cst);
        for (auto& p : engine.scheduler_parkers) p->unpark();
        wait_drained(std::chrono::milliseconds(std::max<std::uint32_t>(config.stall_timeout_ms, 100)));
        if (!engine.run_is_drained()) {
            poisoned = true;
            in_run = false;
            watchdog->disarm();
            detail::throw_error(ErrorCode::Stall, stall->message +
                                                      "; a kernel never returned after the abort, so this "
                                                      "runtime cannot start another run");
        }
    }
    const std::int64_t end_to_end_ns = steady_ns() - run_start_ns;

    // Quiesce the schedulers so their statistics can be read (see Scheduler::acknowledged_epoch).
    engine.dispatch_enabled.store(false, std::memory_order_seq_cst);
    const std::uint64_t epoch = engine.quiesce_epoch.fetch_add(1, std::memory_order_seq_cst) + 1;
    for (auto& p : engine.scheduler_parkers) p->unpark();
    for (auto& s : schedulers)
        while (s->acknowledged_epoch() != epoch) std::this_thread::yield();
    watchdog->disarm();

    try_retire();
    PTO_ASSERT(retired_before == next_id, "every task retires once the run drained");

    RunReport report;
    report.submitted = next_id - run_first_id;
    report.kernel_tasks = kernel_tasks;
    report.framework_tasks = framework_tasks;
    report.subtasks = subtasks;
    detail::CompletionCounters total = orchestrator_ctx.counters;
    for (auto& s : schedulers) {
        total.completed += s->counters().completed;
        total.failed += s->counters().failed;
        total.cancelled += s->counters().cancelled;
        report.schedulers.push_back(s->stats());
        if (config.record_subtasks)
            subtask_records.insert(subtask_records.end(), s->records().begin(), s->records().end());
    }
    PTO_ASSERT(total.total() == report.submitted, "completed + failed + cancelled == submitted");
    report.completed = total.completed;
    report.failed = total.failed;
    report.cancelled = total.cancelled;
    report.orchestration_ns = orchestration_ns;
    report.end_to_end_ns = end_to_end_ns;
    report.orchestrator = stats;
    {
        std::lock_guard lock(engine.failures_mutex);
        report.failures = engine.failures;
    }
    std::sort(subtask_records.begin(), subtask_records.end(),
              [](const SubtaskRecord& a, const SubtaskRecord& b) { return a.dispatch_ns < b.dispatch_ns; });
    if (config.record_graph) {
        graph.kernels.clear();
        for (std::size_t f = 0; f < engine.kernels.size(); ++f)
            if (!engine.kernels[f].name.empty())
                graph.kernels.push_back(KernelSummary{FuncId{static_cast<std::uint16_t>(f)}, engine.kernels[f].name,
                                                      engine.kernels[f].duration_us});
    }
    in_run = false;
    last_report = report;
    detail::logger().debug("run of {} tasks ended: {} completed, {} failed, {} cancelled, {} ns end to end",
                           report.submitted, report.completed, report.failed, report.cancelled, end_to_end_ns);
    if (stall)
        detail::throw_error(ErrorCode::Stall, stall->message + "; the run was aborted: " +
                                                  std::to_string(report.cancelled) + " task(s) cancelled, " +
                                                  std::to_string(report.failed) + " failed");
    return report;
}

// ---- Facade ----------------------------------------------------------------------------------------------

Runtime::Runtime(RuntimeConfig config) : impl_(std::make_unique<Impl>(config)) {}
Runtime::~Runtime() = default;

const RuntimeConfig& Runtime::config() const { return impl_->config; }

void Runtime::register_kernel(FuncId id, KernelInfo info) {
    if (impl_->in_run) [[unlikely]]
        detail::throw_error(ErrorCode::RunInProgress,
                            "register_kernel(" + info.name + ") during a run; register kernels before pto::run");
    if (id.is_none()) [[unlikely]]
        detail::throw_error(ErrorCode::InvalidArgument, "register_kernel(" + info.name + ") with FuncId none");
    if (info.name.empty()) info.name = "func " + std::to_string(id.value);
    auto& table = impl_->engine.kernels;
    if (table.size() <= id.value) table.resize(id.value + 1);
    table[id.value] = std::move(info);
}

const KernelInfo* Runtime::find_kernel(FuncId id) const { return impl_->engine.kernel(id); }
std::string Runtime::kernel_name(FuncId id) const { return impl_->engine.kernel_name(id); }

void Runtime::begin_run() { impl_->begin_run(); }
void Runtime::end_orchestration() { impl_->end_orchestration(); }
RunReport Runtime::end_run() { return impl_->end_run(); }
bool Runtime::in_run() const { return impl_->in_run; }

TaskId Runtime::submit(const TaskSpec& spec, std::span<const TaskId> producers, bool scoped) {
    return impl_->submit(spec, producers, scoped);
}
TaskId Runtime::submit_instance(std::span<InstanceNode> nodes, bool scoped) {
    return impl_->submit_instance(nodes, scoped);
}
TaskId Runtime::next_task_id() const { return TaskId{impl_->next_id}; }
TaskId Runtime::run_first_task_id() const { return TaskId{impl_->run_first_id}; }
TaskId Runtime::retired_before() const { return TaskId{impl_->retired_before}; }
TaskId Runtime::try_retire() { return impl_->try_retire(); }
void Runtime::wait_for_retirement(std::string_view knob) { impl_->wait_for_retirement(knob); }
void Runtime::release_scope(TaskId begin, TaskId end) { impl_->release_scope(begin, end); }

OrchestratorStats& Runtime::orchestrator_stats() { return impl_->stats; }
bool Runtime::is_profiling() const { return impl_->config.profile_orchestrator; }
const RunReport& Runtime::last_report() const { return impl_->last_report; }
const GraphRecord& Runtime::graph() const { return impl_->graph; }
std::span<const SubtaskRecord> Runtime::subtasks() const { return impl_->subtask_records; }

}  // namespace pto
