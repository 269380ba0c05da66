// usable_cpus from the affinity mask (Linux), and the awake-scheduler policy that depends on it.
#include "host_cpus.h"

#include <algorithm>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace pto::detail {

std::uint32_t usable_cpus() {
#if defined(__linux__)
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof(mask), &mask) == 0) {
        const int count = CPU_COUNT(&mask);
        if (count > 0) return static_cast<std::uint32_t>(count);
    }
#endif
    return std::max(1u, std::thread::hardware_concurrency());
}

std::uint32_t schedulers_beside_orchestrator(std::uint32_t scheduler_threads, std::uint32_t cpus) {
    const std::uint32_t for_schedulers = cpus > 1 ? cpus - 1 : 1;
    return std::min(for_schedulers, std::max(scheduler_threads, 1u));
}

std::uint32_t awake_scheduler_limit(Executor executor, std::uint32_t scheduler_threads, std::uint32_t cpus) {
    if (executor != Executor::Instant) return scheduler_threads;
    // One CPU is left to the orchestrator: with the stash (local_ready.h) a lone awake scheduler runs the
    // chains it releases by itself, and a second awake one mostly took CPU time from the orchestrator
    // (docs/benchmarks.md, "End to end on an oversubscribed host"). At least one stays wakeable.
    return schedulers_beside_orchestrator(scheduler_threads, cpus);
}

}  // namespace pto::detail
