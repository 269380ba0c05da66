// Checks of a template instance before submit_instance changes anything: its size against the window and
// the pools, every node's spec and boundary producers, and its internal edges: tables the caller built are
// checked in full on every call; tables built as InstanceEdges were checked once, at creation, so the call
// only confirms that the nodes carry those very tables. A planned instance (InstancePlan) is checked in three
// layers: its constants when the plan is created, what depends on the runtime once per run, and only the
// bound views and boundary producers per instance.
#include <algorithm>
#include <string>
#include <type_traits>

#include "instance_edges_check.h"
#include "pto/runtime/detail/instance_plan.h"
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

// ---- A planned instance

namespace detail {
/// PlanCheckKey: lets only the runtime record that a plan was checked for a run.
class PlanCheckKey {};
}  // namespace detail

namespace {

[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_inputs(const detail::InstancePlan& plan,
                                                             const detail::InstanceInputs& in) {
    detail::throw_error(
        ErrorCode::InvalidArgument,
        "submit_planned of " + plan.owner() + ": the inputs give " + std::to_string(in.tensor_slots.size()) +
            " tensor slots, " + std::to_string(in.scalar_slots.size()) + " scalar slots, " +
            std::to_string(in.external_producers.size()) + " producer lists and room for " +
            std::to_string(in.created.size()) + " created views; the plan has " +
            std::to_string(plan.tensor_slot_count()) + ", " + std::to_string(plan.scalar_slot_count()) +
            ", " + std::to_string(plan.external_nodes().size()) + " and " +
            std::to_string(plan.create_info_count()));
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_slot_view(const detail::InstancePlan& plan,
                                                                std::uint32_t slot, const TensorView& v) {
    std::string why;
    if (v.ndim < 1 || v.ndim > kMaxTensorDims)
        why = "has rank " + std::to_string(v.ndim) + "; ranks are 1.." + std::to_string(kMaxTensorDims);
    else if (v.base == nullptr)
        why = "has no buffer";
    else
        why = "has a negative stride; strides are >= 0";
    detail::throw_error(ErrorCode::InvalidTensor, plan.describe_tensor_slot(slot) +
                                                      " is bound to a view that " + why +
                                                      " (nothing of the instance was submitted)");
}

}  // namespace

void Runtime::Impl::check_plan_for_run(const detail::InstancePlan& plan, TaskId first) {
    const auto nodes = plan.nodes();
    if (nodes.size() > config.window_tasks)
        detail::throw_error(
            ErrorCode::CapacityExhausted,
            plan.owner() + ": an instance of " + std::to_string(nodes.size()) + " tasks (starting at task " +
                std::to_string(first.value) +
                ") is larger than the whole task window: raise RuntimeConfig::window_tasks (" +
                std::to_string(config.window_tasks) + ") or split the template");
    // The first node using a MIX core or kernel `f`, for the messages.
    const auto first_node = [&](auto&& uses) {
        std::uint32_t k = 0;
        while (k + 1 < nodes.size() && !uses(nodes[k]))
            ++k;
        return k;
    };
    if (plan.has_mix() && config.aiv_per_cluster < 2) {
        const std::uint32_t k = first_node([](const detail::InstancePlan::Node& n) {
            return n.kind == TaskKind::Kernel && n.core == CoreType::MIX;
        });
        detail::throw_error(ErrorCode::InvalidArgument,
                            plan.describe_node(k) +
                                ": a MIX task runs one AIC and two AIV lanes of one cluster, but "
                                "RuntimeConfig::aiv_per_cluster = " +
                                std::to_string(config.aiv_per_cluster));
    }
    // Each kernel once, however many nodes run it.
    for (const FuncId f :
         config.executor == Executor::Instant ? std::span<const FuncId>() : plan.kernel_functions()) {
        const KernelInfo* info = engine.kernel(f);
        if (info != nullptr && (config.executor != Executor::Compute || info->fn != nullptr)) continue;
        const std::uint32_t k = first_node([f](const detail::InstancePlan::Node& n) {
            return n.kind == TaskKind::Kernel &&
                   (n.funcs[0] == f || (n.core == CoreType::MIX && (n.funcs[1] == f || n.funcs[2] == f)));
        });
        detail::throw_error(
            ErrorCode::UnknownKernel,
            plan.describe_node(k) + ": " + engine.kernel_name(f) +
                (config.executor == Executor::Compute ? " has no registered compute function"
                                                      : " is not registered (its duration is needed)") +
                "; call Runtime::register_kernel first");
    }
    if (plan.arg_reserve_bytes() > engine.args.capacity())
        detail::throw_error(ErrorCode::CapacityExhausted,
                            plan.owner() + ": an instance copies " +
                                std::to_string(plan.arg_reserve_bytes()) +
                                " argument bytes (with room for wrapping), more than the argument ring "
                                "holds: raise RuntimeConfig::argument_bytes (" +
                                std::to_string(engine.args.capacity()) + ")");
    if (plan.heap_reserve_bytes() > heap.capacity())
        detail::throw_error(ErrorCode::CapacityExhausted,
                            plan.owner() + ": an instance allocates " +
                                std::to_string(plan.heap_reserve_bytes()) +
                                " bytes (with room for wrapping), more than the whole heap ring: raise "
                                "RuntimeConfig::heap_bytes (" +
                                std::to_string(config.heap_bytes) + ")");
    // The run's tasks point into the plan's edge tables: hold them for the run (once, even if the memo
    // below is taken over by another runtime meanwhile and the plan is checked here again).
    if (std::find(run_plan_edges.begin(), run_plan_edges.end(), plan.edges()) == run_plan_edges.end())
        run_plan_edges.push_back(plan.edges());
    // Kernels are registered and capacities fixed only between runs: the check holds for the whole run.
    plan.mark_checked(detail::PlanCheckKey{}, run_token);
}

Runtime::Impl::BoundaryEdges Runtime::Impl::validate_planned(const detail::InstancePlan& plan,
                                                             const detail::InstanceInputs& in, TaskId first) {
    if (!plan.checked_in(run_token)) [[unlikely]]
        check_plan_for_run(plan, first);
    if (in.tensor_slots.size() != plan.tensor_slot_count() ||
        in.scalar_slots.size() != plan.scalar_slot_count() ||
        in.external_producers.size() != plan.external_nodes().size() ||
        in.created.size() != plan.create_info_count()) [[unlikely]]
        throw_bad_inputs(plan, in);
    // Each bound tensor once, however many arguments it feeds.
    for (const std::uint32_t slot : plan.used_tensor_slots()) {
        const TensorView& v = in.tensor_slots[slot];
        if (v.base == nullptr || detail::used_stride_bits(v) < 0) [[unlikely]]
            throw_bad_slot_view(plan, slot, v);
    }
    // External producers must precede the whole instance. A list handed over for several nodes at once
    // (the previous node's span again) is checked once; without such lists the loop tests nothing more.
    const std::span<const std::uint32_t> external_nodes = plan.external_nodes();
    auto check_external = [&](auto shares_lists) {
        BoundaryEdges boundary;
        for (std::uint32_t b = 0; b < external_nodes.size(); ++b) {
            const std::span<const TaskId> producers = in.external_producers[b];
            bool checked = false;
            if constexpr (decltype(shares_lists)::value)
                checked = b > 0 && detail::same_list(producers, in.external_producers[b - 1]);
            if (!checked && !all_precede(producers, first))
                [[unlikely]]  // named with the instance's first task
                throw_bad_producer(producers, first, detail::spec_of(plan.nodes()[external_nodes[b]]));
            boundary.edges += producers.size();
            if (producers.size() >= detail::EdgeLinker::kMinBundled) ++boundary.long_lists;
        }
        return boundary;
    };
    const BoundaryEdges boundary =
        in.shares_lists ? check_external(std::true_type{}) : check_external(std::false_type{});
    if (boundary.edges > engine.edges.capacity()) [[unlikely]]
        detail::throw_error(ErrorCode::CapacityExhausted,
                            plan.owner() + ": an instance starting at task " + std::to_string(first.value) +
                                " needs " + std::to_string(boundary.edges) +
                                " boundary edges, more than the edge pool holds: raise "
                                "RuntimeConfig::edge_capacity (" +
                                std::to_string(config.edge_capacity) + ")");
    return boundary;
}

}  // namespace pto
