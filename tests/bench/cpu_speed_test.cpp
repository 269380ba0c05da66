// The CPU-speed probe (bench/cpu_speed.h): a speed per CPU for the first two CPUs the caller may use, nothing
// when it may use one, which CPU a serial round takes, and the report's `machine.serial_cpus`.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

#include "cpu_pin.h"
#include "cpu_speed.h"
#include "support/cpu_affinity.h"

TEST_CASE("the speed probe times the same loop on two CPUs", "[bench][cpu_speed]") {
    const int before = pto::test::allowed_cpus();
    if (before < 2) {
        WARN("the test may use one CPU only: nothing to compare");
        return;
    }
    const std::optional<pto::bench::CpuSpeeds> s = pto::bench::measure_cpu_speeds();
    REQUIRE(s.has_value());
    CHECK(s->cpus[0] >= 0);
    CHECK(s->cpus[1] > s->cpus[0]);
    for (double ns : s->ns_per_step) {
        CHECK(ns > 0.0);
        CHECK(std::isfinite(ns));
    }
    CHECK(pto::test::allowed_cpus() == before);  // measured on a thread of its own
}

TEST_CASE("the speed probe reports nothing when the caller may use one CPU", "[bench][cpu_speed]") {
    const pto::bench::CpuPin pin;
    REQUIRE(pin.cpu().has_value());
    CHECK_FALSE(pto::bench::measure_cpu_speeds().has_value());
}

TEST_CASE("a serial round takes the faster CPU, and stays put for a small difference", "[bench][cpu_speed]") {
    const pto::bench::CpuSpeeds slow_second{{0, 1}, {0.12, 0.21}};
    CHECK(slow_second.faster(0) == 0);
    CHECK(slow_second.faster(1) == 0);  // 1.75x: move
    CHECK(slow_second.faster(5) == 0);  // running elsewhere: the faster of the two
    const pto::bench::CpuSpeeds slow_first{{2, 3}, {0.20, 0.12}};
    CHECK(slow_first.faster(2) == 3);
    const pto::bench::CpuSpeeds close{{0, 1}, {0.130, 0.125}};
    CHECK(close.faster(0) == 0);  // 4 % slower: noise, stay
    CHECK(close.faster(1) == 1);
    CHECK(close.faster(7) == 1);
}

TEST_CASE("the report's serial_cpus lists each round's CPU and speeds", "[bench][cpu_speed]") {
    using pto::bench::CpuSpeeds;
    using pto::bench::SerialCpuRound;
    const std::vector<SerialCpuRound> rounds{
        {0, CpuSpeeds{{0, 1}, {0.125, 0.211}}}, {1, CpuSpeeds{{0, 1}, {0.300, 0.125}}}, {0, std::nullopt}};
    const nlohmann::json j = pto::bench::serial_cpus_json(rounds);
    CHECK(j.at("cpus") == nlohmann::json::array({0, 1}));
    REQUIRE(j.at("rounds").size() == 3);
    CHECK(j.at("rounds").at(0).at("cpu") == 0);
    CHECK(j.at("rounds").at(0).at("ns_per_step") == nlohmann::json::array({0.125, 0.211}));
    CHECK(j.at("rounds").at(1).at("cpu") == 1);
    CHECK(j.at("rounds").at(2).at("ns_per_step").is_null());
    std::ostringstream line;
    pto::bench::print_serial_cpus(line, j);
    CHECK(
        line.str() ==
        "serial rounds on the faster CPU by a throughput loop: CPU 0 in 2, CPU 1 in 1; the other took up to "
        "2.4x as long\n");

    CHECK(pto::bench::serial_cpus_json({{0, std::nullopt}}).is_null());  // never measured
    CHECK(pto::bench::serial_cpus_json({}).is_null());
    std::ostringstream none;
    pto::bench::print_serial_cpus(none, nullptr);
    CHECK(none.str().empty());
}
