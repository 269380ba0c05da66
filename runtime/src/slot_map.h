// SlotMap: the one mapping from task ids to window slots. Ids are consecutive and the window is a power of
// two, so a slot is the id's low bits, and a template's relative edges (an id plus or minus an offset) map
// the same way. Every id -> slot conversion in the runtime goes through here.
#pragma once

#include <cstdint>

namespace pto::detail {

class SlotMap {
  public:
    /// `window_tasks` is a power of two (RuntimeConfig::validate checks it).
    explicit SlotMap(std::uint32_t window_tasks) : mask_(window_tasks - 1) {}

    /// slot_of: the window slot of task `id`.
    [[nodiscard]] std::uint32_t slot_of(std::uint64_t id) const {
        return static_cast<std::uint32_t>(id) & mask_;
    }
    /// after: the slot of the task `offset` ids after the one in `slot` (a template's internal consumer).
    [[nodiscard]] std::uint32_t after(std::uint32_t slot, std::uint32_t offset) const {
        return (slot + offset) & mask_;
    }
    /// before: the slot of the task `offset` ids before the one in `slot` (a template's internal producer).
    [[nodiscard]] std::uint32_t before(std::uint32_t slot, std::uint32_t offset) const {
        return (slot - offset) & mask_;
    }
    [[nodiscard]] std::uint32_t window_tasks() const { return mask_ + 1; }

  private:
    std::uint32_t mask_;
};

}  // namespace pto::detail
