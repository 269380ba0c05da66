// BindingTables: the part of a Bindings that Bindings::tensor and ::scalar touch, as plain pointers, so
// binding (the per-argument hot path of instantiation) inlines into the caller's loop. Not API.
#pragma once

#include <cstdint>

#include "pto/runtime/tensor.h"

namespace pto::detail {

struct BindingsState;

/// throw_bad_tensor_binding / throw_bad_scalar_binding: the errors of Bindings::tensor / scalar (cold).
[[noreturn]] void throw_bad_tensor_binding(const BindingsState& s, std::uint32_t slot);
[[noreturn]] void throw_bad_scalar_binding(const BindingsState& s, std::uint32_t slot);

/// BindingTables: pointers into a Bindings' workspace and its template's CSR tables: slot s feeds
/// positions feeds[first[s] .. first[s + 1]) of the workspace arguments. Inlining the binding calls took
/// static-manual instantiation from 36.8 / 36.1 / 39.7 to 35.3 / 34.1 / 37.4 ns per task on the three
/// bodies of `pto-bench-templates --mode static-manual` (docs/design/static-graph.md).
struct BindingTables {
    TensorArg* tensors = nullptr;
    std::uint64_t* scalars = nullptr;
    const std::uint32_t* tensor_first = nullptr;
    const std::uint32_t* tensor_feeds = nullptr;
    const std::uint32_t* scalar_first = nullptr;
    const std::uint32_t* scalar_feeds = nullptr;
    std::uint32_t* tensor_stamps = nullptr;
    std::uint32_t* scalar_stamps = nullptr;
    const std::uint32_t* generation = nullptr;  // BindingsState::generation
    std::uint32_t tensor_slot_count = 0;
    std::uint32_t scalar_slot_count = 0;
};

}  // namespace pto::detail
