// SimReadyQueues: the model's ready queues (deterministic FIFOs, one per shape) with each task's block
// counts, in the form HeldReadySource (scheduler_pass.h) takes blocks from: the same source the threaded
// schedulers use, so popping a task takes its queue token, blocks are claimed in order, and a task with
// unclaimed blocks left at the end of a pass goes back to the tail of its queue.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "task_slot.h"

namespace pto::detail::sim {

/// BlockCounts: what the source needs of a task: its width and the next block to hand out.
struct BlockCounts {
    std::uint32_t block_num = 1;
    std::uint32_t blocks_claimed = 0;
};

/// SimReadyQueues: graph indices of ready tasks per shape (AIC, AIV, MIX, DependencyOnly), oldest first,
/// and every task's block counts (indexed by graph index).
struct SimReadyQueues {
    std::deque<std::uint32_t> queue[kShapeCount];
    std::vector<BlockCounts> blocks;

    std::deque<std::uint32_t>& of(Shape s) { return queue[static_cast<int>(s)]; }
    [[nodiscard]] const std::deque<std::uint32_t>& of(Shape s) const { return queue[static_cast<int>(s)]; }

    bool try_pop(Shape shape, std::uint32_t& task) {
        std::deque<std::uint32_t>& q = of(shape);
        if (q.empty()) return false;
        task = q.front();
        q.pop_front();
        return true;
    }
    void push(Shape shape, std::uint32_t task) { of(shape).push_back(task); }
    [[nodiscard]] bool is_empty(Shape shape) const { return of(shape).empty(); }
    std::uint32_t claim_block(std::uint32_t task) { return blocks[task].blocks_claimed++; }
    [[nodiscard]] std::uint32_t block_num(std::uint32_t task) const { return blocks[task].block_num; }
};

}  // namespace pto::detail::sim
