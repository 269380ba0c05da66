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

std::uint32_t awake_scheduler_limit(Executor executor, std::uint32_t scheduler_threads, std::uint32_t cpus) {
    if (executor != Executor::Instant) return scheduler_threads;
    // Not one CPU fewer for the orchestrator: a single awake scheduler parks in the orchestrator's gaps
    // between pushes, and then every push after a gap pays a futex wake on the orchestrator's thread
    // (docs/benchmarks.md, "End to end on an oversubscribed host"). At least one stays wakeable.
    return std::clamp(cpus, 1u, scheduler_threads);
}

}  // namespace pto::detail
