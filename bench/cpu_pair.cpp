// The probes' CPU pair (cpu_pair.h) on Linux: the calling thread's affinity mask.
#include "cpu_pair.h"

#include <pthread.h>
#include <sched.h>

#include <cstddef>

namespace pto::bench {

std::optional<std::array<int, 2>> first_two_cpus() {
    cpu_set_t allowed;
    if (pthread_getaffinity_np(pthread_self(), sizeof allowed, &allowed) != 0) return std::nullopt;
    std::array<int, 2> cpus{};
    std::size_t found = 0;
    for (std::size_t cpu = 0; cpu < CPU_SETSIZE && found < cpus.size(); ++cpu)
        if (CPU_ISSET(cpu, &allowed)) cpus[found++] = static_cast<int>(cpu);
    if (found < cpus.size()) return std::nullopt;
    return cpus;
}

int current_cpu() {
    return sched_getcpu();
}

bool pin_to(int cpu) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(static_cast<std::size_t>(cpu), &one);
    return pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
}

}  // namespace pto::bench
