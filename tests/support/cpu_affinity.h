// allowed_cpus: how many CPUs the calling thread may run on (its affinity mask), for tests of pinning; and
// OneCpu, which restricts the calling thread (and the threads it starts) to one CPU for a scope.
#pragma once

#include <catch2/catch.hpp>

#include <cstddef>

#include <pthread.h>
#include <sched.h>

namespace pto::test {

inline int allowed_cpus() {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    REQUIRE(pthread_getaffinity_np(pthread_self(), sizeof mask, &mask) == 0);
    return CPU_COUNT(&mask);
}

/// OneCpu: pins the calling thread (and the threads it starts meanwhile) to the first CPU it may use, until
/// the scope ends; pinned() says whether that worked.
class OneCpu {
  public:
    OneCpu() {
        CPU_ZERO(&saved_);
        pinned_ = sched_getaffinity(0, sizeof(saved_), &saved_) == 0;
        if (!pinned_) return;
        cpu_set_t one;
        CPU_ZERO(&one);
        for (std::size_t c = 0; c < static_cast<std::size_t>(CPU_SETSIZE); ++c) {
            if (CPU_ISSET(c, &saved_)) {
                CPU_SET(c, &one);
                break;
            }
        }
        pinned_ = sched_setaffinity(0, sizeof(one), &one) == 0;
    }
    ~OneCpu() {
        if (pinned_) sched_setaffinity(0, sizeof(saved_), &saved_);
    }
    OneCpu(const OneCpu&) = delete;
    OneCpu& operator=(const OneCpu&) = delete;
    [[nodiscard]] bool pinned() const { return pinned_; }

  private:
    cpu_set_t saved_;
    bool pinned_ = false;
};

}  // namespace pto::test
