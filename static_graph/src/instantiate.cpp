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

/// argument_view: the view the instance passes as tensor argument `position` (of the template's flat list):
/// its slot's, the one the runtime allocated for a create-info output, or the constant.
const TensorView& argument_view(const detail::BindingsState& s, std::uint32_t position) {
    const detail::TemplateData& t = *s.tpl;
    if (t.tensor_sources[position] != detail::kNotBound) return s.tensor_slots[t.tensor_sources[position]];
    if (t.created_index[position] != detail::kNotBound) return s.created[t.created_index[position]];
    return t.tensor_protos[position].view;
}

/// gather: the node's tensor arguments listed in `args` (argument indices), as the instance passes them,
/// copied to `out` (create-info outputs: as allocated by the last instance).
std::span<const TensorArg> gather(const detail::BindingsState& s, std::uint32_t node, detail::Range args,
                                  TensorArg (&out)[kMaxTensorArgs]) {
    const detail::TemplateData& t = *s.tpl;
    const std::uint32_t first = t.nodes[node].tensors.begin;
    for (std::uint32_t i = 0; i < args.count; ++i) {
        const std::uint32_t position = first + t.boundary_args[args.begin + i];
        out[i] = TensorArg{argument_view(s, position), t.tensor_protos[position].direction};
    }
    return {out, args.count};
}

/// checked_nodes: the instance's nodes with every argument as submitted, for the dependency checker (only
/// when it is on: this copies every argument).
std::span<const InstanceNode> checked_nodes(detail::BindingsState& s) {
    const detail::TemplateData& t = *s.tpl;
    s.checked_tensors.resize(t.tensor_protos.size());
    s.checked_scalars.resize(t.scalar_protos.size());
    s.checked_nodes.resize(t.nodes.size());
    s.checked_producers.clear();
    std::vector<detail::Range> ranges(t.boundary_nodes.size());  // cold: the checker is on
    for (std::size_t b = 0; b < t.boundary_nodes.size(); ++b) {
        const auto begin = static_cast<std::uint32_t>(s.checked_producers.size());
        s.checked_producers.insert(s.checked_producers.end(), s.external_lists[b].begin(),
                                   s.external_lists[b].end());
        ranges[b] = {begin, static_cast<std::uint32_t>(s.checked_producers.size()) - begin};
    }
    for (std::uint32_t p = 0; p < t.tensor_protos.size(); ++p)
        s.checked_tensors[p] = TensorArg{argument_view(s, p), t.tensor_protos[p].direction};
    for (std::uint32_t p = 0; p < t.scalar_protos.size(); ++p)
        s.checked_scalars[p] = t.scalar_sources[p] != detail::kNotBound ? s.scalar_slots[t.scalar_sources[p]]
                                                                        : t.scalar_protos[p];
    for (std::uint32_t k = 0; k < t.nodes.size(); ++k) {
        const detail::TemplateNode& n = t.nodes[k];
        InstanceNode& out = s.checked_nodes[k];
        out.spec.kind = n.kind;
        out.spec.core = n.core;
        for (int l = 0; l < 3; ++l)
            out.spec.funcs[l] = n.funcs[l];
        out.spec.block_num = n.block_num;
        out.spec.tensors = {s.checked_tensors.data() + n.tensors.begin, n.tensors.count};
        out.spec.scalars = {s.checked_scalars.data() + n.scalars.begin, n.scalars.count};
        out.consumer_offsets = t.edges->consumers(k);
        out.producer_offsets = t.edges->producers(k);
        out.external_producers = {};
        if (n.boundary >= 0) {
            const detail::Range r = ranges[static_cast<std::size_t>(n.boundary)];
            out.external_producers = {s.checked_producers.data() + r.begin, r.count};
        }
    }
    return s.checked_nodes;
}

