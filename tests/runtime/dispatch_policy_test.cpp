// docs/architecture.md, white-box: the pure dispatch policy shared by the scheduler threads and the
// virtual-time model. MIX takes whole idle clusters first, idle cores come before pending slots, SPMD blocks
// are spread; a plan asks each empty ready queue once.
#include <catch2/catch.hpp>

#include <deque>
#include <vector>

#include "dispatch_policy.h"
#include "scheduler_pass.h"

using pto::detail::ClusterOccupancy;
using pto::detail::Placement;
using pto::detail::plan_dispatch;
using pto::detail::Shape;

namespace {

/// FakeSource: FIFO queues of (slot, block_num) per shape; take() hands out blocks in order.
struct FakeSource {
    struct Task {
        std::uint32_t slot;
        std::uint32_t block_num;
        std::uint32_t claimed = 0;
    };
    std::deque<Task> queues[4];

    void add(Shape s, std::uint32_t slot, std::uint32_t blocks) {
        queues[static_cast<int>(s)].push_back({slot, blocks});
    }
    bool has(Shape s) const { return !queues[static_cast<int>(s)].empty(); }
    bool take(Shape s, std::uint32_t& slot, std::uint32_t& block) {
        auto& q = queues[static_cast<int>(s)];
        if (q.empty()) return false;
        Task& t = q.front();
        slot = t.slot;
        block = t.claimed++;
        if (t.claimed == t.block_num) q.pop_front();
        return true;
    }
};

std::vector<Placement> plan(std::vector<ClusterOccupancy>& clusters, FakeSource& src, bool pending,
                            pto::detail::IdleElsewhere elsewhere = {}) {
    std::vector<Placement> out(clusters.size() * 6);
    const std::uint32_t n =
        plan_dispatch(std::span<ClusterOccupancy>(clusters), src, pending, elsewhere, out.data());
    out.resize(n);
    return out;
}

}  // namespace

TEST_CASE("a MIX block takes all three units of one idle cluster", "[runtime][dispatch]") {
    std::vector<ClusterOccupancy> clusters(2);
    clusters[0].running[1] = true;  // cluster 0 is partly busy
    FakeSource src;
    src.add(Shape::MIX, 7, 1);
    const auto placed = plan(clusters, src, false);
    REQUIRE(placed.size() == 3);
    for (std::uint32_t lane = 0; lane < 3; ++lane) {
        CHECK(placed[lane].cluster == 1);
        CHECK(placed[lane].unit == lane);
        CHECK(placed[lane].lane == lane);
        CHECK(placed[lane].slot == 7);
    }
}

TEST_CASE("SPMD blocks fill every idle core of the right type, each block once", "[runtime][dispatch]") {
    std::vector<ClusterOccupancy> clusters(4);
    FakeSource src;
    src.add(Shape::AIV, 3, 5);
    src.add(Shape::AIC, 4, 10);
    const auto placed = plan(clusters, src, false);
    std::vector<int> aiv_blocks(5, 0);
    std::vector<int> aic_blocks(10, 0);
    for (const Placement& p : placed) {
        if (p.slot == 3) {
            CHECK(p.unit != 0);
            ++aiv_blocks[p.block];
        } else {
            CHECK(p.unit == 0);
            ++aic_blocks[p.block];
        }
    }
    for (int n : aiv_blocks)
        CHECK(n == 1);  // 8 AIV cores >= 5 blocks: all placed
    int aic_placed = 0;
    for (int n : aic_blocks)
        aic_placed += n;
    CHECK(aic_placed == 4);  // only 4 AIC cores
    CHECK(src.has(Shape::AIC));
}

TEST_CASE("idle cores are filled before pending slots, and pending slots only with pending allowed",
          "[runtime][dispatch]") {
    std::vector<ClusterOccupancy> clusters(2);
    clusters[0].running[0] = true;  // cluster 0's AIC busy, cluster 1's idle
    FakeSource src;
    src.add(Shape::AIC, 1, 3);
    auto placed = plan(clusters, src, false);
    REQUIRE(placed.size() == 1);
    CHECK(placed[0].cluster == 1);
    CHECK_FALSE(placed[0].to_pending);

    std::vector<ClusterOccupancy> again(2);
    again[0].running[0] = true;
    FakeSource src2;
    src2.add(Shape::AIC, 1, 3);
    placed = plan(again, src2, true);
    REQUIRE(placed.size() == 3);
    CHECK_FALSE(placed[0].to_pending);
    CHECK(placed[0].cluster == 1);
    CHECK(placed[1].to_pending);
    CHECK(placed[2].to_pending);
}

