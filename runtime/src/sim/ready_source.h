// SimReadyQueues and SimReadySource: the model's ready queues (deterministic FIFOs, one per shape) and the
// Source plan_dispatch takes blocks from. The source mimics the threaded scheduler's ReadySource exactly:
// popping a task takes its queue token, blocks are claimed in order, and a task with unclaimed blocks left
// at the end of the pass goes back to the tail of its queue so other threads spread its SPMD blocks.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "task_slot.h"

namespace pto::detail::sim {

inline constexpr std::uint32_t kNoTask = ~0u;

/// SimReadyQueues: graph indices of ready tasks per shape (AIC, AIV, MIX, DependencyOnly), oldest first.
struct SimReadyQueues {
    std::deque<std::uint32_t> queue[kShapeCount];

    std::deque<std::uint32_t>& of(Shape s) { return queue[static_cast<int>(s)]; }
    [[nodiscard]] const std::deque<std::uint32_t>& of(Shape s) const { return queue[static_cast<int>(s)]; }
};

/// BlockCounts: what the source needs of a task: its width and the next block to hand out.
struct BlockCounts {
    std::uint32_t block_num = 1;
    std::uint32_t blocks_claimed = 0;
};

class SimReadySource {
  public:
    SimReadySource(SimReadyQueues& queues, std::vector<BlockCounts>& tasks)
        : queues_(queues), tasks_(tasks) {}

    [[nodiscard]] bool has(Shape shape) const {
        return held_[index(shape)] != kNoTask || !queues_.of(shape).empty();
    }

    bool take(Shape shape, std::uint32_t& slot, std::uint32_t& block) {
        std::uint32_t& held = held_[index(shape)];
        if (held == kNoTask) {
            std::deque<std::uint32_t>& q = queues_.of(shape);
            if (q.empty()) return false;
            held = q.front();
            q.pop_front();
        }
        BlockCounts& task = tasks_[held];
        slot = held;
        block = task.blocks_claimed++;
        if (task.blocks_claimed == task.block_num) held = kNoTask;
        return true;
    }

    /// release: tasks still holding unclaimed blocks go back to the tail of their queues.
    void release() {
        for (std::uint32_t i = 0; i < kHeldShapes; ++i) {
            if (held_[i] == kNoTask) continue;
            queues_.of(static_cast<Shape>(i)).push_back(held_[i]);
            held_[i] = kNoTask;
        }
    }

  private:
    static constexpr std::uint32_t kHeldShapes = 3;  // AIC, AIV, MIX
    static std::uint32_t index(Shape s) { return static_cast<std::uint32_t>(s); }

    SimReadyQueues& queues_;
    std::vector<BlockCounts>& tasks_;
    std::uint32_t held_[kHeldShapes] = {kNoTask, kNoTask, kNoTask};
};

}  // namespace pto::detail::sim
