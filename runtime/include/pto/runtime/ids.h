// Strong identifier types shared by every layer: TaskId, FuncId and the core types of the machine model
// (docs/design/machine-model.md). Only the task ring maps a TaskId to a slot; everything else passes ids
// around.
#pragma once

#include <algorithm>
#include <compare>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string_view>

namespace pto {

/// TaskId names one submitted task. Ids are 64-bit and increase by one per submit, in submission order, for
/// the lifetime of a Runtime (they continue across runs, so an id from an earlier run is never reused).
struct TaskId {
    std::uint64_t value = kInvalidValue;

    static constexpr std::uint64_t kInvalidValue = std::numeric_limits<std::uint64_t>::max();

    constexpr TaskId() = default;
    constexpr explicit TaskId(std::uint64_t v) : value(v) {}

    /// is_valid: false only for a default-constructed id (returned by calls that create no task).
    [[nodiscard]] constexpr bool is_valid() const { return value != kInvalidValue; }

    friend constexpr auto operator<=>(TaskId, TaskId) = default;

    /// The id `n` submits after this one; what static templates use to address nodes of an instance.
    [[nodiscard]] constexpr TaskId plus(std::uint64_t n) const { return TaskId{value + n}; }
};

/// RetiredTasks: what the orchestrator knows of retirement: every task below `before` has retired, and
/// `unsuccessful` lists, in ascending order, the tasks of the current run below `before` that failed or
/// were cancelled. A consumer of such a task is cancelled even though the task itself is long gone, so
/// layers that remember accesses (the tensormap) keep those tasks' entries instead of reclaiming them.
/// A bare watermark converts implicitly (no failures known). The span points into the runtime and is
/// valid until its next retirement (Runtime::try_retire, wait_for_retirement, submit).
struct RetiredTasks {
    TaskId before;
    std::span<const TaskId> unsuccessful;

    constexpr RetiredTasks(TaskId watermark, std::span<const TaskId> failed = {})  // NOLINT: implicit
        : before(watermark), unsuccessful(failed) {}

    /// is_unsuccessful: whether retired task `t` failed or was cancelled (a binary search; O(1) while
    /// nothing failed).
    [[nodiscard]] bool is_unsuccessful(TaskId t) const {
        return !unsuccessful.empty() && std::binary_search(unsuccessful.begin(), unsuccessful.end(), t);
    }
};

/// FuncId names a kernel in the runtime's kernel table (registered with Runtime::register_kernel).
struct FuncId {
    std::uint16_t value = kNoneValue;

    static constexpr std::uint16_t kNoneValue = std::numeric_limits<std::uint16_t>::max();

    constexpr FuncId() = default;
    constexpr explicit FuncId(std::uint16_t v) : value(v) {}

    [[nodiscard]] constexpr bool is_none() const { return value == kNoneValue; }
    friend constexpr auto operator<=>(FuncId, FuncId) = default;
};

/// CoreType: where a task's subtasks run. MIX starts one AIC and both AIV of one cluster together; a MIX
/// subtask completes when all three lanes finish. None marks framework tasks (alloc, dependency-only).
enum class CoreType : std::uint8_t { AIC = 0, AIV = 1, MIX = 2, None = 3 };

/// Number of CoreType values that dispatch to cores (AIC, AIV, MIX).
inline constexpr int kDispatchCoreTypes = 3;

[[nodiscard]] constexpr std::string_view to_string(CoreType t) {
    switch (t) {
        case CoreType::AIC:
            return "AIC";
        case CoreType::AIV:
            return "AIV";
        case CoreType::MIX:
            return "MIX";
        case CoreType::None:
            return "none";
    }
    return "?";
}

}  // namespace pto

template <>
struct std::hash<pto::TaskId> {
    std::size_t operator()(pto::TaskId id) const noexcept { return std::hash<std::uint64_t>{}(id.value); }
};
