// The CPU-sharing probe (bench/cpu_sharing.h): a slowdown measured between the first two CPUs the caller may
// use, nothing when it may use one, and the report's `machine.cpu_sharing` built from two probes.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "cpu_pin.h"
#include "cpu_sharing.h"
#include "support/cpu_affinity.h"

TEST_CASE("the sharing probe compares a loop on one CPU with and without the other busy",
          "[bench][cpu_sharing]") {
    const int before = pto::test::allowed_cpus();
    if (before < 2) {
        WARN("the test may use one CPU only: nothing to compare");
        return;
    }
    const std::optional<pto::bench::CpuSharing> s = pto::bench::measure_cpu_sharing();
    REQUIRE(s.has_value());
    CHECK(s->first >= 0);
    CHECK(s->second > s->first);
    // A ratio of two timings of the same loop: positive and finite whatever the machine does meanwhile.
    CHECK(s->slowdown > 0.0);
    CHECK(std::isfinite(s->slowdown));
    CHECK(pto::test::allowed_cpus() == before);
}

TEST_CASE("the sharing probe reports nothing when the caller may use one CPU", "[bench][cpu_sharing]") {
    const pto::bench::CpuPin pin;  // the calling thread on its current CPU only
    REQUIRE(pin.cpu().has_value());
    CHECK_FALSE(pto::bench::measure_cpu_sharing().has_value());
}

TEST_CASE("the report's cpu_sharing holds both probes, or null when one is missing", "[bench][cpu_sharing]") {
    const pto::bench::CpuSharing before{0, 1, 2.84};
    const pto::bench::CpuSharing after{0, 1, 1.02};
    const nlohmann::json j = pto::bench::cpu_sharing_json(before, after);
    CHECK(j.at("cpus") == nlohmann::json::array({0, 1}));
    CHECK(j.at("before").get<double>() == 2.84);
    CHECK(j.at("after").get<double>() == 1.02);
    std::ostringstream line;
    pto::bench::print_cpu_sharing(line, j);
    CHECK(line.str() ==
          "a loop on CPU 0 takes 2.8x as long while CPU 1 is busy before the sweep, 1.0x after (2x or more: "
          "the "
          "two share one CPU's time, and end-to-end figures are not comparable)\n");

    CHECK(pto::bench::cpu_sharing_json(std::nullopt, after).is_null());
    CHECK(pto::bench::cpu_sharing_json(before, std::nullopt).is_null());
    std::ostringstream none;
    pto::bench::print_cpu_sharing(none, nullptr);
    CHECK(none.str().empty());
}
