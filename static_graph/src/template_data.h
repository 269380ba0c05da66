// detail::TemplateData: the finalised, immutable tables of a Template, laid out for instantiate(): plain
// arrays indexed by node, prototype arguments in one flat array, slot feeds in CSR form.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pto/runtime/detail/instance_plan.h"
#include "pto/runtime/instance_edges.h"
#include "pto/runtime/task_desc.h"
#include "pto/runtime/tensor.h"
#include "pto/static_graph/template.h"

namespace pto::detail {

/// Range: [begin, begin + count) of some flat array.
struct Range {
    std::uint32_t begin = 0;
    std::uint32_t count = 0;
};

struct TemplateNode {
    TaskKind kind = TaskKind::Kernel;
    CoreType core = CoreType::None;
    FuncId funcs[3] = {};
    std::uint32_t block_num = 1;
    Range tensors;  // into TemplateData::tensor_protos
    Range scalars;  // into TemplateData::scalar_protos
    /// Index into TemplateData::boundary_nodes, or -1: the node takes no producers from outside.
    std::int32_t boundary = -1;
    std::string label;
};

/// BoundaryNode: a node that takes producers from outside the instance: explicit ones (Bindings::depend)
/// and, in Tensormap mode, those the tensormap finds for its boundary input arguments.
struct BoundaryNode {
    std::uint32_t node = 0;
    Range lookup_args;  // into TemplateData::boundary_args: argument indices looked up (Tensormap)
};

/// RecordedNode: a node whose boundary output arguments are recorded after instantiation (Tensormap).
struct RecordedNode {
    std::uint32_t node = 0;
    Range record_args;  // into TemplateData::boundary_args
};

/// TemplateSlot: one slot's name and the flat argument positions it feeds.
struct TemplateSlot {
    std::string name;
    Range feeds;  // into TemplateData::tensor_feeds / scalar_feeds
};

struct TemplateData {
    std::string name;
    BoundaryMode mode = BoundaryMode::Manual;
    std::vector<TemplateNode> nodes;

    // Prototype arguments, every node's in order: constants and create-infos filled in, slot-fed tensor
    // positions carrying only their direction.
    std::vector<TensorArg> tensor_protos;
    std::vector<std::uint64_t> scalar_protos;
    // Per position: the slot feeding it, or detail::kNotBound (a constant or create-info).
    std::vector<std::uint32_t> tensor_sources;
    std::vector<std::uint32_t> scalar_sources;
    // Per tensor position: its index among the create-info outputs (Bindings' allocated views), or
    // kNotBound.
    std::vector<std::uint32_t> created_index;

    // The runtime's copy of everything above that instances share, checked once: an instance hands it
    // only the bound slots and boundary producers.
    std::shared_ptr<const InstancePlan> plan;

    // Internal edges, offsets relative to the node. The runtime's task slots point into these tables
    // while instances run; it holds a reference on them until an instance's last task retires, so the
    // Template and its Bindings may go at any time.
    std::shared_ptr<const InstanceEdges> edges;

    std::vector<TemplateSlot> tensor_slots;
    std::vector<TemplateSlot> scalar_slots;
    std::vector<std::uint32_t> tensor_feed_first;  // slot s feeds tensor_feeds[first[s] .. first[s + 1])
    std::vector<std::uint32_t> scalar_feed_first;
    std::vector<std::uint32_t> tensor_feeds;       // positions in tensor_protos
    std::vector<std::uint32_t> scalar_feeds;       // positions in scalar_protos
    std::vector<std::uint32_t> used_tensor_slots;  // slots feeding at least one argument: must be bound
    std::vector<std::uint32_t> used_scalar_slots;
    std::vector<std::uint32_t> create_info_positions;  // positions in tensor_protos

    std::vector<BoundaryNode> boundary_nodes;
    std::vector<RecordedNode> recorded_nodes;
    std::vector<std::uint32_t> boundary_args;
    bool has_boundary_inputs = false;

    std::vector<std::uint32_t> sinks;

    /// describe_node: "template 'x' node 3 (label)" for messages.
    [[nodiscard]] std::string describe_node(std::uint32_t k) const;
    /// label_of: the node's label, or its kernel / kind.
    [[nodiscard]] std::string label_of(std::uint32_t k) const;
};

}  // namespace pto::detail
