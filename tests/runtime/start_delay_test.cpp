// White-box: the compute executor's start delay. The relative part scales with the kernel's device time
// (timed_jitter); the absolute part (compute_start_jitter_us) does not, so it can reorder CPU kernels
// that run for far longer than their device times.
#include <catch2/catch.hpp>

#include "start_delay.h"

using pto::detail::compute_start_delay_ns;

TEST_CASE("the absolute start jitter is independent of the kernel's device time", "[runtime][jitter]") {
    pto::RuntimeConfig c;
    c.compute_start_jitter_us = 2000.0;
    CHECK(compute_start_delay_ns(c, 10'000, 0.0, 0.5) == 1'000'000);
    CHECK(compute_start_delay_ns(c, 10'000'000, 0.0, 0.5) == 1'000'000);
    CHECK(compute_start_delay_ns(c, 0, 0.0, 0.0) == 0);
    CHECK(compute_start_delay_ns(c, 0, 0.0, 0.999) == 1'998'000);
}

TEST_CASE("the relative jitter scales with the device time and adds to the absolute one",
          "[runtime][jitter]") {
    pto::RuntimeConfig c;
    c.timed_jitter = 0.5;
    CHECK(compute_start_delay_ns(c, 10'000, 1.0, 0.7) == 5'000);  // no absolute jitter configured
    c.compute_start_jitter_us = 10.0;
    CHECK(compute_start_delay_ns(c, 10'000, 1.0, 0.5) == 10'000);
    CHECK(compute_start_delay_ns(c, 10'000, 0.0, 0.0) == 0);
}
