// TaskTable: the slot array every thread shares: the hot TaskSlot of each window slot (task_slot.h has
// its protocol) and the cold SlotInfo beside it. Indexed by slot; TaskWindow maps ids to slots.
#pragma once

#include <cstdint>
#include <memory>

#include "pto/runtime/ids.h"
#include "task_slot.h"

namespace pto::detail {

/// SlotInfo: cold per-slot facts for reports and the compute executor, written by the orchestrator before
/// the task is published.
struct SlotInfo {
    std::uint64_t task_id;
    std::uint64_t args_offset;  // of the task's ArgRecord in Engine::args, or kNoArguments
    /// args_offset of a task that keeps no arguments (a framework task without outputs to allocate).
    static constexpr std::uint64_t kNoArguments = ~std::uint64_t{0};
};

class TaskTable {
  public:
    explicit TaskTable(std::uint32_t window_tasks)
        : slots_(std::make_unique<TaskSlot[]>(window_tasks)),
          info_(std::make_unique<SlotInfo[]>(window_tasks)) {}

    [[nodiscard]] TaskSlot& operator[](std::uint32_t slot) { return slots_[slot]; }
    [[nodiscard]] const TaskSlot& operator[](std::uint32_t slot) const { return slots_[slot]; }
    [[nodiscard]] SlotInfo& info(std::uint32_t slot) { return info_[slot]; }
    [[nodiscard]] const SlotInfo& info(std::uint32_t slot) const { return info_[slot]; }
    [[nodiscard]] TaskId task_id_of(std::uint32_t slot) const { return TaskId{info_[slot].task_id}; }

  private:
    std::unique_ptr<TaskSlot[]> slots_;
    std::unique_ptr<SlotInfo[]> info_;
};

}  // namespace pto::detail
