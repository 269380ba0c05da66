// docs/design/machine-model.md and docs/architecture.md, conformance: RuntimeConfig validation names the
// knob, and the chip presets.
#include <catch2/catch.hpp>

#include "pto/runtime/config.h"
#include "pto/runtime/error.h"

using pto::ErrorCode;
using pto::RuntimeConfig;

namespace {

std::string rejection(const RuntimeConfig& c) {
    try {
        c.validate();
    } catch (const pto::Error& e) {
        CHECK(e.code() == ErrorCode::InvalidConfig);
        return e.what();
    }
    return {};
}

}  // namespace

TEST_CASE("the a2a3 defaults are 24 clusters of 1 AIC and 2 AIV with 3 schedulers", "[runtime][config]") {
    const RuntimeConfig c = RuntimeConfig::a2a3();
    CHECK(c.aic_count() == 24);
    CHECK(c.aiv_count() == 48);
    CHECK(c.scheduler_threads == 3);
    CHECK_NOTHROW(c.validate());
    const RuntimeConfig a5 = RuntimeConfig::a5();
    CHECK(a5.aic_count() == 32);
    CHECK(a5.aiv_count() == 64);
    CHECK(a5.scheduler_threads == 4);
}

TEST_CASE("an invalid knob is rejected with its name and value", "[runtime][config]") {
    RuntimeConfig c;
    c.window_tasks = 1000;
    CHECK_THAT(rejection(c), Catch::Contains("window_tasks = 1000") && Catch::Contains("power of two"));
    c = RuntimeConfig{};
    c.scheduler_threads = 30;
    CHECK_THAT(rejection(c), Catch::Contains("scheduler_threads = 30"));
    c = RuntimeConfig{};
    c.edge_capacity = 100;
    CHECK_THAT(rejection(c), Catch::Contains("edge_capacity"));
    c = RuntimeConfig{};
    c.timed_jitter = 2.0;
    CHECK_THAT(rejection(c), Catch::Contains("timed_jitter"));
    c = RuntimeConfig{};
    c.aiv_per_cluster = 3;
    CHECK_THAT(rejection(c), Catch::Contains("aiv_per_cluster"));
    c = RuntimeConfig{};
    c.scheduler_linger_us = 20'000'000;
    CHECK_THAT(rejection(c),
               Catch::Contains("scheduler_linger_us = 20000000") && Catch::Contains("0..10000000"));
    c.scheduler_linger_us = 0;  // parks at once
    CHECK_NOTHROW(c.validate());
}

TEST_CASE("executors convert to and from their names", "[runtime][config]") {
    for (pto::Executor e : {pto::Executor::Instant, pto::Executor::Timed, pto::Executor::Compute})
        CHECK(pto::parse_executor(pto::to_string(e)) == e);
    CHECK(pto::to_string(pto::Executor::Timed) == "timed");
    CHECK_FALSE(pto::parse_executor("Instant").has_value());
    CHECK_FALSE(pto::parse_executor("").has_value());
}
