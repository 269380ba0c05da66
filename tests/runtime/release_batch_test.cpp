// docs/architecture.md "Threads": a scheduler sums the consumer releases of one batch of completions per
// consumer and lowers each fanin counter once. White-box for the batch itself; black-box for fan-in graphs
// (a consumer fed by many producers that complete together, with a failing producer among them): every
// consumer runs once, after all its producers, or is cancelled, and nothing is lost.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "pto/scope/orchestration.h"
#include "release_batch.h"
#include "support/graph_checks.h"

using namespace pto;
using pto::detail::ReleaseBatch;

TEST_CASE("a release batch sums each consumer's releases, in first-release order",
          "[runtime][release_batch]") {
    ReleaseBatch batch;
    CHECK(batch.is_empty());
    for (const std::uint32_t consumer : {7u, 3u, 7u, 135u, 7u, 3u})  // 7 and 135 share a bucket: probing
        REQUIRE(batch.add(consumer));
    CHECK_FALSE(batch.is_empty());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> drained;
    batch.drain([&](std::uint32_t consumer, std::uint32_t count) { drained.emplace_back(consumer, count); });
    CHECK(drained == std::vector<std::pair<std::uint32_t, std::uint32_t>>{{7, 3}, {3, 2}, {135, 1}});
    CHECK(batch.is_empty());
    batch.drain([](std::uint32_t, std::uint32_t) { FAIL("an empty batch drains nothing"); });
}

TEST_CASE("a full release batch refuses a new consumer but still counts the ones it holds",
          "[runtime][release_batch]") {
    ReleaseBatch batch;
    for (std::uint32_t c = 0; c < ReleaseBatch::kCapacity; ++c)
        REQUIRE(batch.add(1000 + c * 5));
    CHECK_FALSE(batch.add(1));  // the caller applies the batch, then adds again
    CHECK(batch.add(1000));     // already held
    std::uint32_t consumers = 0;
    std::uint32_t releases = 0;
    batch.drain([&](std::uint32_t, std::uint32_t count) {
        ++consumers;
        releases += count;
    });
    CHECK(consumers == ReleaseBatch::kCapacity);
    CHECK(releases == ReleaseBatch::kCapacity + 1);
    REQUIRE(batch.add(1));  // empty again: room for anyone
}

TEST_CASE("fan-in consumers run once, after every producer, with the instant executor",
          "[runtime][release_batch]") {
    // Layers of producers each feeding every task of the next layer (all-to-all fan-in), wide enough that
    // one pass completes many producers of the same consumers, and more consumers than a batch holds.
    RuntimeConfig config;
    config.record_subtasks = true;
    config.record_graph = true;
    Runtime rt(config);
    rt.register_kernel(FuncId{0}, KernelInfo{"k", 1.0, nullptr, nullptr});
    constexpr int kLayers = 6;
    constexpr int kWidth = 80;
    for (int rep = 0; rep < 10; ++rep) {
        pto::run(rt, [&] {
            PTO2_SCOPE(MANUAL) {
                std::vector<TaskId> previous;
                for (int layer = 0; layer < kLayers; ++layer) {
                    std::vector<TaskId> current;
                    for (int i = 0; i < kWidth; ++i) {
                        Args a;
                        a.set_dependencies(previous);
                        if (i % 4 == 0) a.block_num(3);
                        current.push_back(i % 2 == 0 ? submit_aiv(FuncId{0}, a).task_id()
                                                     : submit_aic(FuncId{0}, a).task_id());
                    }
                    previous = std::move(current);
                }
            }
        });
        const RunReport& report = rt.last_report();
        REQUIRE(report.completed == report.submitted);
        const GraphRecord& g = rt.graph();
        CHECK(pto::test::check_recorded_run(g, rt.subtasks()).empty());
    }
}

TEST_CASE("a failing producer cancels its fan-in consumers when releases are summed",
          "[runtime][release_batch]") {
    // Compute executor: one producer of the first layer fails. Its consumers (every task of the next
    // layer, whose other producers succeed in the same passes) are cancelled, and so are theirs.
    RuntimeConfig config;
    config.executor = Executor::Compute;
    Runtime rt(config);
    rt.register_kernel(FuncId{0}, KernelInfo{"ok", 1.0, [](const KernelContext&) { return 0; }, nullptr});
    rt.register_kernel(FuncId{1}, KernelInfo{"fails", 1.0, [](const KernelContext&) { return 7; }, nullptr});
    constexpr int kWidth = 40;
    RunOptions options;
    options.throw_on_kernel_failure = false;
    const RunReport report = pto::run(
        rt,
        [&] {
            PTO2_SCOPE(MANUAL) {
                std::vector<TaskId> first;
                for (int i = 0; i < kWidth; ++i)
                    first.push_back(
                        submit_aiv(FuncId{static_cast<std::uint16_t>(i == kWidth / 2 ? 1 : 0)}, Args())
                            .task_id());
                std::vector<TaskId> second;
                for (int i = 0; i < kWidth; ++i)
                    second.push_back(submit_aiv(FuncId{0}, Args().set_dependencies(first)).task_id());
                submit_aiv(FuncId{0}, Args().set_dependencies(second));
            }
        },
        options);
    CHECK(report.submitted == 2 * kWidth + 1);
    CHECK(report.failed == 1);
    CHECK(report.cancelled == kWidth + 1);
    CHECK(report.completed == kWidth - 1);
}
