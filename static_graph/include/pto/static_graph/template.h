// Static-subgraph templates (docs/design/static-graph.md): TemplateBuilder describes a loop body once (nodes,
// argument slots, internal edges by node index, boundary declarations) and finalize() validates it into an
// immutable Template whose per-node offset tables every instance shares. Instantiation lives in instance.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pto/runtime/error.h"
#include "pto/runtime/ids.h"
#include "pto/runtime/kernels.h"
#include "pto/runtime/task_desc.h"
#include "pto/runtime/tensor.h"

namespace pto {

/// BoundaryMode: how an instance's boundary nodes get their producers outside the instance.
enum class BoundaryMode : std::uint8_t {
    Manual,     ///< the caller names producer task ids per boundary node (Bindings::depend); MANUAL scopes
    Tensormap,  ///< declared boundary tensor arguments are looked up / recorded; AUTO scopes (or top level)
};

/// to_string: "manual" or "tensormap".
[[nodiscard]] std::string_view to_string(BoundaryMode mode);

/// TensorSlot: a tensor the instance binds (Bindings::tensor); one slot may feed arguments of many nodes.
struct TensorSlot {
    std::uint32_t index = ~0u;
};

/// ScalarSlot: a scalar the instance binds (Bindings::scalar).
struct ScalarSlot {
    std::uint32_t index = ~0u;
};

/// NodeArgs: the argument list of one template node, mirroring pto::Args: each tensor argument is fed by a
/// slot (bound per instance), a constant view (weights: the same in every instance) or a create-info (a
/// buffer the runtime allocates per instance); each scalar by a slot or a constant. A build-time value:
/// it allocates and never throws; finalize() reports misuse with the node named.
///
///     b.add_aic(kQk, pto::NodeArgs().input(q).input(weights_view).output(s).scalar_value(0u).block_num(4));
class NodeArgs {
  public:
    /// TensorSource: where a tensor argument's view comes from at instantiation.
    enum class TensorSource : std::uint8_t { Slot, Constant, CreateInfo };
    struct TensorParam {
        TensorSource source;
        Direction direction;
        std::uint32_t slot;  ///< Slot only
        TensorView view;     ///< Constant: the view; CreateInfo: shape and dtype, base null
    };
    struct ScalarParam {
        bool is_slot;
        std::uint32_t slot;   ///< is_slot only
        std::uint64_t value;  ///< constant bits otherwise
    };

    NodeArgs& input(TensorSlot slot) { return add_slot(slot, Direction::In); }
    NodeArgs& output(TensorSlot slot) { return add_slot(slot, Direction::Out); }
    NodeArgs& inout(TensorSlot slot) { return add_slot(slot, Direction::InOut); }
    /// input / output / inout of a constant view: the same buffer in every instance (it must have one).
    NodeArgs& input(const TensorView& constant) { return add_constant(constant, Direction::In); }
    NodeArgs& output(const TensorView& constant) { return add_constant(constant, Direction::Out); }
    NodeArgs& inout(const TensorView& constant) { return add_constant(constant, Direction::InOut); }
    /// output: a buffer the runtime allocates for each instance, as a dynamic create-info output does; read
    /// it after instantiate with Bindings::submitted_view. No other node of the template can read it.
    NodeArgs& output(const TensorCreateInfo& info);
    /// scalar: a scalar bound per instance.
    NodeArgs& scalar(ScalarSlot slot);
    /// scalar_value: a scalar that is the same in every instance (e.g. a launch's chunk_base).
    template <class T>
    NodeArgs& scalar_value(T value) {
        scalars_.push_back(ScalarParam{false, 0, scalar_bits(value)});
        return *this;
    }
    /// block_num: SPMD width, 1..65535 (checked by finalize). Default 1.
    NodeArgs& block_num(std::uint32_t n) {
        block_num_ = n;
        return *this;
    }
    /// label: a name for error messages and introspection (e.g. the operator); default the kernel id.
    NodeArgs& label(std::string_view name) {
        label_ = name;
        return *this;
    }

