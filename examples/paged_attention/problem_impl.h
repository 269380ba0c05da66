// Problem::Impl: the buffers and views of one paged-attention problem, plus the static templates of
// schemes C and D built with it (group_templates.h), so build(problem, scheme) finds them without any
// per-call setup. Private to examples/paged_attention (problem.cpp, graph_dynamic.cpp, graph_static.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "pto/examples/paged_attention.h"

namespace pto::examples::paged_attention {

/// GroupTemplates: the per-group templates of schemes C and D and their bindings (group_templates.h).
struct GroupTemplates;
struct GroupTemplatesDeleter {
    void operator()(GroupTemplates* t) const;
};
[[nodiscard]] std::unique_ptr<GroupTemplates, GroupTemplatesDeleter> make_group_templates(const Shape& shape);

struct Problem::Impl {
    Shape shape;
    Memory memory;
    std::uint32_t pages = 0;
    std::unique_ptr<VirtualAddressSpace> space;  // Virtual
    std::vector<float> query, key, value, out;   // Real
    std::vector<std::int32_t> table;             // Real
    TensorView query_view, key_view, value_view, table_view, out_view;
    /// Built by the constructor (outside any timed region); its bindings are the per-instance workspace
    /// of build(C / D), so one orchestrator thread at a time may build a given problem's static schemes.
    std::unique_ptr<GroupTemplates, GroupTemplatesDeleter> templates;
};

/// build_static: schemes C (manual = true) and D (graph_static.cpp).
void build_static(const Problem& problem, GroupTemplates& templates, bool manual);

}  // namespace pto::examples::paged_attention
