// Instantiating static templates (docs/design/static-graph.md): Bindings holds one instance's tensors,
// scalars and manual boundary producers in a workspace allocated once per Bindings; instantiate() stamps the
// template out as one contiguous id range with no edge discovery; Instance addresses the result by
// template-relative index.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>

#include "pto/runtime/ids.h"
#include "pto/runtime/kernels.h"
#include "pto/runtime/tensor.h"
#include "pto/scope/orchestration.h"
#include "pto/static_graph/detail/binding_tables.h"
#include "pto/static_graph/template.h"

namespace pto {

namespace detail {
/// throw_node_out_of_range: the error of Instance::node (out of line: cold).
[[noreturn]] void throw_node_out_of_range(const TemplateData* tpl, std::uint32_t k, std::uint32_t size);
}  // namespace detail

class Bindings;
class Instance;
Instance instantiate(Bindings& bindings);
TaskHandle join(const Instance& instance);

/// Instance: the tasks one instantiate() created: ids base .. base + size - 1, node k at base + k.
/// A small value; copy it freely (e.g. keep the previous iteration's to name its nodes as producers). It
/// shares its template's tables (one reference count), so it stays usable after the Template is gone.
///
///     pto::Instance prev = pto::instantiate(b0);
///     b1.depend(3, prev.node(5));   // node 3 of the next instance waits for node 5 of this one
class Instance {
  public:
    Instance() = default;
    Instance(TaskId base, std::uint32_t size, std::shared_ptr<const detail::TemplateData> tpl)
        : base_(base), size_(size), tpl_(std::move(tpl)) {}

    /// node: the task id of template node `k` in this instance. Throws InvalidArgument naming the template
    /// if k >= size() (or the instance is empty).
    [[nodiscard]] TaskId node(std::uint32_t k) const {
        if (k >= size_) [[unlikely]]
            detail::throw_node_out_of_range(tpl_.get(), k, size_);
        return base_.plus(k);
    }
    [[nodiscard]] TaskId base() const { return base_; }
    [[nodiscard]] std::uint32_t size() const { return size_; }
    /// is_valid: false for a default-constructed Instance.
    [[nodiscard]] bool is_valid() const { return size_ != 0; }

  private:
    friend Instance instantiate(Bindings& bindings);
    friend TaskHandle join(const Instance& instance);

    TaskId base_;
    std::uint32_t size_ = 0;
    std::shared_ptr<const detail::TemplateData> tpl_;
};

/// Bindings: the per-instance inputs of one template, and the workspace instantiate() submits from. Build
/// one per template and orchestrator thread, once (the constructor allocates everything); then per
/// instance bind every slot the template uses, add manual boundary producers, and call instantiate().
/// Bound values are consumed by a successful instantiate(): each instance binds all its slots again, so a
/// forgotten binding is an UnboundSlot error rather than the previous instance's tensor. A Bindings shares
/// its Template's tables, so either may be destroyed first, also while instances run (the runtime copies
/// what it needs at instantiate); a moved-from Bindings may only be destroyed or assigned to.
///
///     pto::Bindings b(tpl);
///     for (int i = 0; i < n; ++i) {
///         b.tensor(x, xs[i]).tensor(y, ys[i]).scalar(row, i);
///         if (prev.is_valid()) b.depend(0, prev.node(3));
///         prev = pto::instantiate(b);
///     }
class Bindings {
  public:
    explicit Bindings(const Template& tpl);
    ~Bindings();
    Bindings(Bindings&&) noexcept;
    Bindings& operator=(Bindings&&) noexcept;
    Bindings(const Bindings&) = delete;
    Bindings& operator=(const Bindings&) = delete;

