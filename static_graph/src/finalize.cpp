// TemplateBuilder::finalize: validates a template description with errors naming the template, node and
// slot, then precomputes what instantiation reads: per-node offset tables, fanin counts, prototype
// arguments, slot feeds, boundary groups and sinks.
#include "pto/static_graph/template.h"

#include "pto/runtime/detail/throw.h"

#include "description.h"
#include "template_data.h"

#include <algorithm>
#include <string>
#include <utility>

namespace pto {
namespace {

using Description = TemplateBuilder::Description;

std::string quoted(const std::string& name) {
    return "'" + name + "'";
}

/// Checker: the messages of one finalize call. Node descriptions use the labels already copied to `t`.
class Checker {
  public:
    explicit Checker(const detail::TemplateData& t) : t_(t) {}

    [[noreturn]] void fail(ErrorCode code, const std::string& what) const {
        detail::throw_error(code, "template " + quoted(t_.name) + ": " + what);
    }
    [[noreturn]] void fail_node(ErrorCode code, std::uint32_t k, const std::string& what) const {
        detail::throw_error(code, t_.describe_node(k) + ": " + what);
    }

  private:
    const detail::TemplateData& t_;
};

void check_view_rank(const Checker& c, std::uint32_t k, std::uint32_t arg, const TensorView& v,
                     const char* what) {
    if (v.ndim < 1 || v.ndim > kMaxTensorDims)
        c.fail_node(ErrorCode::InvalidTensor, k,
                    "tensor argument " + std::to_string(arg) + " (" + what + ") has rank " +
                        std::to_string(v.ndim) + "; ranks are 1.." + std::to_string(kMaxTensorDims));
}

void check_kind_and_core(const Checker& c, const Description::Node& n, std::uint32_t k) {
    const std::uint32_t block_num = n.args.block_count();
    switch (n.kind) {
        case TaskKind::Kernel: {
            if (n.core != CoreType::AIC && n.core != CoreType::AIV && n.core != CoreType::MIX)
                c.fail_node(
                    ErrorCode::InvalidArgument, k,
                    "a kernel node needs core type AIC, AIV or MIX, not " + std::string(to_string(n.core)));
            const int lanes = n.core == CoreType::MIX ? 3 : 1;
            for (int l = 0; l < lanes; ++l)
                if (n.funcs[l].is_none())
                    c.fail_node(ErrorCode::InvalidTemplate, k,
                                n.core == CoreType::MIX
                                    ? "a MIX node needs three kernels (AIC, AIV0, AIV1); kernel " +
                                          std::to_string(l) + " is FuncId none"
                                    : std::string("a kernel node needs a kernel; its FuncId is none"));
            if (block_num < 1 || block_num > kMaxBlockNum)
                c.fail_node(ErrorCode::InvalidBlockNum, k,
                            "block_num = " + std::to_string(block_num) + "; it must be in 1.." +
                                std::to_string(kMaxBlockNum));
            break;
        }
        case TaskKind::DependencyOnly:
            if (n.core != CoreType::None)
                c.fail_node(ErrorCode::InvalidArgument, k,
                            "a dependency-only node runs on no core; its core type must be none, not " +
                                std::string(to_string(n.core)));
            if (block_num != 1)
                c.fail_node(ErrorCode::InvalidBlockNum, k,
                            "a dependency-only node has block_num 1, not " + std::to_string(block_num));
            break;
        case TaskKind::Alloc:
            c.fail_node(
                ErrorCode::InvalidArgument, k,
                "alloc nodes are not supported in templates: call alloc_tensors before instantiating and "
                "bind the views, or give the node create-info outputs");
    }
}

/// copy_nodes: node constants, labels and prototype arguments; checks every node on its own.
void copy_nodes(const Description& d, detail::TemplateData& t, const Checker& c) {
    t.nodes.resize(d.nodes.size());
    for (std::uint32_t k = 0; k < d.nodes.size(); ++k) {
        t.nodes[k].label = d.nodes[k].args.label_text();
        t.nodes[k].kind = d.nodes[k].kind;
        t.nodes[k].core = d.nodes[k].core;
        for (int l = 0; l < 3; ++l)
            t.nodes[k].funcs[l] = d.nodes[k].funcs[l];
    }
    std::vector<std::vector<std::uint32_t>> tensor_feeds(d.tensor_slot_names.size());
    std::vector<std::vector<std::uint32_t>> scalar_feeds(d.scalar_slot_names.size());
    for (std::uint32_t k = 0; k < d.nodes.size(); ++k) {
        const Description::Node& n = d.nodes[k];
        detail::TemplateNode& out = t.nodes[k];
        check_kind_and_core(c, n, k);
        out.block_num = n.args.block_count();
        const auto tensors = n.args.tensors();
        const auto scalars = n.args.scalars();
        if (tensors.size() > kMaxTensorArgs || scalars.size() > kMaxScalarArgs)
            c.fail_node(ErrorCode::TooManyArguments, k,
                        std::to_string(tensors.size()) + " tensor and " + std::to_string(scalars.size()) +
                            " scalar arguments; at most " + std::to_string(kMaxTensorArgs) + " and " +
                            std::to_string(kMaxScalarArgs));
        out.tensors = {static_cast<std::uint32_t>(t.tensor_protos.size()),
                       static_cast<std::uint32_t>(tensors.size())};
        for (std::uint32_t a = 0; a < tensors.size(); ++a) {
            const NodeArgs::TensorParam& p = tensors[a];
            const auto position = static_cast<std::uint32_t>(t.tensor_protos.size());
            TensorArg proto{};
            proto.direction = p.direction;
            switch (p.source) {
                case NodeArgs::TensorSource::Slot:
                    if (p.slot >= d.tensor_slot_names.size())
                        c.fail_node(ErrorCode::InvalidTemplate, k,
                                    "tensor argument " + std::to_string(a) + " names tensor slot " +
                                        std::to_string(p.slot) + ", but the template declares " +
                                        std::to_string(d.tensor_slot_names.size()) +
                                        " tensor slots (a slot of another builder?)");
                    tensor_feeds[p.slot].push_back(position);
                    proto.view.ndim = 0;  // bound per instance
                    t.tensor_sources.push_back(p.slot);
                    t.created_index.push_back(detail::kNotBound);
                    break;
                case NodeArgs::TensorSource::Constant:
                    if (p.view.base == nullptr)
                        c.fail_node(ErrorCode::InvalidTensor, k,
                                    "constant tensor argument " + std::to_string(a) +
                                        " has no buffer; declare runtime-allocated outputs with a "
                                        "TensorCreateInfo and per-instance tensors with a slot");
                    check_view_rank(c, k, a, p.view, "constant");
                    if (detail::used_stride_bits(p.view) < 0)
                        c.fail_node(ErrorCode::InvalidTensor, k,
                                    "constant tensor argument " + std::to_string(a) +
                                        " has a negative stride; strides are >= 0");
                    proto.view = p.view;
                    t.tensor_sources.push_back(detail::kNotBound);
                    t.created_index.push_back(detail::kNotBound);
                    break;
                case NodeArgs::TensorSource::CreateInfo:
                    check_view_rank(c, k, a, p.view, "create-info output");
                    proto.view = p.view;
                    t.tensor_sources.push_back(detail::kNotBound);
                    t.created_index.push_back(static_cast<std::uint32_t>(t.create_info_positions.size()));
                    t.create_info_positions.push_back(position);
                    break;
            }
            t.tensor_protos.push_back(proto);
        }
        out.scalars = {static_cast<std::uint32_t>(t.scalar_protos.size()),
                       static_cast<std::uint32_t>(scalars.size())};
        for (std::uint32_t a = 0; a < scalars.size(); ++a) {
            const NodeArgs::ScalarParam& p = scalars[a];
            if (p.is_slot) {
                if (p.slot >= d.scalar_slot_names.size())
                    c.fail_node(ErrorCode::InvalidTemplate, k,
                                "scalar argument " + std::to_string(a) + " names scalar slot " +
                                    std::to_string(p.slot) + ", but the template declares " +
                                    std::to_string(d.scalar_slot_names.size()) +
                                    " scalar slots (a slot of another builder?)");
                scalar_feeds[p.slot].push_back(static_cast<std::uint32_t>(t.scalar_protos.size()));
            }
            t.scalar_protos.push_back(p.is_slot ? 0 : p.value);
            t.scalar_sources.push_back(p.is_slot ? p.slot : detail::kNotBound);
        }
    }

    // Slots: unique non-empty names; feeds in CSR form. A slot that feeds nothing need not be bound.
    auto build_slots = [&](const std::vector<std::string>& names,
                           std::vector<std::vector<std::uint32_t>>& feeds, const char* kind,
                           std::vector<detail::TemplateSlot>& slots, std::vector<std::uint32_t>& first,
                           std::vector<std::uint32_t>& flat, std::vector<std::uint32_t>& used) {
        for (std::uint32_t s = 0; s < names.size(); ++s) {
            if (names[s].empty())
                c.fail(ErrorCode::InvalidTemplate,
                       std::string(kind) + " slot " + std::to_string(s) + " has no name");
            for (std::uint32_t o = 0; o < s; ++o)
                if (names[o] == names[s])
                    c.fail(ErrorCode::InvalidTemplate, std::string(kind) + " slot name " + quoted(names[s]) +
                                                           " is declared twice (slots " + std::to_string(o) +
                                                           " and " + std::to_string(s) + ")");
            detail::TemplateSlot info;
            info.name = names[s];
            info.feeds = {static_cast<std::uint32_t>(flat.size()),
                          static_cast<std::uint32_t>(feeds[s].size())};
            first.push_back(static_cast<std::uint32_t>(flat.size()));
            flat.insert(flat.end(), feeds[s].begin(), feeds[s].end());
            if (!feeds[s].empty()) used.push_back(s);
            slots.push_back(std::move(info));
        }
        first.push_back(static_cast<std::uint32_t>(flat.size()));
    };
    build_slots(d.tensor_slot_names, tensor_feeds, "tensor", t.tensor_slots, t.tensor_feed_first,
                t.tensor_feeds, t.used_tensor_slots);
    build_slots(d.scalar_slot_names, scalar_feeds, "scalar", t.scalar_slots, t.scalar_feed_first,
                t.scalar_feeds, t.used_scalar_slots);
}

/// build_edges: checks each declared edge, merges duplicates, and lays out per-node offset tables.
void build_edges(const Description& d, detail::TemplateData& t, const Checker& c) {
    const auto count = static_cast<std::uint32_t>(t.nodes.size());
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges = d.edges;
    for (const auto& [p, q] : edges) {
        if (p >= count || q >= count)
            c.fail(ErrorCode::InvalidTemplate,
                   "edge from node " + std::to_string(p) + " to node " + std::to_string(q) +
                       " names a node that does not exist (the template has " + std::to_string(count) +
                       " nodes, 0.." + std::to_string(count - 1) + ")");
        if (p == q) c.fail_node(ErrorCode::InvalidTemplate, q, "an edge from the node to itself");
        if (p > q)
            c.fail_node(ErrorCode::InvalidTemplate, q,
                        "would wait for node " + std::to_string(p) + " (" + t.label_of(p) +
                            "), a later node: internal edges go from earlier to later nodes, so declare a "
                            "producer before its consumers (edge(" +
                            std::to_string(p) + ", " + std::to_string(q) + ") was given)");
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());

    // Sorted by producer: each node's consumers are contiguous and ascending.
    OffsetLists consumers;
    std::vector<std::uint32_t> fanin(count, 0);
    consumers.first.push_back(0);
    for (std::uint32_t k = 0, e = 0; k < count; ++k) {
        for (; e < edges.size() && edges[e].first == k; ++e) {
            consumers.offsets.push_back(edges[e].second - k);
            ++fanin[edges[e].second];
        }
        consumers.first.push_back(static_cast<std::uint32_t>(consumers.offsets.size()));
        const std::uint32_t fanout = consumers.first[k + 1] - consumers.first[k];
        if (fanout > kMaxInstanceEdgesPerNode)
            c.fail_node(ErrorCode::InvalidTemplate, k,
                        std::to_string(fanout) + " internal consumers; at most " +
                            std::to_string(kMaxInstanceEdgesPerNode) +
                            " (join them through a dependency-only node)");
        if (fanout == 0) t.sinks.push_back(k);
    }
    // Producers: by consumer, nearest producer (smallest offset) first.
    OffsetLists producers;
    producers.first.push_back(0);
    for (std::uint32_t k = 0; k < count; ++k) {
        if (fanin[k] > kMaxInstanceEdgesPerNode)
            c.fail_node(ErrorCode::InvalidTemplate, k,
                        std::to_string(fanin[k]) + " internal producers; at most " +
                            std::to_string(kMaxInstanceEdgesPerNode) +
                            " (join them through a dependency-only node)");
        producers.first.push_back(producers.first.back() + fanin[k]);
    }
    producers.offsets.resize(producers.first.back());
    std::vector<std::uint32_t> next(producers.first.begin(), producers.first.end() - 1);
    for (const auto& [p, q] : edges)
        producers.offsets[next[q]++] = q - p;
    for (std::uint32_t k = 0; k < count; ++k)
        std::sort(producers.offsets.begin() + producers.first[k],
                  producers.offsets.begin() + producers.first[k + 1]);
    // Checked again by the runtime's own rules, once per template: instances then submit them unchecked.
    t.edges = InstanceEdges::create("template '" + t.name + "'", std::move(consumers), std::move(producers));
}

/// build_boundaries: checks boundary declarations and groups them per node, in node order.
void build_boundaries(const Description& d, detail::TemplateData& t, const Checker& c) {
    const auto count = static_cast<std::uint32_t>(t.nodes.size());
    auto check_node_arg = [&](const Description::NodeArg& na, const char* what) {
        if (na.node >= count)
            c.fail(ErrorCode::InvalidTemplate, std::string(what) + " names node " + std::to_string(na.node) +
                                                   ", but the template has " + std::to_string(count) +
                                                   " nodes");
        if (t.mode != BoundaryMode::Tensormap)
            c.fail_node(
                ErrorCode::InvalidTemplate, na.node,
                std::string(what) + " (tensor argument " + std::to_string(na.arg) +
                    ") is a tensormap boundary, but the template's boundary mode is manual: give producers "
                    "with boundary_input(node) and Bindings::depend, or build the template with "
                    "BoundaryMode::Tensormap");
        if (na.arg >= t.nodes[na.node].tensors.count)
            c.fail_node(ErrorCode::InvalidTemplate, na.node,
                        std::string(what) + " names tensor argument " + std::to_string(na.arg) +
                            ", but the node has " + std::to_string(t.nodes[na.node].tensors.count) +
                            " tensor arguments");
    };
    // Boundaries named by slot: every tensor argument of the node that the slot feeds.
    const auto resolve = [&](const std::vector<Description::NodeArg>& declared, const char* what) {
        std::vector<Description::NodeArg> positional;
        for (const Description::NodeArg& na : declared) {
            if (na.arg != Description::kBySlot) {
                positional.push_back(na);
                continue;
            }
            if (na.node >= count)
                c.fail(ErrorCode::InvalidTemplate, std::string(what) + " names node " +
                                                       std::to_string(na.node) + ", but the template has " +
                                                       std::to_string(count) + " nodes");
            const std::span<const NodeArgs::TensorParam> params = d.nodes[na.node].args.tensors();
            bool fed = false;
            for (std::uint32_t a = 0; a < params.size(); ++a) {
                if (params[a].source != NodeArgs::TensorSource::Slot || params[a].slot != na.slot) continue;
                positional.push_back(Description::NodeArg{na.node, a});
                fed = true;
            }
            if (!fed)
                c.fail_node(
                    ErrorCode::InvalidTemplate, na.node,
                    std::string(what) + " names tensor slot " +
                        (na.slot < d.tensor_slot_names.size() ? "'" + d.tensor_slot_names[na.slot] + "'"
                                                              : std::to_string(na.slot)) +
                        ", which feeds no tensor argument of the node");
        }
        return positional;
    };
    const std::vector<Description::NodeArg> boundary_inputs = resolve(d.boundary_inputs, "boundary_input");
    const std::vector<Description::NodeArg> boundary_outputs = resolve(d.boundary_outputs, "boundary_output");
    std::vector<std::vector<std::uint32_t>> inputs(count), outputs(count);
    std::vector<bool> explicit_deps(count, false);
    for (std::uint32_t k : d.boundary_nodes) {
        if (k >= count)
            c.fail(ErrorCode::InvalidTemplate, "boundary_input names node " + std::to_string(k) +
                                                   ", but the template has " + std::to_string(count) +
                                                   " nodes");
        explicit_deps[k] = true;
    }
    for (const Description::NodeArg& na : boundary_inputs) {
        check_node_arg(na, "boundary_input");
        const std::uint32_t position = t.nodes[na.node].tensors.begin + na.arg;
        if (std::find(t.create_info_positions.begin(), t.create_info_positions.end(), position) !=
            t.create_info_positions.end())
            c.fail_node(
                ErrorCode::InvalidTemplate, na.node,
                "boundary_input names tensor argument " + std::to_string(na.arg) +
                    ", a create-info output: a buffer allocated by this node has no earlier accessors");
        inputs[na.node].push_back(na.arg);
    }
    for (const Description::NodeArg& na : boundary_outputs) {
        check_node_arg(na, "boundary_output");
        outputs[na.node].push_back(na.arg);
    }
    for (std::uint32_t k = 0; k < count; ++k) {
        auto& in = inputs[k];
        std::sort(in.begin(), in.end());
        in.erase(std::unique(in.begin(), in.end()), in.end());
        if (explicit_deps[k] || !in.empty()) {
            t.nodes[k].boundary = static_cast<std::int32_t>(t.boundary_nodes.size());
            detail::BoundaryNode b;
            b.node = k;
            b.lookup_args = {static_cast<std::uint32_t>(t.boundary_args.size()),
                             static_cast<std::uint32_t>(in.size())};
            t.boundary_args.insert(t.boundary_args.end(), in.begin(), in.end());
            t.boundary_nodes.push_back(b);
        }
        auto& out = outputs[k];
        std::sort(out.begin(), out.end());
        out.erase(std::unique(out.begin(), out.end()), out.end());
        if (!out.empty()) {
            detail::RecordedNode r;
            r.node = k;
            r.record_args = {static_cast<std::uint32_t>(t.boundary_args.size()),
                             static_cast<std::uint32_t>(out.size())};
            t.boundary_args.insert(t.boundary_args.end(), out.begin(), out.end());
            t.recorded_nodes.push_back(r);
        }
    }
    t.has_boundary_inputs = !t.boundary_nodes.empty();
}

/// build_plan: hands the runtime the template's constant parts, which it checks once more by its own rules
/// (nothing finalize accepted fails there) and keeps for every instance.
void build_plan(detail::TemplateData& t) {
    std::vector<detail::PlanNodeDesc> nodes(t.nodes.size());
    std::vector<std::string> labels(t.nodes.size());
    for (std::uint32_t k = 0; k < t.nodes.size(); ++k) {
        const detail::TemplateNode& n = t.nodes[k];
        detail::PlanNodeDesc& out = nodes[k];
        out.kind = n.kind;
        out.core = n.core;
        for (int l = 0; l < 3; ++l)
            out.funcs[l] = n.funcs[l];
        out.block_num = n.block_num;
        out.tensors = {t.tensor_protos.data() + n.tensors.begin, n.tensors.count};
        out.tensor_slots = {t.tensor_sources.data() + n.tensors.begin, n.tensors.count};
        out.scalars = {t.scalar_protos.data() + n.scalars.begin, n.scalars.count};
        out.scalar_slots = {t.scalar_sources.data() + n.scalars.begin, n.scalars.count};
        out.takes_external = n.boundary >= 0;
        labels[k] = t.label_of(k);
        out.label = labels[k];
    }
    std::vector<std::string> slot_names;
    for (const detail::TemplateSlot& slot : t.tensor_slots)
        slot_names.push_back(slot.name);
    t.plan = detail::InstancePlan::create("template " + quoted(t.name), nodes, std::move(slot_names),
                                          static_cast<std::uint32_t>(t.scalar_slots.size()), t.edges);
}

}  // namespace

Template TemplateBuilder::finalize() const {
    auto t = std::make_unique<detail::TemplateData>();
    t->name = d_->name;
    t->mode = d_->mode;
    const Checker c(*t);
    if (d_->nodes.empty()) c.fail(ErrorCode::InvalidTemplate, "a template needs at least one node");
    copy_nodes(*d_, *t, c);
    build_edges(*d_, *t, c);
    build_boundaries(*d_, *t, c);
    build_plan(*t);
    return Template(std::shared_ptr<const detail::TemplateData>(std::move(t)));
}

}  // namespace pto
