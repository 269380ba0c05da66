// Bindings: building a template's per-instance workspace once, and writing bound tensors, scalars and
// manual boundary producers straight into it (the runtime copies arguments from there at submission).
#include "pto/static_graph/instance.h"

#include "pto/runtime/detail/throw.h"

#include "bindings_state.h"

#include <algorithm>
#include <string>
#include <utility>

namespace pto {

namespace detail {

BindingsState::BindingsState(std::shared_ptr<const TemplateData> shared)
    : shared_tpl(std::move(shared)),
      tpl(shared_tpl.get()),
      tensor_slots(tpl->tensor_slots.size()),
      scalar_slots(tpl->scalar_slots.size(), 0),
      created(tpl->create_info_positions.size()),
      tensor_stamps(tpl->tensor_slots.size(), 0),
      scalar_stamps(tpl->scalar_slots.size(), 0),
      deps(tpl->boundary_nodes.size()),
      shared_of(tpl->boundary_nodes.size(), kNotShared),
      external_ranges(tpl->boundary_nodes.size()),
      external_lists(tpl->boundary_nodes.size()) {
    for (std::size_t i = 0; i < created.size(); ++i)
        created[i] = tpl->tensor_protos[tpl->create_info_positions[i]].view;  // until the first instance
    for (auto& d : deps)
        d.reserve(16);
    if (tpl->mode == BoundaryMode::Tensormap) external.reserve(16 * tpl->boundary_nodes.size());
}

void BindingsState::clear_shared() {
    for (std::uint32_t i = 0; i < shared_count; ++i)
        shared_lists[i].clear();
    shared_count = 0;
    std::fill(shared_of.begin(), shared_of.end(), kNotShared);
}

void BindingsState::advance_generation() {
    if (++generation == 0) [[unlikely]] {
        // After 2^32 instances: restart the stamps so no stale stamp can equal the new generation.
        std::fill(tensor_stamps.begin(), tensor_stamps.end(), 0);
        std::fill(scalar_stamps.begin(), scalar_stamps.end(), 0);
        generation = 1;
    }
}

}  // namespace detail

namespace {

[[noreturn]] void throw_bad_slot(const detail::TemplateData& t, const char* kind, std::uint32_t index,
                                 std::size_t count) {
    detail::throw_error(ErrorCode::InvalidArgument,
                        "Bindings of template '" + t.name + "': " + kind + " slot " +
                            (index == ~0u ? std::string("(default-constructed)") : std::to_string(index)) +
                            " is not a slot of this template, which declares " + std::to_string(count) + " " +
                            kind + " slots (a slot of another template?)");
}

[[noreturn]] void throw_null_view(const detail::TemplateData& t, std::uint32_t index) {
    detail::throw_error(
        ErrorCode::InvalidArgument,
        "Bindings of template '" + t.name + "': tensor slot '" + t.tensor_slots[index].name +
            "' is bound to a view without a buffer; buffers the runtime allocates are declared in "
            "the template (NodeArgs::output(TensorCreateInfo)), or allocated with alloc_tensors "
            "first");
}

}  // namespace

void detail::throw_bad_tensor_binding(const BindingsState& s, std::uint32_t slot) {
    const TemplateData& t = *s.tpl;
    if (slot >= t.tensor_slots.size()) throw_bad_slot(t, "tensor", slot, t.tensor_slots.size());
    throw_null_view(t, slot);
}

void detail::throw_bad_scalar_binding(const BindingsState& s, std::uint32_t slot) {
    throw_bad_slot(*s.tpl, "scalar", slot, s.tpl->scalar_slots.size());
}

void detail::throw_bad_binding_slice(BindingsState& s, std::uint32_t slot, const TensorView& view,
                                     std::initializer_list<Slice> slices) {
    s.tensor_stamps[slot] = 0;  // never a generation: unbound
    const TemplateData& t = *s.tpl;
    detail::throw_error(ErrorCode::InvalidTensor,
                        "Bindings of template '" + t.name + "': tensor slot '" + t.tensor_slots[slot].name +
                            "': " + detail::describe_bad_slice(view, slices) + "; the slot is left unbound");
}

Bindings::Bindings(const Template& tpl) {
    if (!tpl.is_valid()) [[unlikely]]
        detail::throw_error(
            ErrorCode::InvalidArgument,
            "Bindings of a default-constructed Template: build it with TemplateBuilder::finalize");
    s_ = std::make_unique<detail::BindingsState>(tpl.data_);
    const detail::TemplateData& t = *tpl.data_;
    detail::BindingsState& s = *s_;
    // Pointers into vectors that never reallocate after construction (and move with the state).
    tables_.tensor_slots = s.tensor_slots.data();
    tables_.scalar_slots = s.scalar_slots.data();
    tables_.tensor_stamps = s.tensor_stamps.data();
    tables_.scalar_stamps = s.scalar_stamps.data();
    tables_.generation = &s.generation;
    tables_.tensor_slot_count = static_cast<std::uint32_t>(t.tensor_slots.size());
    tables_.scalar_slot_count = static_cast<std::uint32_t>(t.scalar_slots.size());
}

Bindings::~Bindings() = default;
// A moved-from Bindings keeps no pointers into the workspace it gave away.
Bindings::Bindings(Bindings&& other) noexcept
    : s_(std::move(other.s_)), tables_(std::exchange(other.tables_, detail::BindingTables{})) {}

Bindings& Bindings::operator=(Bindings&& other) noexcept {
    s_ = std::move(other.s_);
    tables_ = std::exchange(other.tables_, detail::BindingTables{});
    return *this;
}

namespace {

[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_depend(const detail::TemplateData& t,
                                                             std::uint32_t node) {
    if (node >= t.nodes.size())
        detail::throw_error(ErrorCode::InvalidArgument, "Bindings::depend: template '" + t.name + "' has " +
                                                            std::to_string(t.nodes.size()) +
                                                            " nodes; there is no node " +
                                                            std::to_string(node));
    detail::throw_error(
        ErrorCode::InvalidArgument,
        "Bindings::depend: " + t.describe_node(node) +
            " is not a boundary input, so it takes no producers from outside the instance: declare "
            "it with TemplateBuilder::boundary_input(" +
            std::to_string(node) + ") or name the intended node");
}

/// boundary_index: node `node`'s entry in TemplateData::boundary_nodes (InvalidArgument if it has none).
std::size_t boundary_index(const detail::BindingsState& s, std::uint32_t node) {
    const detail::TemplateData& t = *s.tpl;
    if (node >= t.nodes.size() || t.nodes[node].boundary < 0) [[unlikely]]
        throw_bad_depend(t, node);
    return static_cast<std::size_t>(t.nodes[node].boundary);
}

std::vector<TaskId>& boundary_deps(detail::BindingsState& s, std::uint32_t node) {
    return s.deps[boundary_index(s, node)];
}

}  // namespace

Bindings& Bindings::depend(std::uint32_t node, TaskId producer) {
    boundary_deps(*s_, node).push_back(producer);
    return *this;
}

Bindings& Bindings::depend(std::uint32_t node, std::span<const TaskId> producers) {
    std::vector<TaskId>& deps = boundary_deps(*s_, node);
    deps.insert(deps.end(), producers.begin(), producers.end());
    return *this;
}

Bindings& Bindings::depend(std::span<const std::uint32_t> nodes, std::span<const TaskId> producers) {
    detail::BindingsState& s = *s_;
    for (const std::uint32_t node : nodes)
        (void)boundary_index(s, node);  // every node checked before anything changes
    if (nodes.empty() || producers.empty()) return *this;
    if (s.shared_count == s.shared_lists.size()) s.shared_lists.emplace_back();
    const std::uint32_t list = s.shared_count++;
    s.shared_lists[list].assign(producers.begin(), producers.end());
    for (const std::uint32_t node : nodes) {
        const std::size_t b = boundary_index(s, node);
        // A node that has a shared list already takes this one as its own producers.
        if (s.shared_of[b] == detail::BindingsState::kNotShared)
            s.shared_of[b] = list;
        else
            s.deps[b].insert(s.deps[b].end(), producers.begin(), producers.end());
    }
    return *this;
}

void Bindings::clear() {
    s_->clear_producers();
    s_->advance_generation();
}

const TensorView& Bindings::submitted_view(std::uint32_t node, std::uint32_t arg) const {
    const detail::TemplateData& t = *s_->tpl;
    if (node >= t.nodes.size() || arg >= t.nodes[node].tensors.count) [[unlikely]]
        detail::throw_error(
            ErrorCode::InvalidArgument,
            "Bindings::submitted_view: " +
                (node >= t.nodes.size()
                     ? "template '" + t.name + "' has no node " + std::to_string(node)
                     : t.describe_node(node) + " has " + std::to_string(t.nodes[node].tensors.count) +
                           " tensor arguments, not " + std::to_string(arg + 1)));
    const std::uint32_t position = t.nodes[node].tensors.begin + arg;
    if (t.tensor_sources[position] != detail::kNotBound) return s_->tensor_slots[t.tensor_sources[position]];
    if (t.created_index[position] != detail::kNotBound) return s_->created[t.created_index[position]];
    return t.tensor_protos[position].view;
}

}  // namespace pto
