// BindingTables: the part of a Bindings that Bindings::tensor and ::scalar touch, as plain pointers, so
// binding (the per-slot hot path of instantiation) inlines into the caller's loop. Not API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "pto/runtime/detail/copy_view.h"
#include "pto/runtime/tensor.h"

namespace pto::detail {

struct BindingsState;

/// throw_bad_tensor_binding / throw_bad_scalar_binding: the errors of Bindings::tensor / scalar (cold).
[[noreturn]] void throw_bad_tensor_binding(const BindingsState& s, std::uint32_t slot);
[[noreturn]] void throw_bad_scalar_binding(const BindingsState& s, std::uint32_t slot);
/// throw_bad_binding_slice: Bindings::tensor with slices, one of which leaves `view` (cold); unbinds the
/// slot, whose storage holds a partly narrowed view.
[[noreturn]] void throw_bad_binding_slice(BindingsState& s, std::uint32_t slot, const TensorView& view,
                                          std::initializer_list<Slice> slices);

/// BindingTables: pointers into a Bindings' workspace: one bound view and one bound scalar per slot (the
/// runtime copies each to every argument the slot feeds when it writes the instance's arguments), and the
/// stamps saying which slots are bound for the next instance.
struct BindingTables {
    TensorView* tensor_slots = nullptr;
    std::uint64_t* scalar_slots = nullptr;
    std::uint32_t* tensor_stamps = nullptr;
    std::uint32_t* scalar_stamps = nullptr;
    const std::uint32_t* generation = nullptr;  // BindingsState::generation
    std::uint32_t tensor_slot_count = 0;
    std::uint32_t scalar_slot_count = 0;
};

}  // namespace pto::detail
