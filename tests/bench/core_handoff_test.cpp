// The core-to-core hand-off probe (bench/core_handoff.h): a latency between the first two CPUs the caller
// may use, nothing when it may use one, and the report's `machine.core_to_core_ns` built from two probes.
#include <catch2/catch.hpp>

#include <sstream>

#include "core_handoff.h"
#include "cpu_pin.h"
#include "support/cpu_affinity.h"

TEST_CASE("the hand-off probe measures between two distinct CPUs and leaves the caller's affinity alone",
          "[bench][core_handoff]") {
    const int before = pto::test::allowed_cpus();
    if (before < 2) {
        WARN("the test may use one CPU only: nothing to measure between two");
        return;
    }
    // A probe can come back empty when the other CPU is busy with another process for its whole 100 ms
    // (ctest runs tests side by side); a few attempts make that vanishingly rare.
    std::optional<pto::bench::CoreHandoff> h;
    for (int attempt = 0; attempt < 5 && !h; ++attempt)
        h = pto::bench::measure_core_handoff();
    REQUIRE(h.has_value());
    CHECK(h->first >= 0);
    CHECK(h->second > h->first);
    CHECK(h->ns > 0.0);
    CHECK(pto::test::allowed_cpus() == before);
}

TEST_CASE("the hand-off probe reports nothing when the caller may use one CPU", "[bench][core_handoff]") {
    const pto::bench::CpuPin pin;  // the calling thread on its current CPU only
    REQUIRE(pin.cpu().has_value());
    CHECK_FALSE(pto::bench::measure_core_handoff().has_value());
}

TEST_CASE("the report's core_to_core_ns holds both probes, or null when one is missing",
          "[bench][core_handoff]") {
    const pto::bench::CoreHandoff before{0, 1, 230.6};
    const pto::bench::CoreHandoff after{0, 1, 61.0};
    const nlohmann::json j = pto::bench::core_handoff_json(before, after);
    CHECK(j.at("cpus") == nlohmann::json::array({0, 1}));
    CHECK(j.at("before").get<double>() == 230.6);
    CHECK(j.at("after").get<double>() == 61.0);
    std::ostringstream line;
    pto::bench::print_core_handoff(line, j);
    CHECK(line.str() ==
          "cache line between CPUs 0 and 1: 231 ns before the sweep, 61 ns after (end-to-end figures move "
          "with it)\n");

    CHECK(pto::bench::core_handoff_json(std::nullopt, after).is_null());
    CHECK(pto::bench::core_handoff_json(before, std::nullopt).is_null());
    std::ostringstream none;
    pto::bench::print_core_handoff(none, nullptr);
    CHECK(none.str().empty());
}
