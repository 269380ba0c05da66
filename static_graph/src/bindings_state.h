// detail::BindingsState: one Bindings' workspace: the InstanceNode array handed to
// Runtime::submit_instance, the argument arrays its specs point into, bound-slot stamps and the boundary
// producers of the next instance. Allocated once per Bindings; instantiate() only overwrites it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "template_data.h"

namespace pto::detail {

struct BindingsState {
    explicit BindingsState(std::shared_ptr<const TemplateData> shared);

    /// The template's tables, shared: a Bindings stays usable after its Template is destroyed.
    std::shared_ptr<const TemplateData> shared_tpl;
    const TemplateData* tpl;

    /// nodes[k].spec.tensors / .scalars point into `tensors` / `scalars` (never reallocated), so a binding
    /// writes a view once, where the runtime will copy it from. external_producers is set per instance.
    std::vector<InstanceNode> nodes;
    std::vector<TensorArg> tensors;
    std::vector<std::uint64_t> scalars;

    /// A slot is bound for the next instance when its stamp equals `generation`; a successful
    /// instantiate() advances the generation, unbinding every slot at once.
    std::vector<std::uint32_t> tensor_stamps;
    std::vector<std::uint32_t> scalar_stamps;
    std::uint32_t generation = 1;

    /// Explicit boundary producers of the next instance, per TemplateData::boundary_nodes entry. Cleared
    /// (capacity kept) by a successful instantiate().
    std::vector<std::vector<TaskId>> deps;
    /// Tensormap mode: explicit plus discovered producers of every boundary node, flat, and each node's
    /// range in it (spans are taken only after the last append, which may reallocate).
    std::vector<TaskId> external;
    std::vector<Range> external_ranges;

    /// advance_generation: unbinds every slot for the next instance.
    void advance_generation();
};

}  // namespace pto::detail