/// manual_lists_with_shared: each boundary node's producers when some were given to several nodes at once.
/// A shared list is handed over as it is, the same span for every node that has only it: the runtime then
/// checks and selects it once for all of them (consecutive nodes). A node with both a shared list and its
/// own producers gets the two joined in `external`.
void manual_lists_with_shared(detail::BindingsState& s, std::uint32_t boundary_count) {
    s.external.clear();
    bool joined = false;
    for (std::uint32_t b = 0; b < boundary_count; ++b) {
        const std::uint32_t shared = s.shared_of[b];
        if (shared == detail::BindingsState::kNotShared) {
            s.external_lists[b] = s.deps[b];
        } else if (s.deps[b].empty()) {
            s.external_lists[b] = s.shared_lists[shared];
        } else {
            const auto begin = static_cast<std::uint32_t>(s.external.size());
            s.external.insert(s.external.end(), s.shared_lists[shared].begin(), s.shared_lists[shared].end());
            s.external.insert(s.external.end(), s.deps[b].begin(), s.deps[b].end());
            s.external_ranges[b] = {begin, static_cast<std::uint32_t>(s.external.size()) - begin};
            joined = true;
        }
    }
    if (!joined) return;
    // Spans into `external` only once it stopped growing.
    for (std::uint32_t b = 0; b < boundary_count; ++b) {
        if (s.shared_of[b] == detail::BindingsState::kNotShared || s.deps[b].empty()) continue;
        const detail::Range r = s.external_ranges[b];
        s.external_lists[b] = {s.external.data() + r.begin, r.count};
    }
}

/// settle_shared_lists: what instantiate does first when some producers were given to several nodes at
/// once. Manual: every boundary node's list, shared spans kept (manual_lists_with_shared); returns true.
/// Tensormap, where each node's list is built anyway: each shared list is put in front of the node's own
/// producers (the same list as before) and the shared lists are dropped; returns false.
[[gnu::noinline]] bool settle_shared_lists(detail::BindingsState& s, BoundaryMode mode,
                                           std::uint32_t boundary_count) {
    if (mode == BoundaryMode::Manual) {
        manual_lists_with_shared(s, boundary_count);
        return true;
    }
    for (std::uint32_t b = 0; b < boundary_count; ++b) {
        if (s.shared_of[b] == detail::BindingsState::kNotShared) continue;
        const std::vector<TaskId>& shared = s.shared_lists[s.shared_of[b]];
        s.deps[b].insert(s.deps[b].begin(), shared.begin(), shared.end());
    }
    s.clear_shared();
    return false;
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

    const auto boundary_count = static_cast<std::uint32_t>(t.boundary_nodes.size());
    bool shares_lists = false;
    if (s.shared_count != 0) [[unlikely]]
        shares_lists = settle_shared_lists(s, t.mode, boundary_count);
    if (t.mode == BoundaryMode::Manual) {
        if (!shares_lists)
            for (std::uint32_t b = 0; b < boundary_count; ++b)
                s.external_lists[b] = s.deps[b];
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
            s.external_lists[b] = {s.external.data() + r.begin, r.count};
        }
    }

    // The plan holds everything the instances share (checked once); only the bound values are handed over.
    const detail::InstanceInputs inputs{s.tensor_slots, s.scalar_slots, s.external_lists, s.created,
                                        shares_lists};
    const TaskId base = detail::TaskPort(rt).submit_planned(*t.plan, inputs, depth > 0);

    if (t.mode == BoundaryMode::Tensormap && !t.recorded_nodes.empty()) {
        TensorArg scratch[kMaxTensorArgs];
        for (const detail::RecordedNode& r : t.recorded_nodes)
            record_accesses(gather(s, r.node, r.record_args, scratch), base.plus(r.node));
    }
    const bool checking = detail::is_checking_dependencies();
    const std::span<const InstanceNode> checked =
        checking ? checked_nodes(s) : std::span<const InstanceNode>();  // before the producers are cleared
    s.clear_producers();
    s.advance_generation();
    if (checking) [[unlikely]]
        detail::check_instance(base, checked, &describe_template_node, &t);
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