    /// tensor: binds `view` to `slot` for the next instance (every argument the slot feeds, with the
    /// direction the node declared). Throws InvalidArgument if the slot is not the template's or the view
    /// has no buffer (create-infos are declared in the template, not bound). The view itself is checked
    /// once per instance by instantiate (InvalidTensor naming the slot: a rank outside 1..5, a negative
    /// stride).
    Bindings& tensor(TensorSlot slot, const TensorView& view) {
        const detail::BindingTables& t = tables_;
        if (slot.index >= t.tensor_slot_count || view.base == nullptr) [[unlikely]]
            detail::throw_bad_tensor_binding(*s_, slot.index);
        detail::copy_view(&t.tensor_slots[slot.index], view);
        t.tensor_stamps[slot.index] = *t.generation;
        return *this;
    }
    /// tensor: binds `view` narrowed by each slice in turn (what view.slice(...).slice(...) returns), built
    /// in the binding's own storage. Per-instance views are mostly sub-views of a few whole tensors; bound
    /// this way each costs one copy of the view, while a sub-view built first is copied again, and that copy
    /// stalls reading across the narrow stores that just built it. Throws as tensor(slot, view), and
    /// InvalidTensor naming the slot if a slice leaves the view (the slot is then left unbound).
    ///
    ///     b.tensor(k, k_cache, pto::Slice{0, row, 1}, pto::Slice{2, 0, context_len});
    template <class... More>
    Bindings& tensor(TensorSlot slot, const TensorView& view, Slice first, More... more) {
        static_assert((std::is_same_v<More, Slice> && ...), "Bindings::tensor: slices are pto::Slice values");
        const detail::BindingTables& t = tables_;
        if (slot.index >= t.tensor_slot_count || view.base == nullptr) [[unlikely]]
            detail::throw_bad_tensor_binding(*s_, slot.index);
        TensorView& bound = t.tensor_slots[slot.index];
        detail::copy_view(&bound, view);
        if (!(detail::slice_in_place(bound, first) && (detail::slice_in_place(bound, more) && ...)))
            [[unlikely]]
            detail::throw_bad_binding_slice(*s_, slot.index, view,
                                            std::initializer_list<Slice>{first, more...});
        t.tensor_stamps[slot.index] = *t.generation;
        return *this;
    }
    /// scalar: binds `value` (stored bit for bit in 64 bits) to `slot` for the next instance. Throws
    /// InvalidArgument if the slot is not the template's.
    template <class T>
    Bindings& scalar(ScalarSlot slot, T value) {
        const detail::BindingTables& t = tables_;
        if (slot.index >= t.scalar_slot_count) [[unlikely]]
            detail::throw_bad_scalar_binding(*s_, slot.index);
        t.scalar_slots[slot.index] = scalar_bits(value);
        t.scalar_stamps[slot.index] = *t.generation;
        return *this;
    }
    /// depend: node `node` of the next instance also waits for `producer` (typically a node of an earlier
    /// instance: prev.node(k)). Only nodes declared with TemplateBuilder::boundary_input take producers:
    /// any other node throws InvalidArgument naming it. Producers are checked by instantiate
    /// (InvalidDependency); duplicates are merged.
    Bindings& depend(std::uint32_t node, TaskId producer);
    Bindings& depend(std::uint32_t node, std::span<const TaskId> producers);
    Bindings& depend(std::uint32_t node, std::initializer_list<TaskId> producers) {
        return depend(node, std::span<const TaskId>(producers.begin(), producers.size()));
    }
    /// depend: every node in `nodes` waits for `producers`, as depend(node, producers) for each of them,
    /// but the list is kept, checked and linked once for all: the way to give many boundary nodes one
    /// long list (each of a tile's output projections waiting for all its attention launches). Nodes are
    /// checked first: a node that is not a boundary input throws InvalidArgument and changes nothing.
    ///
    ///     const std::uint32_t outs[] = {0, 1, 2, 3};
    ///     b.depend(outs, attention);   // nodes 0-3 each wait for every task in `attention`
    Bindings& depend(std::span<const std::uint32_t> nodes, std::span<const TaskId> producers);

    /// clear: unbinds every slot and drops the producers given to depend (e.g. after an instantiate that
    /// threw, which leaves the bindings as they were).
    void clear();

    /// submitted_view: tensor argument `arg` of node `node` as the last instantiate() submitted it; for a
    /// create-info output, the buffer the runtime allocated (creator = that node's task). Valid until the
    /// next instantiate() with these bindings (for a bound slot: until it is bound again). Throws
    /// InvalidArgument for a node or argument out of range.
    [[nodiscard]] const TensorView& submitted_view(std::uint32_t node, std::uint32_t arg) const;

  private:
    friend Instance instantiate(Bindings& bindings);

    std::unique_ptr<detail::BindingsState> s_;
    // Binding is the per-slot hot path of instantiation: inlined, it costs one copy of the view, however
    // many arguments the slot feeds.
    detail::BindingTables tables_;
};

/// instantiate: submits one instance of the bindings' template in the current run: reserves a
/// contiguous id range (waiting like any submit while the window is full), installs the internal edges
/// as base + offset without discovery, links the boundary producers (Manual: those given to depend;
/// Tensormap: the tensormap's producers of the declared boundary inputs, plus any given to depend), then
/// records the declared boundary outputs (Tensormap). Tasks are held by the enclosing scope, if any.
/// Orchestrator thread, inside pto::run. Cost: O(nodes + bound arguments + boundary producers); no
/// allocation once the bindings have been used (Tensormap: once the discovered-producer buffer has grown).
///
/// Throws BoundaryMismatch (the template has boundary inputs and the enclosing scope is not MANUAL for a
/// Manual template, or not AUTO / top level for a Tensormap template; a template without boundary inputs
/// fits any scope), UnboundSlot (naming the slot), CapacityExhausted (more nodes than
/// RuntimeConfig::window_tasks), NoActiveRun, and what TaskPort::submit_planned throws: InvalidTensor (a
/// bound view without a rank in 1..5 or with a negative stride, naming the slot and a node it feeds; each
/// slot is checked once), InvalidDependency, UnknownKernel, InvalidArgument (MIX without two AIV lanes),
/// CapacityExhausted (heap, argument ring or edge pool too small), CapacityDeadlock. Each of these is raised
/// before anything is submitted and leaves the bindings as they were (Bindings::clear drops them). Only in
/// Tensormap mode, recording the boundary outputs after submission may wait for tensormap entries and throw
/// CapacityDeadlock, instance submitted.
Instance instantiate(Bindings& bindings);

/// join: submits a dependency-only task that waits for every sink of `instance` (so for the whole
/// instance): later tasks wait for one task instead of naming each node. Throws InvalidArgument for an
/// invalid instance, plus what submit_dependency_only throws.
TaskHandle join(const Instance& instance);

}  // namespace pto
