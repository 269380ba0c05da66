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

std::uint32_t awake_scheduler_limit(Executor executor, std::uint32_t scheduler_threads, std::uint32_t cpus,
                                    bool orchestrator_waiting) {
    if (executor != Executor::Instant) return scheduler_threads;
    // The orchestrator keeps one CPU busy while it submits; at least one scheduler stays wakeable.
    const std::uint32_t free_cpus = orchestrator_waiting ? cpus : (cpus > 1 ? cpus - 1 : 1);
    return std::clamp(free_cpus, 1u, scheduler_threads);
}

}  // namespace pto::detail
