// The Runtime facade and the run lifecycle: construction of the components and threads, begin_run,
// end_orchestration, end_run and finish_run (retire, report); the stall path is in stall_path.cpp.
#include "pto/runtime/runtime.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <system_error>

#include "clock.h"
#include "logging.h"
#include "pto/runtime/detail/task_port.h"
#include "pto/runtime/detail/throw.h"
#include "runtime_impl.h"

namespace pto {

using detail::steady_ns;

namespace {

const RuntimeConfig& validated(const RuntimeConfig& config) {
    config.validate();
    return config;
}

/// make_impl: builds the runtime, turning an allocation or thread-creation failure of a legal but very
/// large configuration into an InvalidConfig naming the knob that asked for the most (cold path).
std::unique_ptr<Runtime::Impl> make_impl(const RuntimeConfig& config) {
    config.validate();
    try {
        return std::make_unique<Runtime::Impl>(config);
    } catch (const std::bad_alloc&) {
        struct Knob {
            const char* name;
            std::uint64_t value;
            std::uint64_t bytes;
        };
        const Knob knobs[] = {
            {"window_tasks", config.window_tasks,
             std::uint64_t{config.window_tasks} *
                 (sizeof(detail::TaskSlot) + sizeof(detail::SlotInfo) + detail::TaskWindow::kBytesPerSlot +
                  detail::EdgeLinker::kBytesPerSlot + 64)},
            {"heap_bytes", config.heap_bytes, config.heap_bytes},
            {"edge_capacity", config.edge_capacity,
             std::uint64_t{config.edge_capacity} * sizeof(detail::EdgeNode)},
            {"argument_bytes", config.argument_ring_bytes(), config.argument_ring_bytes()},
        };
        const Knob* largest = &knobs[0];
        for (const Knob& k : knobs)
            if (k.bytes > largest->bytes) largest = &k;
        detail::throw_error(ErrorCode::InvalidConfig,
                            std::string("RuntimeConfig::") + largest->name + " = " +
                                std::to_string(largest->value) + " asks for about " +
                                std::to_string(largest->bytes >> 20) +
                                " MiB, which could not be allocated (std::bad_alloc): lower it");
    } catch (const std::system_error& e) {
        detail::throw_error(ErrorCode::InvalidConfig,
                            "could not start the runtime's threads (RuntimeConfig::scheduler_threads = " +
                                std::to_string(config.scheduler_threads) + ", compute_threads = " +
                                std::to_string(config.compute_threads) + "): " + e.what() + "; lower them");
    }
}

}  // namespace

// ---- Impl: construction

Runtime::Impl::Impl(const RuntimeConfig& cfg)
    : config(validated(cfg)),
      engine(config),
      window(config.window_tasks),
      linker(config.window_tasks),
      heap(config.heap_bytes),
      recorder(config.record_graph, config.record_subtasks) {
    orchestrator_ctx.cancelled_ready.reserve(config.window_tasks);
    if (config.executor == Executor::Compute)
        compute = std::make_unique<detail::ComputePool>(config.compute_threads);
    for (std::uint32_t i = 0; i < config.scheduler_threads; ++i)
        schedulers.push_back(std::make_unique<detail::Scheduler>(engine, settings, compute.get(), i));
    watchdog =
        std::make_unique<detail::Watchdog>(observer, engine.wake.orchestrator(), config.stall_timeout_ms);
    detail::logger().debug("runtime up: {} clusters x (1 AIC + {} AIV), {} scheduler threads, window {}",
                           config.cluster_count, config.aiv_per_cluster, config.scheduler_threads,
                           config.window_tasks);
}

Runtime::Impl::~Impl() {
    const detail::RunPhase p = run.phase();
    // A kernel destroying the runtime of a draining run would wait for itself below.
    if ((p != detail::RunPhase::Idle && p != detail::RunPhase::Draining) ||
        (p == detail::RunPhase::Draining && detail::t_runtime_thread != nullptr)) [[unlikely]]
        terminate_destroyed_in_run(p);
    if (p == detail::RunPhase::Draining)
        detail::logger().warn(
            "destroying a runtime whose aborted run still has kernels running: waiting for them");
    watchdog.reset();
    // Compute jobs write into the schedulers' core state when they return, so they must all have returned
    // before the schedulers go (a kernel that never returns blocks here: there is no safe alternative).
    if (compute) compute->wait_idle();
    schedulers.clear();  // joins the threads before the pool and the engine go away
    compute.reset();
}

// ---- Impl: refusing calls

void Runtime::Impl::throw_run_in_progress(const char* call, detail::RunPhase seen) const {
    if (run.owned_here())
        detail::throw_error(ErrorCode::RunInProgress,
                            std::string(call) +
                                ": a run is already in progress on this runtime (started at task " +
                                std::to_string(window.run_first_id()) + ") on this thread; runs do not nest");
    detail::throw_error(ErrorCode::RunInProgress,
                        std::string(call) + ": another thread is " + std::string(to_string(seen)) +
                            " on this runtime; one Runtime runs one orchestration at a time (wait for that "
                            "pto::run to return, or give each thread its own Runtime)");
}

void Runtime::Impl::terminate_destroyed_in_run(detail::RunPhase seen) const {
    // A destructor cannot throw, and returning would free the threads, pools and slots the run still uses
    // (undefined behaviour): stop the process with a message naming the misuse instead.
    std::string who;
    if (detail::t_runtime_thread != nullptr)
        who = std::string("from ") + detail::t_runtime_thread + " of its own";
    else if (run.owned_here())
        who =
            "by its own orchestrator thread (inside the orchestration function, or between begin_run and "
            "end_run)";
    else
        who = "from another thread while that thread is " + std::string(to_string(seen));
    const std::string text = "pto::Runtime destroyed " + who +
                             ": a Runtime must outlive every pto::run / begin_run..end_run on it; "
                             "terminating (std::terminate) rather than freeing state the run still uses\n";
    detail::logger().critical("{}", text);
    std::fputs(text.c_str(), stderr);
    std::terminate();
}

// ---- Impl: run lifecycle

void Runtime::Impl::begin_run() {
    detail::check_not_reentrant("begin_run");
    detail::RunPhase seen;
    bool recovering;
    if (!run.claim_run(seen, recovering)) [[unlikely]]
        throw_run_in_progress("begin_run", seen);
    if (recovering) [[unlikely]]
        recover_aborted_run();  // throws Stall (back to Draining) if the aborted run's kernels have not
                                // returned
    try {
        start_run();
    } catch (...) {
        run.release(detail::RunPhase::Idle);
        throw;
    }
}

void Runtime::Impl::start_run() {
    // Every task of the previous run retired in end_run, so the pools start empty.
    window.start_run();
    heap.reset();
    engine.edges.reset();
    engine.args.reset();
    stats = OrchestratorStats{};
    kernel_tasks = framework_tasks = subtasks = 0;
    run_token = detail::next_run_token();
    run_plan_edges.clear();
    orchestrator_ctx.counters = detail::CompletionCounters{};
    orchestrator_finished_published = 0;
    orchestrator_ctx.pushed_ready = false;
    recorder.start_run();
    engine.failures.clear();
    engine.progress.start_run();
    engine.control.clear_abort();
    run.start_run();

    settings.record_subtasks = config.record_subtasks;
    settings.profile = config.profile_orchestrator;
    settings.duration_ns.assign(engine.kernels.size(), 0);
    for (std::size_t f = 0; f < engine.kernels.size(); ++f)
        settings.duration_ns[f] =
            static_cast<std::int64_t>(engine.kernels[f].duration_us * 1000.0 * config.timed_scale);
    for (auto& s : schedulers)
        s->reset_for_run();

    run_start_ns = steady_ns();
    settings.start_ns = run_start_ns;
    watchdog->arm(/*new_run=*/true, run_start_ns, window.run_first_id());
    if (config.orchestration == OrchestrationMode::Concurrent) {
        engine.control.enable_dispatch();
        engine.wake.wake_for_dispatch();
    }
    run.advance(detail::RunPhase::Orchestrating);
}

void Runtime::Impl::end_orchestration() {
    if (!run.is_orchestrating()) [[unlikely]] {
        if (run.owned_here()) return;  // ended already
        detail::check_not_reentrant("end_orchestration");
        const detail::RunPhase p = run.phase();
        if (p == detail::RunPhase::Idle || p == detail::RunPhase::Draining) return;  // no run: nothing to end
        refuse_call("end_orchestration");
    }
    orchestration_ns = steady_ns() - run_start_ns;
    finish_orchestrator_completions();  // the submit total below must meet a finished count with them all
    run.advance(detail::RunPhase::Ending);
    engine.progress.end_submission(window.submitted());
    if (config.orchestration == OrchestrationMode::Serial) {
        engine.control.enable_dispatch();
        engine.wake.wake_for_dispatch();
    }
}

bool Runtime::Impl::should_schedule_the_end() const {
    // The orchestrator's cache holds what it submitted since the schedulers last took a batch. Worth it
    // when that is most of the run (a graph orchestrated within one batch wait): then its passes beat a
    // scheduler pulling every task across the CPUs. When the schedulers took most of the run already, the
    // rest depends on tasks they completed, whose lines are theirs: taking it from them measured slower.
    if (engine.progress.finished() * 2 > window.submitted()) return false;
    for (std::uint32_t i = 0; i < schedulers.size(); ++i)
        if (engine.wake.is_held(i) && !schedulers[i]->is_waiting_for_batch()) return false;
    return true;
}

RunReport Runtime::Impl::end_run() {
    if (!run.owned_here()) [[unlikely]] {
        detail::check_not_reentrant("end_run");
        const detail::RunPhase p = run.phase();
        if (p == detail::RunPhase::Idle || p == detail::RunPhase::Draining)
            detail::throw_error(ErrorCode::NoActiveRun, "end_run without a run in progress");
        refuse_call("end_run");
    }
    // Only when every awake scheduler idles in a batch wait and most of the run is still to do
    // (should_schedule_the_end): the orchestrator then schedules it where it is in cache. A scheduler at
    // work keeps the rest (taking tasks beside it measured slower than leaving them to it). Raised before
    // the end of submission lets the waiting schedulers go, so they stand aside rather than race the
    // orchestrator to the tasks. settle_run below lowers it first thing, on every way out
    // (schedule_in_a_sleeping_place); a new run starts with it down (RunProgress::start_run).
    if (helps_at_end && run.is_orchestrating() && !run.aborted() && should_schedule_the_end())
        engine.progress.set_orchestrator_scheduling(true);
    end_orchestration();
    // Scope holds the orchestration function left behind (only possible without the scope layer).
    window.release_all_scopes();
    flush_links();  // consumers staged by scopes left open: unlinked, they would never become ready
    settle_run(/*recovering=*/false);  // throws Stall if an aborted run's kernels do not return
    return finish_run(/*throw_if_aborted=*/true, /*release=*/true);
}

RunReport Runtime::Impl::finish_run(bool throw_if_aborted, bool release) {
    const std::int64_t end_to_end_ns = steady_ns() - run_start_ns;
    quiesce_schedulers();
    watchdog->disarm();

    try_retire();

    RunReport report;
    report.submitted = window.submitted();
    report.kernel_tasks = kernel_tasks;
    report.framework_tasks = framework_tasks;
    report.subtasks = subtasks;
    detail::CompletionCounters total = orchestrator_ctx.counters;
    for (auto& s : schedulers) {
        total.completed += s->counters().completed;
        total.failed += s->counters().failed;
        total.cancelled += s->counters().cancelled;
        report.schedulers.push_back(s->stats());
        recorder.append(s->records(), s->aicpu_records());
    }
    check_drained(total.total());
    report.completed = total.completed;
    report.failed = total.failed;
    report.cancelled = total.cancelled;
    report.orchestration_ns = orchestration_ns;
    report.end_to_end_ns = end_to_end_ns;
    report.start_steady_ns = run_start_ns;
    report.orchestrator = stats;
    report.failures = engine.failures.snapshot();
    report.stalls = run.take_kept_stalls();
    for (StallReport& r : watchdog->take_reports())
        report.stalls.push_back(std::move(r));
    report.aborted = run.aborted();
    recorder.finish_timelines();
    recorder.kernels(engine.kernels);
    last_report = report;
    detail::logger().debug("run of {} tasks ended: {} completed, {} failed, {} cancelled, {} ns end to end",
                           report.submitted, report.completed, report.failed, report.cancelled,
                           end_to_end_ns);
    std::string stall_text;
    if (run.aborted() && throw_if_aborted)
        stall_text = run.abort_report().message +
                     "; the run was aborted: " + std::to_string(report.cancelled) + " task(s) cancelled, " +
                     std::to_string(report.failed) + " failed, " + std::to_string(report.completed) +
                     " completed of " + std::to_string(report.submitted);
    // Last: another thread may claim the runtime right after this.
    if (release) run.release(detail::RunPhase::Idle);
    if (!stall_text.empty()) detail::throw_error(ErrorCode::Stall, std::move(stall_text));
    return report;
}

// ---- Facade

Runtime::Runtime(RuntimeConfig config) : impl_(make_impl(config)) {}
Runtime::~Runtime() = default;

const RuntimeConfig& Runtime::config() const {
    return impl_->config;
}

void Runtime::register_kernel(FuncId id, KernelInfo info) {
    detail::check_not_reentrant("register_kernel");
    detail::RunPhase seen;
    // Claims the runtime like begin_run, so a run another thread starts meanwhile cannot see a half-changed
    // kernel table.
    if (!impl_->run.claim_registering(seen)) [[unlikely]] {
        if (seen == detail::RunPhase::Draining)
            detail::throw_error(ErrorCode::RunInProgress,
                                "register_kernel(" + info.name +
                                    ") while kernels of an aborted run still run; retry after they return "
                                    "(a successful begin_run shows they did)");
        detail::throw_error(ErrorCode::RunInProgress,
                            "register_kernel(" + info.name + ") while the runtime is " +
                                std::string(to_string(seen)) + "; register kernels before pto::run");
    }
    struct Unclaim {
        detail::RunState& run;
        ~Unclaim() { run.advance(detail::RunPhase::Idle); }
    } unclaim{impl_->run};
    if (id.is_none()) [[unlikely]]
        detail::throw_error(ErrorCode::InvalidArgument,
                            "register_kernel(" + info.name + ") with FuncId none");
    // Negated so NaN fails too. The limit keeps duration x timed_scale in nanoseconds inside 64 bits.
    if (!(info.duration_us >= 0.0 && info.duration_us <= kMaxKernelDurationUs)) [[unlikely]]
        detail::throw_error(ErrorCode::InvalidArgument,
                            "register_kernel(" + info.name +
                                ") with duration_us = " + std::to_string(info.duration_us) +
                                ": must be finite, in 0..3.6e9 (one hour)");
    if (info.name.empty()) info.name = "func " + std::to_string(id.value);
    auto& table = impl_->engine.kernels;
    if (table.size() <= id.value) table.resize(id.value + 1);
    table[id.value] = std::move(info);
}

const KernelInfo* Runtime::find_kernel(FuncId id) const {
    return impl_->engine.kernel(id);
}
std::string Runtime::kernel_name(FuncId id) const {
    return impl_->engine.kernel_name(id);
}

bool Runtime::in_run() const {
    return impl_->run.in_run();
}

const RunReport& Runtime::last_report() const {
    return impl_->last_report;
}
const GraphRecord& Runtime::graph() const {
    return impl_->recorder.graph();
}
std::span<const SubtaskRecord> Runtime::subtasks() const {
    return impl_->recorder.subtasks();
}

std::span<const AicpuRecord> Runtime::aicpu_records() const {
    return impl_->recorder.aicpu();
}

namespace detail {

void TaskPort::begin_run() {
    runtime_->impl_->begin_run();
}
void TaskPort::end_orchestration() {
    runtime_->impl_->end_orchestration();
}
RunReport TaskPort::end_run() {
    return runtime_->impl_->end_run();
}

TaskId TaskPort::submit(const TaskSpec& spec, std::span<const TaskId> producers, bool scoped) {
    return runtime_->impl_->submit(spec, producers, scoped);
}
TaskId TaskPort::submit_instance(std::span<InstanceNode> nodes, bool scoped) {
    return runtime_->impl_->submit_instance(nodes, nullptr, scoped);
}
TaskId TaskPort::submit_instance(std::span<InstanceNode> nodes,
                                 const std::shared_ptr<const InstanceEdges>& edges, bool scoped) {
    return runtime_->impl_->submit_instance(nodes, edges, scoped);
}
TaskId TaskPort::submit_alloc(std::span<const TensorCreateInfo> infos, bool scoped) {
    return runtime_->impl_->submit_alloc(infos, scoped);
}
std::span<const TensorArg> TaskPort::task_tensors(TaskId id) const {
    return runtime_->impl_->task_tensors(id);
}
const std::atomic<std::uint64_t>& TaskPort::retirement_counter() const {
    return runtime_->impl_->window.retirement_counter();
}

TaskId TaskPort::next_task_id() const {
    return TaskId{runtime_->impl_->window.next_id()};
}
TaskId TaskPort::run_first_task_id() const {
    return TaskId{runtime_->impl_->window.run_first_id()};
}
TaskId TaskPort::retired_before() const {
    return TaskId{runtime_->impl_->window.retired_before()};
}
RetiredTasks TaskPort::retired() const {
    return runtime_->impl_->window.retired();
}
TaskId TaskPort::try_retire() {
    return runtime_->impl_->try_retire();
}
void TaskPort::wait_for_retirement(std::string_view knob) {
    runtime_->impl_->wait_for_retirement(knob);
}
void TaskPort::release_scope(TaskId begin, TaskId end) {
    runtime_->impl_->check_run_open("release_scope");
    runtime_->impl_->release_scope(begin, end);
}

OrchestratorStats& TaskPort::orchestrator_stats() const {
    return runtime_->impl_->stats;
}
bool TaskPort::is_profiling() const {
    return runtime_->impl_->config.profile_orchestrator;
}

}  // namespace detail
}  // namespace pto
