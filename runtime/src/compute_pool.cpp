// ComputePool over a oneTBB task_arena: jobs are enqueued (fire and forget) so a scheduler thread never
// joins the arena or runs a kernel itself.
#include "compute_pool.h"

#include <atomic>
#include <exception>
#include <string>
#include <thread>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include "clock.h"
#include "run_phase.h"

namespace pto::detail {
namespace {

void run_job(const ComputeJob& job) {
    // Acquire pairs with the scheduler's release in submit(): the slot, its arguments and the kernel table
    // written before the hand-over are visible here.
    (void)job.core->jobs_started.load(std::memory_order_acquire);
    Engine& engine = *job.engine;
    const TaskSlot& task = engine.tasks[job.slot];
    const ArgRecord& args = engine.args_of(job.slot);
    const KernelInfo* kernel = engine.kernel(task.funcs[job.lane]);
    CoreState& core = *job.core;
    int status = 0;
    std::string error;
    if (job.delay_ns > 0) {
        // Jitter widens the gaps between kernels so a missing dependency shows up as a wrong result.
        const std::int64_t until = steady_ns() + job.delay_ns;
        while (steady_ns() < until)
            std::this_thread::yield();
    }
    // After the jitter delay: the trace's start is when the body runs, not when the job was handed over.
    if (job.stamp_start) core.body_start_ns = steady_ns();
    if (kernel == nullptr || kernel->fn == nullptr) {
        status = -1;
        error = "no compute function registered for " + engine.kernel_name(task.funcs[job.lane]);
    } else {
        TensorArg resolved[kMaxTensorArgs];  // a planned instance's node keeps its tensors by reference
        KernelContext ctx{args.tensor_args(resolved),
                          std::span<const std::uint64_t>(args.scalars(), args.scalar_count),
                          job.block,
                          task.block_num,
                          job.lane,
                          task.shape == Shape::MIX   ? CoreType::MIX
                          : task.shape == Shape::AIC ? CoreType::AIC
                                                     : CoreType::AIV,
                          engine.tasks.task_id_of(job.slot),
                          kernel->user};
        try {
            const RuntimeThreadMark mark("a compute kernel");  // refuses re-entrant API calls from the kernel
            status = kernel->fn(ctx);
            if (status != 0) error = "kernel returned " + std::to_string(status);
        } catch (const std::exception& e) {
            status = -1;
            error = std::string("kernel threw: ") + e.what();
        } catch (...) {
            status = -1;
            error = "kernel threw a non-standard exception";
        }
    }
    core.result = status;
    core.error = std::move(error);
    core.end_ns = steady_ns();
    // Release: publishes result, error, body_start_ns and end_ns to the scheduler's acquire load of `done`.
    core.done.store(true, std::memory_order_release);
    engine.wake.wake_scheduler(job.scheduler);
}

}  // namespace

struct ComputePool::Arena {
    // No slot is reserved for external threads: schedulers only enqueue, so every slot is a worker. TBB
    // caps workers at (cores - 1) by default, counting a master that never joins here; lift the cap.
    explicit Arena(int threads)
        : parallelism(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads) + 1),
          arena(threads, 0) {}
    tbb::global_control parallelism;
    tbb::task_arena arena;
    std::atomic<std::uint64_t> outstanding{0};  // jobs enqueued and not yet returned
};

ComputePool::ComputePool(std::uint32_t threads)
    : arena_(std::make_unique<Arena>(threads == 0 ? static_cast<int>(std::thread::hardware_concurrency())
                                                  : static_cast<int>(threads))) {}

ComputePool::~ComputePool() {
    wait_idle();
}

void ComputePool::submit(const ComputeJob& job) {
    /// Task: what the arena runs. oneTBB copies it into its own task object and hands that to a worker
    /// through libtbb's queues, which ThreadSanitizer cannot see into; so each copy publishes its fields with
    /// a release store on its own flag, and the worker acquires that flag before reading them (a store and a
    /// load, no sanitizer annotations).
    class Task {
      public:
        Task(const ComputeJob& j, Arena* a) : job_(j), arena_(a) {
            published_.store(true, std::memory_order_release);
        }
        Task(const Task& o) : job_(o.job_), arena_(o.arena_) {
            published_.store(true, std::memory_order_release);
        }
        Task& operator=(const Task&) = delete;
        void operator()() const {
            (void)published_.load(std::memory_order_acquire);
            run_job(job_);
            arena_->outstanding.fetch_sub(1, std::memory_order_release);  // pairs with wait_idle's acquire
        }

      private:
        ComputeJob job_;
        Arena* arena_;
        std::atomic<bool> published_{false};
    };
    job.core->jobs_started.fetch_add(1, std::memory_order_release);
    arena_->outstanding.fetch_add(1, std::memory_order_relaxed);
    arena_->arena.enqueue(Task(job, arena_.get()));
}

void ComputePool::wait_idle() {
    // Cold (shutdown, aborted runs): kernels are expected to return, so yielding is enough.
    while (arena_->outstanding.load(std::memory_order_acquire) != 0)
        std::this_thread::yield();
}

}  // namespace pto::detail
