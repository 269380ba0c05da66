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
    /// NodeArg: a (node, tensor argument) pair named by a boundary declaration.
    struct NodeArg {
        std::uint32_t node;
        std::uint32_t arg;
    };

    std::string name;
    BoundaryMode mode;
    std::vector<std::string> tensor_slot_names;
    std::vector<std::string> scalar_slot_names;
    std::vector<Node> nodes;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;  // (producer, consumer) as declared
    std::vector<std::uint32_t> boundary_nodes;                   // boundary_input(node)
    std::vector<NodeArg> boundary_inputs;                        // boundary_input(node, arg)
    std::vector<NodeArg> boundary_outputs;                       // boundary_output(node, arg)
};

}  // namespace pto
