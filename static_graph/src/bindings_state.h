// detail::BindingsState: one Bindings' workspace: the bound slot values handed to the runtime's
// submit_planned, bound-slot stamps and the boundary producers of the next instance. Allocated once per
// Bindings; instantiate() only overwrites it.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "template_data.h"

namespace pto::detail {

struct BindingsState {
    explicit BindingsState(std::shared_ptr<const TemplateData> shared);

    /// The template's tables, shared: a Bindings stays usable after its Template is destroyed.
    std::shared_ptr<const TemplateData> shared_tpl;
    const TemplateData* tpl;

    /// The bound values, one per slot (the runtime copies them into every argument a slot feeds), and the
    /// views the runtime allocated for the create-info outputs of the last instance.
    std::vector<TensorView> tensor_slots;
    std::vector<std::uint64_t> scalar_slots;
    std::vector<TensorView> created;

    /// A slot is bound for the next instance when its stamp equals `generation`; a successful
    /// instantiate() advances the generation, unbinding every slot at once.
    std::vector<std::uint32_t> tensor_stamps;
    std::vector<std::uint32_t> scalar_stamps;
    std::uint32_t generation = 1;

    /// Explicit boundary producers of the next instance, per TemplateData::boundary_nodes entry. Cleared
    /// (capacity kept) by a successful instantiate().
    std::vector<std::vector<TaskId>> deps;
    /// Lists given to several nodes at once (Bindings::depend of a node list): kept once, in
    /// shared_lists[0 .. shared_count), and named per boundary node by shared_of (kNotShared: none). A
    /// node's list is its shared list followed by its own deps. Cleared like deps.
    static constexpr std::uint32_t kNotShared = ~0u;
    std::vector<std::vector<TaskId>> shared_lists;
    std::uint32_t shared_count = 0;
    std::vector<std::uint32_t> shared_of;
    /// Tensormap mode: explicit plus discovered producers of every boundary node, flat, and each node's
    /// range in it (spans are taken only after the last append, which may reallocate).
    std::vector<TaskId> external;
    std::vector<Range> external_ranges;
    /// Per boundary node, its producers as handed to the runtime.
    std::vector<std::span<const TaskId>> external_lists;

    /// Only with the dependency checker on: the last instance's nodes with their arguments, as the
    /// checker reads them (filled on demand, allocated once).
    std::vector<InstanceNode> checked_nodes;
    std::vector<TensorArg> checked_tensors;
    std::vector<std::uint64_t> checked_scalars;
    std::vector<TaskId> checked_producers;

    /// advance_generation: unbinds every slot for the next instance.
    void advance_generation();
    /// clear_producers: drops every boundary producer given for the next instance (capacity kept).
    void clear_producers() {
        for (auto& d : deps)
            d.clear();
        if (shared_count != 0) [[unlikely]]
            clear_shared();
    }
    void clear_shared();
};

}  // namespace pto::detail
