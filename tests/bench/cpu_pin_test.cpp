// docs/bench.md "Orchestration cost": the serial runs are pinned to one CPU as a whole. The pin holds the
// calling thread on its CPU, every thread started under it (a Runtime's scheduler threads among them)
// inherits that CPU, and the thread's previous affinity comes back when the pin ends.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <sys/types.h>

#include <cstdlib>
#include <set>
#include <string>
#include <thread>

#include "cpu_pin.h"
#include "support/cpu_affinity.h"
#include "pto/runtime/runtime.h"

namespace {

/// thread_ids: the ids of this process's threads (/proc/self/task).
std::set<pid_t> thread_ids() {
    std::set<pid_t> ids;
    DIR* dir = opendir("/proc/self/task");
    REQUIRE(dir != nullptr);
    while (const dirent* entry = readdir(dir))
        if (entry->d_name[0] != '.') ids.insert(static_cast<pid_t>(std::atoi(entry->d_name)));
    closedir(dir);
    return ids;
}

/// only_cpu: whether thread `tid` (0: the caller) may run on `cpu` and nowhere else.
bool only_cpu(pid_t tid, int cpu) {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(tid, sizeof mask, &mask) != 0) return false;
    return CPU_COUNT(&mask) == 1 && CPU_ISSET(static_cast<std::size_t>(cpu), &mask);
}

}  // namespace

TEST_CASE("a pin keeps the thread and the threads it starts on one CPU until it ends", "[bench][pin]") {
    const int before = pto::test::allowed_cpus();
    const std::set<pid_t> existing = thread_ids();
    {
        const pto::bench::CpuPin pin;
        REQUIRE(pin.cpu().has_value());  // Linux: getting and setting the affinity works
        const int cpu = *pin.cpu();
        CHECK(only_cpu(0, cpu));
        bool inherited = false;
        std::thread([&] { inherited = only_cpu(0, cpu); }).join();
        CHECK(inherited);

        // The serial runs create their Runtime under the pin: its scheduler threads share the CPU.
        pto::RuntimeConfig config;
        config.scheduler_threads = 3;
        const pto::Runtime rt(config);
        std::size_t started = 0;
        for (pid_t tid : thread_ids()) {
            if (existing.count(tid) != 0) continue;
            ++started;
            CHECK(only_cpu(tid, cpu));
        }
        CHECK(started >= 3);
    }
    CHECK(pto::test::allowed_cpus() == before);
}