TEST_CASE("while MIX waits, the least busy cluster receives no new AIC or AIV work", "[runtime][dispatch]") {
    std::vector<ClusterOccupancy> clusters(2);
    clusters[0].running[0] = clusters[0].running[1] = true;  // 2 busy units
    clusters[1].running[0] = true;                           // 1 busy unit: reserved to drain
    FakeSource src;
    src.add(Shape::MIX, 9, 1);
    src.add(Shape::AIV, 2, 8);
    const auto placed = plan(clusters, src, false);
    for (const Placement& p : placed)
        CHECK(p.cluster == 0);
    REQUIRE(placed.size() == 1);  // cluster 0's one idle AIV
}

TEST_CASE("work is not parked in pending slots while another thread has an idle core for it",
          "[runtime][dispatch]") {
    std::vector<ClusterOccupancy> clusters(1);
    clusters[0].running[0] = clusters[0].running[1] = clusters[0].running[2] = true;
    FakeSource src;
    src.add(Shape::AIV, 1, 4);
    src.add(Shape::AIC, 2, 4);
    const auto placed = plan(clusters, src, true, pto::detail::IdleElsewhere{0, 3});
    // AIV work waits for the other thread's idle AIV cores; AIC work may use the pending slot.
    REQUIRE(placed.size() == 1);
    CHECK(placed[0].unit == 0);
    CHECK(placed[0].to_pending);
}

namespace {

/// CountingQueues: the queue interface HeldReadySource reads (scheduler_pass.h), counting the pops it tries.
struct CountingQueues {
    std::deque<std::uint32_t> queues[4];
    std::uint32_t blocks[16] = {};
    std::uint32_t claimed[16] = {};
    int pops_tried[4] = {};

    bool try_pop(Shape s, std::uint32_t& slot) {
        ++pops_tried[static_cast<int>(s)];
        auto& q = queues[static_cast<int>(s)];
        if (q.empty()) return false;
        slot = q.front();
        q.pop_front();
        return true;
    }
    void push(Shape s, std::uint32_t slot) { queues[static_cast<int>(s)].push_back(slot); }
    bool is_empty(Shape s) const { return queues[static_cast<int>(s)].empty(); }
    std::uint32_t claim_block(std::uint32_t slot) { return claimed[slot]++; }
    std::uint32_t block_num(std::uint32_t slot) const { return blocks[slot]; }
};

}  // namespace

TEST_CASE("a plan asks an empty ready queue once, however many cores are free", "[runtime][dispatch]") {
    // A failed pop reads lines other threads write; eight idle clusters would otherwise ask the empty AIC
    // queue eight times and the drained AIV queue fourteen.
    CountingQueues queues;
    queues.blocks[1] = queues.blocks[2] = 1;
    queues.push(Shape::AIV, 1);
    queues.push(Shape::AIV, 2);
    std::vector<ClusterOccupancy> clusters(8);
    std::vector<Placement> out(clusters.size() * 6);
    pto::detail::HeldReadySource source(queues);
    const std::uint32_t placed =
        plan_dispatch(std::span<ClusterOccupancy>(clusters), source, true, {}, out.data());
    CHECK(placed == 2);
    CHECK(queues.pops_tried[static_cast<int>(Shape::AIV)] == 3);
    CHECK(queues.pops_tried[static_cast<int>(Shape::AIC)] == 1);
    CHECK(queues.pops_tried[static_cast<int>(Shape::MIX)] == 0);
    CHECK_FALSE(source.release());

    // Work pushed after the plan is seen by the next one, which starts with a fresh source.
    queues.blocks[3] = 2;
    queues.push(Shape::AIC, 3);
    std::vector<ClusterOccupancy> next(8);
    pto::detail::HeldReadySource again(queues);
    CHECK(plan_dispatch(std::span<ClusterOccupancy>(next), again, true, {}, out.data()) == 2);
    CHECK(out[0].slot == 3);
    CHECK(out[1].slot == 3);
    CHECK(out[0].block != out[1].block);
}