    [[nodiscard]] std::span<const TensorParam> tensors() const { return tensors_; }
    [[nodiscard]] std::span<const ScalarParam> scalars() const { return scalars_; }
    [[nodiscard]] std::uint32_t block_count() const { return block_num_; }
    [[nodiscard]] const std::string& label_text() const { return label_; }

  private:
    NodeArgs& add_slot(TensorSlot slot, Direction direction);
    NodeArgs& add_constant(const TensorView& view, Direction direction);

    std::vector<TensorParam> tensors_;
    std::vector<ScalarParam> scalars_;
    std::uint32_t block_num_ = 1;
    std::string label_;
};

namespace detail {
struct TemplateData;
}

class Template;

/// TemplateBuilder: collects a template's description; finalize() validates it and builds the Template.
/// Nothing is checked before finalize(), so nodes, edges and boundaries may be declared in any order.
///
///     pto::TemplateBuilder b("attention_row", pto::BoundaryMode::Manual);
///     auto q = b.tensor_slot("q");  auto s = b.tensor_slot("s");
///     auto qk = b.add_aic(kQk, pto::NodeArgs().input(q).output(s).block_num(4));
///     auto sm = b.add_aiv(kSoftmax, pto::NodeArgs().inout(s).block_num(4));
///     b.edge(qk, sm).boundary_input(qk);
///     pto::Template t = b.finalize();
class TemplateBuilder {
  public:
    /// `name` appears in every error message about the template and its instances.
    TemplateBuilder(std::string name, BoundaryMode mode);
    ~TemplateBuilder();
    TemplateBuilder(TemplateBuilder&&) noexcept;
    TemplateBuilder& operator=(TemplateBuilder&&) noexcept;
    TemplateBuilder(const TemplateBuilder&) = delete;
    TemplateBuilder& operator=(const TemplateBuilder&) = delete;

    /// tensor_slot / scalar_slot: declare a named slot (names must be unique per kind; checked by finalize).
    TensorSlot tensor_slot(std::string name);
    ScalarSlot scalar_slot(std::string name);

    /// add_aic / add_aiv / add_mix / add_dependency_only: append a node; returns its index (0, 1, ...),
    /// the template-relative id that edges, boundaries and Instance::node use.
    std::uint32_t add_aic(FuncId kernel, const NodeArgs& args);
    std::uint32_t add_aiv(FuncId kernel, const NodeArgs& args);
    std::uint32_t add_mix(FuncId aic, FuncId aiv0, FuncId aiv1, const NodeArgs& args);
    std::uint32_t add_dependency_only(const NodeArgs& args = NodeArgs());
    /// add_node: the general form (funcs[1], funcs[2] are used by MIX only). Kernel nodes need AIC, AIV or
    /// MIX; dependency-only nodes CoreType::None and block_num 1; Alloc nodes are not supported (allocate
    /// with alloc_tensors before instantiating and bind the views, or use create-info outputs).
    std::uint32_t add_node(TaskKind kind, CoreType core, const FuncId (&funcs)[3], const NodeArgs& args);

    /// edge: node `consumer` waits for node `producer` in every instance; producer < consumer. Repeated
    /// edges are merged (as duplicate producers of Runtime::submit are).
    TemplateBuilder& edge(std::uint32_t producer, std::uint32_t consumer);
    /// boundary_input(node): `node` may be given producers outside the instance with Bindings::depend.
    TemplateBuilder& boundary_input(std::uint32_t node);
    /// boundary_input(node, slot): (Tensormap mode) the tensor arguments of `node` that `slot` feeds are
    /// looked up in the tensormap at instantiation, with their directions (reads find writers; writes find
    /// writers and readers). Declare only tensors whose earlier accessors lie outside the instance.
    TemplateBuilder& boundary_input(std::uint32_t node, TensorSlot slot);
    /// boundary_output(node, slot): (Tensormap mode) the tensor arguments of `node` that `slot` feeds are
    /// recorded in the tensormap after instantiation, so later tasks and instances find them.
    TemplateBuilder& boundary_output(std::uint32_t node, TensorSlot slot);
    /// boundary_input / boundary_output(node, arg): the same for tensor argument `arg` of `node` by
    /// position, for arguments no slot feeds (constant views).
    TemplateBuilder& boundary_input(std::uint32_t node, std::uint32_t arg);
    TemplateBuilder& boundary_output(std::uint32_t node, std::uint32_t arg);

