// TemplateBuilder::Description: what the builder collected, exactly as declared and not yet checked;
// finalize.cpp validates it and turns it into TemplateData.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "pto/static_graph/template.h"

namespace pto {

struct TemplateBuilder::Description {
    struct Node {
        TaskKind kind;
        CoreType core;
        FuncId funcs[3];
        NodeArgs args;
    };
    /// NodeArg: a (node, tensor argument) pair named by a boundary declaration, by argument position or by
    /// the slot that feeds it (then `arg` is kBySlot and finalize resolves it to every argument `slot`
    /// feeds).
    struct NodeArg {
        std::uint32_t node;
        std::uint32_t arg;
        std::uint32_t slot = 0;
    };
    static constexpr std::uint32_t kBySlot = ~0u;

    std::string name;
    BoundaryMode mode;
    std::vector<std::string> tensor_slot_names;
    std::vector<std::string> scalar_slot_names;
    std::vector<Node> nodes;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;  // (producer, consumer) as declared
    std::vector<std::uint32_t> boundary_nodes;                   // boundary_input(node)
    std::vector<NodeArg> boundary_inputs;                        // boundary_input(node, arg or slot)
    std::vector<NodeArg> boundary_outputs;                       // boundary_output(node, arg or slot)
};

}  // namespace pto
