// allowed_cpus: how many CPUs the calling thread may run on (its affinity mask), for tests of pinning.
#pragma once

#include <catch2/catch.hpp>

#include <pthread.h>
#include <sched.h>

namespace pto::test {

inline int allowed_cpus() {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    REQUIRE(pthread_getaffinity_np(pthread_self(), sizeof mask, &mask) == 0);
    return CPU_COUNT(&mask);
}

}  // namespace pto::test