    /// finalize: validates the description and builds the Template (the builder stays usable, e.g. to
    /// build a variant). Throws InvalidTemplate (no nodes, an edge to an earlier or the same node or out of
    /// range, a slot out of range or named twice, a kernel node without a kernel, a boundary naming no
    /// node or argument, tensor boundaries in Manual mode), InvalidBlockNum (block_num outside 1..65535, or
    /// not 1 for dependency-only nodes), InvalidArgument (a core type that does not fit the node kind, an
    /// Alloc node), InvalidTensor (a constant view without a buffer, a rank outside 1..5),
    /// TooManyArguments; each names the template and the node (label or kernel) or slot.
    [[nodiscard]] Template finalize() const;

    struct Description;

  private:
    std::unique_ptr<Description> d_;
};

/// Template: a validated, immutable template. Its tables are shared, not copied, by its Bindings and
/// Instances, and the runtime holds the internal edge tables until the run that used them is over, so a
/// Template may be destroyed at any time, even while instances of it run (moving it keeps its tables
/// where they are). Instantiation needs a Bindings per thread; the Template itself may be shared.
class Template {
  public:
    /// Template(): an empty placeholder (is_valid() false) to move a finalised template into later; the
    /// other members need a valid template.
    Template();
    ~Template();
    Template(Template&&) noexcept;
    Template& operator=(Template&&) noexcept;
    Template(const Template&) = delete;
    Template& operator=(const Template&) = delete;

    [[nodiscard]] bool is_valid() const { return data_ != nullptr; }
    [[nodiscard]] std::string_view name() const;
    [[nodiscard]] BoundaryMode mode() const;
    [[nodiscard]] std::uint32_t node_count() const;
    /// edge_count: distinct internal edges.
    [[nodiscard]] std::uint32_t edge_count() const;
    /// fanin: node `k`'s internal producers as offsets back (producer = k - d), ascending.
    [[nodiscard]] std::span<const std::uint32_t> producer_offsets(std::uint32_t k) const;
    /// fanout: node `k`'s internal consumers as offsets forward (consumer = k + d), ascending.
    [[nodiscard]] std::span<const std::uint32_t> consumer_offsets(std::uint32_t k) const;
    /// sinks: nodes without internal consumers (what join() waits for), ascending.
    [[nodiscard]] std::span<const std::uint32_t> sinks() const;
    /// has_boundary_inputs: whether any node takes producers from outside (decides the scope check).
    [[nodiscard]] bool has_boundary_inputs() const;
    /// find_tensor_slot / find_scalar_slot: a slot by name (cold).
    [[nodiscard]] std::optional<TensorSlot> find_tensor_slot(std::string_view name) const;
    [[nodiscard]] std::optional<ScalarSlot> find_scalar_slot(std::string_view name) const;
    /// node_label: the node's label, or its kernel ("func 3") / "dependency-only".
    [[nodiscard]] std::string node_label(std::uint32_t k) const;

  private:
    friend class TemplateBuilder;
    friend class Bindings;  // shares the finalised tables with its instances
    explicit Template(std::shared_ptr<const detail::TemplateData> data);

    std::shared_ptr<const detail::TemplateData> data_;
};

}  // namespace pto
