// Checks of a template instance before submit_instance changes anything: its size against the window and
// the pools, every node's spec and boundary producers, and its internal edges: tables the caller built are
// checked in full on every call; tables built as InstanceEdges were checked once, at creation, so the call
// only confirms that the nodes carry those very tables.
#include <string>

#include "instance_edges_check.h"
#include "pto/runtime/detail/throw.h"
#include "runtime_impl.h"
#include "submit_sizes.h"

namespace pto {

namespace {

/// NodeTables: check_instance_edges' view of the offset spans of an InstanceNode array.
struct NodeTables {
    const Runtime::Impl& rt;
    std::span<const InstanceNode> nodes;
    TaskId first;

    [[nodiscard]] std::size_t size() const { return nodes.size(); }
    [[nodiscard]] std::span<const std::uint32_t> consumers(std::uint32_t k) const {
        return nodes[k].consumer_offsets;
    }
    [[nodiscard]] std::span<const std::uint32_t> producers(std::uint32_t k) const {
        return nodes[k].producer_offsets;
    }
    [[nodiscard]] std::string describe(std::uint32_t k) const {
        return "node " + std::to_string(k) + " (" + rt.describe_task(first.plus(k), &nodes[k].spec) + ")";
    }
};

[[noreturn, gnu::cold, gnu::noinline]] void throw_foreign_tables(const Runtime::Impl& rt,
                                                                 std::span<const InstanceNode> nodes,
                                                                 TaskId first, const InstanceEdges& edges) {
    if (nodes.size() != edges.node_count())
        detail::throw_error(ErrorCode::InvalidArgument, "submit_instance of " + std::to_string(nodes.size()) +
                                                            " nodes with the edges of " + edges.owner() +
                                                            ", which has " +
                                                            std::to_string(edges.node_count()) + " nodes");
    for (std::uint32_t k = 0; k < nodes.size(); ++k) {
        const InstanceNode& n = nodes[k];
        if (n.consumer_offsets.data() != edges.consumers(k).data() ||
            n.consumer_offsets.size() != edges.consumers(k).size() ||
            n.producer_offsets.data() != edges.producers(k).data() ||
            n.producer_offsets.size() != edges.producers(k).size())
            detail::throw_error(ErrorCode::InvalidArgument,
                                "submit_instance: node " + std::to_string(k) + " (" +
                                    rt.describe_task(first.plus(k), &n.spec) +
                                    ") does not carry the offset tables of " + edges.owner() +
                                    " it was submitted with: take them from InstanceEdges::consumers / "
                                    "producers, or submit without InstanceEdges to have them checked");
    }
    detail::throw_error(ErrorCode::InvalidArgument, "submit_instance: foreign offset tables");
}

}  // namespace

void Runtime::Impl::validate_instance_edges(std::span<const InstanceNode> nodes, TaskId first,
                                            const InstanceEdges* edges) {
    if (edges == nullptr) {
        detail::check_instance_edges(NodeTables{*this, nodes, first}, edge_check_cursor);
        return;
    }
    // Checked at creation: only confirm that these are the tables (no per-edge work).
    if (nodes.size() != edges->node_count()) [[unlikely]]
        throw_foreign_tables(*this, nodes, first, *edges);
    for (std::uint32_t k = 0; k < nodes.size(); ++k) {
        const InstanceNode& n = nodes[k];
        const std::span<const std::uint32_t> c = edges->consumers(k);
        const std::span<const std::uint32_t> p = edges->producers(k);
        if (n.consumer_offsets.data() != c.data() || n.consumer_offsets.size() != c.size() ||
            n.producer_offsets.data() != p.data() || n.producer_offsets.size() != p.size()) [[unlikely]]
            throw_foreign_tables(*this, nodes, first, *edges);
    }
}

Runtime::Impl::InstanceNeeds Runtime::Impl::validate_instance(std::span<const InstanceNode> nodes,
                                                              TaskId first, const InstanceEdges* edges) {
    if (nodes.size() > config.window_tasks) [[unlikely]]
        detail::throw_error(
            ErrorCode::CapacityExhausted,
            "a static template instance of " + std::to_string(nodes.size()) + " tasks (starting at task " +
                std::to_string(first.value) +
                ") is larger than the whole task window: raise RuntimeConfig::window_tasks (" +
                std::to_string(config.window_tasks) + ") or split the template");
    validate_instance_edges(nodes, first, edges);
    detail::HeapNeed heap_need;
    InstanceNeeds needs;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const InstanceNode& n = nodes[i];
        const TaskId id = first.plus(i);
        validate_spec(n.spec, id, heap_need);
        if (n.spec.kind == TaskKind::Alloc && !(n.external_producers.empty() && n.producer_offsets.empty()))
            [[unlikely]]
            detail::throw_error(ErrorCode::InvalidTemplate,
                                describe_task(id, &n.spec) +
                                    " cannot wait for producers: an alloc task completes "
                                    "when it is submitted");
        // External producers must precede the whole instance.
        validate_producers(n.external_producers, first, n.spec);
        needs.edge_nodes += n.external_producers.size();
        needs.arg_bytes += detail::argument_bytes(n.spec);
    }
    if (needs.arg_bytes > engine.args.capacity()) [[unlikely]]
        detail::throw_error(ErrorCode::CapacityExhausted,
                            "a static template instance starting at task " + std::to_string(first.value) +
                                " copies " + std::to_string(needs.arg_bytes) +
                                " argument bytes (with room for wrapping), more than the "
                                "argument ring holds: raise RuntimeConfig::argument_bytes (" +
                                std::to_string(engine.args.capacity()) + ")");
    if (needs.edge_nodes > engine.edges.capacity()) [[unlikely]]
        detail::throw_error(ErrorCode::CapacityExhausted,
                            "a static template instance starting at task " + std::to_string(first.value) +
                                " needs " + std::to_string(needs.edge_nodes) +
                                " boundary edges, more than the edge pool holds: raise "
                                "RuntimeConfig::edge_capacity (" +
                                std::to_string(config.edge_capacity) + ")");
    needs.heap_bytes = heap_need.reserve_bytes();
    check_heap_need(needs.heap_bytes, first, nullptr);
    return needs;
}

}  // namespace pto
