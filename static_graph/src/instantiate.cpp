// instantiate(): checks (scope mode, bound slots, window), boundary producers (manual lists, or tensormap
// lookups of the declared boundary inputs only), one Runtime::submit_instance for the whole id range, then
// the tensormap records of the declared boundary outputs. Also join() and Instance's error.
#include "pto/static_graph/instance.h"

#include "pto/runtime/detail/task_port.h"
#include "pto/runtime/detail/throw.h"
#include "pto/scope/detail/dependency_check.h"

#include "bindings_state.h"

#include <string>
#include <vector>

namespace pto {

namespace detail {

void throw_node_out_of_range(const TemplateData* tpl, std::uint32_t k, std::uint32_t size) {
    if (tpl == nullptr || size == 0)
        throw_error(ErrorCode::InvalidArgument, "Instance::node(" + std::to_string(k) +
                                                    ") of an empty Instance (default-constructed, not "
                                                    "returned by instantiate)");
    throw_error(ErrorCode::InvalidArgument, "Instance::node(" + std::to_string(k) + "): template '" +
                                                tpl->name + "' has " + std::to_string(size) + " nodes, 0.." +
                                                std::to_string(size - 1));
}

}  // namespace detail

namespace {

[[noreturn, gnu::cold, gnu::noinline]] void throw_mismatch(const detail::TemplateData& t, ScopeMode scope,
                                                           std::uint32_t depth) {
    const std::string where = depth == 0
                                  ? std::string("outside every scope (which discovers like AUTO)")
                                  : std::string("in a ") + (scope == ScopeMode::Manual ? "MANUAL" : "AUTO") +
                                        " scope (depth " + std::to_string(depth) + ")";
    const std::string need =
        t.mode == BoundaryMode::Manual
            ? "manual boundaries need an enclosing PTO2_SCOPE(MANUAL)"
            : "tensormap boundaries need an AUTO scope (PTO2_SCOPE()) or the top level, where "
              "the tensormap is consulted";
    detail::throw_error(ErrorCode::BoundaryMismatch, "template '" + t.name + "' (boundary mode " +
                                                         std::string(to_string(t.mode)) + ") instantiated " +
                                                         where + ": " + need);
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_unbound(const detail::TemplateData& t, const char* kind,
                                                          std::uint32_t slot) {
    const auto& info = kind[0] == 't' ? t.tensor_slots[slot] : t.scalar_slots[slot];
    // Name the first argument the slot feeds, so the message points at a node too.
    std::string fed;
    const std::uint32_t position =
        kind[0] == 't' ? t.tensor_feeds[info.feeds.begin] : t.scalar_feeds[info.feeds.begin];
    for (std::uint32_t k = 0; k < t.nodes.size(); ++k) {
        const detail::Range r = kind[0] == 't' ? t.nodes[k].tensors : t.nodes[k].scalars;
        if (position >= r.begin && position < r.begin + r.count) {
            fed = std::string(", which feeds ") + kind + " argument " + std::to_string(position - r.begin) +
                  " of " + t.describe_node(k);
            break;
        }
    }
    detail::throw_error(ErrorCode::UnboundSlot,
                        "template '" + t.name + "': " + kind + " slot '" + info.name + "' (slot " +
                            std::to_string(slot) + ")" + fed +
                            ", is not bound for this instance; bind every slot before each instantiate "
                            "(bindings are consumed by each instance)");
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_too_large(const detail::TemplateData& t,
                                                            std::uint32_t window) {
    detail::throw_error(
        ErrorCode::CapacityExhausted,
        "template '" + t.name + "' has " + std::to_string(t.nodes.size()) +
            " nodes, more than the whole task window: an instance's ids are reserved at once, so "
            "raise RuntimeConfig::window_tasks (" +
            std::to_string(window) + ") or split the template");
}

std::string describe_template_node(const void* tpl, std::uint32_t k) {
    return static_cast<const detail::TemplateData*>(tpl)->describe_node(k);
}

/// gather: the node's tensor arguments listed in `args` (argument indices), copied to `out`.
std::span<const TensorArg> gather(const detail::BindingsState& s, std::uint32_t node, detail::Range args,
                                  TensorArg (&out)[kMaxTensorArgs]) {
    const detail::TemplateData& t = *s.tpl;
    const TensorArg* first = s.tensors.data() + t.nodes[node].tensors.begin;
    for (std::uint32_t i = 0; i < args.count; ++i)
        out[i] = first[t.boundary_args[args.begin + i]];
    return {out, args.count};
}

}  // namespace

Instance instantiate(Bindings& bindings) {
    detail::BindingsState& s = *bindings.s_;
    const detail::TemplateData& t = *s.tpl;
    Runtime& rt = current_runtime();
    const std::uint32_t depth = current_scope_depth();
    if (t.has_boundary_inputs) {
        const ScopeMode scope = current_scope_mode();
        const ScopeMode need = t.mode == BoundaryMode::Manual ? ScopeMode::Manual : ScopeMode::Auto;
        if (scope != need) [[unlikely]]
            throw_mismatch(t, scope, depth);
    }
    for (std::uint32_t slot : t.used_tensor_slots)
        if (s.tensor_stamps[slot] != s.generation) [[unlikely]]
            throw_unbound(t, "tensor", slot);
    for (std::uint32_t slot : t.used_scalar_slots)
        if (s.scalar_stamps[slot] != s.generation) [[unlikely]]
            throw_unbound(t, "scalar", slot);
    if (t.nodes.size() > rt.config().window_tasks) [[unlikely]]
        throw_too_large(t, rt.config().window_tasks);

    // The previous instance's create-info outputs were written back as allocated views; restore them.
    for (std::uint32_t position : t.create_info_positions)
        s.tensors[position] = t.tensor_protos[position];

    const auto boundary_count = static_cast<std::uint32_t>(t.boundary_nodes.size());
    if (t.mode == BoundaryMode::Manual) {
        for (std::uint32_t b = 0; b < boundary_count; ++b)
            s.nodes[t.boundary_nodes[b].node].external_producers = s.deps[b];
    } else {
        // Only declared boundary inputs are looked up; a MANUAL scope (template without boundary inputs)
        // makes discover_producers a no-op, as it is for dynamic submits there.
        s.external.clear();
        TensorArg scratch[kMaxTensorArgs];
        for (std::uint32_t b = 0; b < boundary_count; ++b) {
            const detail::BoundaryNode& bn = t.boundary_nodes[b];
            const auto begin = static_cast<std::uint32_t>(s.external.size());
            s.external.insert(s.external.end(), s.deps[b].begin(), s.deps[b].end());
            if (bn.lookup_args.count != 0)
                discover_producers(gather(s, bn.node, bn.lookup_args, scratch), s.external);
            s.external_ranges[b] = {begin, static_cast<std::uint32_t>(s.external.size()) - begin};
        }
        for (std::uint32_t b = 0; b < boundary_count; ++b) {
            const detail::Range r = s.external_ranges[b];
            s.nodes[t.boundary_nodes[b].node].external_producers = {s.external.data() + r.begin, r.count};
        }
    }

    const TaskId base = detail::TaskPort(rt).submit_instance(s.nodes, t.edges, depth > 0);

    if (t.mode == BoundaryMode::Tensormap && !t.recorded_nodes.empty()) {
        TensorArg scratch[kMaxTensorArgs];
        for (const detail::RecordedNode& r : t.recorded_nodes)
            record_accesses(gather(s, r.node, r.record_args, scratch), base.plus(r.node));
    }
    for (auto& d : s.deps)
        d.clear();
    s.advance_generation();
    if (detail::is_checking_dependencies()) [[unlikely]]
        detail::check_instance(base, s.nodes, &describe_template_node, &t);
    return Instance(base, static_cast<std::uint32_t>(t.nodes.size()), s.shared_tpl);
}

TaskHandle join(const Instance& instance) {
    if (!instance.is_valid()) [[unlikely]]
        detail::throw_error(ErrorCode::InvalidArgument,
                            "join of an empty Instance (default-constructed, not returned by instantiate)");
    // One buffer per orchestrator thread: it grows to the largest sink count once, then never allocates.
    thread_local std::vector<TaskId> sinks;
    sinks.clear();
    for (std::uint32_t k : instance.tpl_->sinks)
        sinks.push_back(instance.base().plus(k));
    return submit_dependency_only(Args().set_dependencies(sinks));
}

}  // namespace pto
