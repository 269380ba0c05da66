// docs/architecture.md step 6: the ready queues, and the orchestrator's feed beside them. White-box: what the
// orchestrator stages is invisible until it publishes, dependency-only tasks skip the feed, the emptiness
// checks (which the schedulers' parking and the run's final checks rely on) see published entries, and under
// one staging thread and three popping threads every slot comes out exactly once.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

#include "ready_queues.h"

using pto::detail::ReadyQueues;
using pto::detail::Shape;

namespace {

std::vector<std::uint32_t> pop_all(ReadyQueues& q, Shape shape) {
    std::vector<std::uint32_t> out;
    std::uint32_t slot = 0;
    while (q.try_pop(shape, slot))
        out.push_back(slot);
    return out;
}

}  // namespace

TEST_CASE("the orchestrator's staged tasks reach the schedulers when it publishes",
          "[runtime][ready_queues]") {
    ReadyQueues q(64);
    q.stage(Shape::AIC, 1);
    q.stage(Shape::AIV, 2);
    q.stage(Shape::AIC, 3);
    std::uint32_t slot = 0;
    CHECK(q.has_staged());
    CHECK_FALSE(q.try_pop(Shape::AIC, slot));
    CHECK(q.is_empty(Shape::AIC));
    CHECK(q.all_empty());  // what parking and the end-of-run check see: nothing yet

    q.publish();
    CHECK_FALSE(q.has_staged());
    CHECK_FALSE(q.is_empty(Shape::AIC));
    CHECK_FALSE(q.all_empty());
    CHECK(pop_all(q, Shape::AIC) == std::vector<std::uint32_t>{1, 3});
    CHECK(pop_all(q, Shape::AIV) == std::vector<std::uint32_t>{2});
    CHECK(q.all_empty());
}

TEST_CASE("dependency-only tasks the orchestrator makes ready are queued at once",
          "[runtime][ready_queues]") {
    ReadyQueues q(64);
    q.stage(Shape::DependencyOnly, 9);
    CHECK_FALSE(q.has_staged());
    CHECK_FALSE(q.is_empty(Shape::DependencyOnly));
    CHECK(pop_all(q, Shape::DependencyOnly) == std::vector<std::uint32_t>{9});
}

TEST_CASE("a shape's feed and shared queue are popped together, the shared queue first",
          "[runtime][ready_queues]") {
    ReadyQueues q(64);
    q.stage(Shape::MIX, 10);
    q.publish();
    q.push(Shape::MIX, 20);  // a scheduler's hand-back
    CHECK(pop_all(q, Shape::MIX) == std::vector<std::uint32_t>{20, 10});
}

TEST_CASE("the feed holds as many tasks of one shape as the window", "[runtime][ready_queues]") {
    constexpr std::uint32_t kWindow = 1024;
    ReadyQueues q(kWindow);
    for (std::uint32_t i = 0; i < kWindow; ++i)
        q.stage(Shape::AIV, i);  // batches publish themselves as they fill
    q.publish();
    const std::vector<std::uint32_t> popped = pop_all(q, Shape::AIV);
    REQUIRE(popped.size() == kWindow);
    for (std::uint32_t i = 0; i < kWindow; ++i)
        CHECK(popped[i] == i);
}

TEST_CASE("one staging thread and three popping threads move every slot exactly once",
          "[runtime][ready_queues][stress]") {
    constexpr std::uint32_t kSlots = 1u << 15;
    ReadyQueues q(kSlots);
    std::vector<std::atomic<int>> seen(kSlots);
    std::atomic<std::uint32_t> popped{0};
    std::atomic<bool> producing{true};

    std::vector<std::thread> consumers;
    for (int c = 0; c < 3; ++c) {  // the a2a3 AICPU's scheduler threads
        consumers.emplace_back([&] {
            std::uint32_t slot = 0;
            for (std::uint32_t round = 0;; ++round) {
                const bool more = producing.load(std::memory_order_acquire);
                bool any = false;
                for (Shape shape : {Shape::AIC, Shape::AIV, Shape::MIX, Shape::DependencyOnly}) {
                    while (q.try_pop(shape, slot)) {
                        any = true;
                        // Kernel tasks are handed back once, as a scheduler does with blocks left, to the
                        // shared queue, where any thread may pop them again.
                        if (seen[slot].fetch_add(1) == 0 && shape != Shape::DependencyOnly) {
                            q.push(shape, slot);
                            continue;
                        }
                        popped.fetch_add(1);
                    }
                }
                // The feed has one reader at a time: an empty pass proves nothing while another thread
                // reads, so stop only once production ended and every slot came out.
                if (!more && !any && popped.load() == kSlots) return;
            }
        });
    }

    std::mt19937 rng(7);
    const Shape shapes[] = {Shape::AIC, Shape::AIV, Shape::MIX, Shape::DependencyOnly};
    for (std::uint32_t i = 0; i < kSlots; ++i) {
        q.stage(shapes[i % 4], i);
        if (rng() % 16 == 0) q.publish();
    }
    q.publish();
    producing.store(false, std::memory_order_release);
    for (std::thread& t : consumers)
        t.join();

    CHECK(q.all_empty());
    std::uint32_t wrong = 0;
    for (std::uint32_t i = 0; i < kSlots; ++i) {
        const int expected = shapes[i % 4] == Shape::DependencyOnly ? 1 : 2;
        if (seen[i].load() != expected) ++wrong;
    }
    CHECK(wrong == 0);
}
