// BindingTables: the part of a Bindings that Bindings::tensor and ::scalar touch, as plain pointers, so
// binding (the per-slot hot path of instantiation) inlines into the caller's loop. Not API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "pto/runtime/tensor.h"

namespace pto::detail {

struct BindingsState;

/// throw_bad_tensor_binding / throw_bad_scalar_binding: the errors of Bindings::tensor / scalar (cold).
[[noreturn]] void throw_bad_tensor_binding(const BindingsState& s, std::uint32_t slot);
[[noreturn]] void throw_bad_scalar_binding(const BindingsState& s, std::uint32_t slot);

/// copy_view: copies a whole view, padding included, 16 bytes at a time (six vector moves). A plain
/// assignment copies its 91 bytes of members, and GCC turns that (or one memcpy of the whole object) into
/// `rep movs` here, several times slower for one view.
inline void copy_view(TensorView& to, const TensorView& from) {
    static_assert(sizeof(TensorView) % 16 == 0 && std::is_trivially_copyable_v<TensorView>);
    auto* dst = reinterpret_cast<unsigned char*>(&to);
    const auto* src = reinterpret_cast<const unsigned char*>(&from);
    for (std::size_t i = 0; i < sizeof(TensorView); i += 16)
        std::memcpy(dst + i, src + i, 16);
}

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
