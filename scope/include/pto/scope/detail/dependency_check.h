// The dependency checker's hook for layers that submit through Runtime directly (static templates). Not
// API: graph authors switch the checker on with RuntimeConfig::check_dependencies or PTO_CHECK_DEPS.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "pto/runtime/detail/task_port.h"

namespace pto::detail {

/// InstanceDescriber: names node `k` of the instance being checked ("template 'x' node 3 (label)"), from
/// `context`. Called only when a finding is reported.
using InstanceDescriber = std::string (*)(const void* context, std::uint32_t k);

/// is_checking_dependencies: whether the run open on this thread has the dependency checker on.
[[nodiscard]] bool is_checking_dependencies();

/// check_instance: checks and records every node of the instance submitted at `base` (node k is task
/// base + k), with its internal edges from the offsets and its external producers. In Error mode throws
/// MissingDependency after the whole instance was recorded, naming the first hazard it leaves unordered.
void check_instance(TaskId base, std::span<const InstanceNode> nodes, InstanceDescriber describe,
                    const void* context);

}  // namespace pto::detail
