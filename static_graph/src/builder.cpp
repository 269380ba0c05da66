// NodeArgs and TemplateBuilder: collecting a template's description (nothing is checked here; see
// finalize.cpp), and the read-only accessors of a finalised Template.
#include "pto/static_graph/template.h"

#include "pto/runtime/detail/throw.h"

#include "description.h"
#include "template_data.h"

#include <utility>

namespace pto {

std::string_view to_string(BoundaryMode mode) {
    switch (mode) {
        case BoundaryMode::Manual:
            return "manual";
        case BoundaryMode::Tensormap:
            return "tensormap";
    }
    return "?";
}

// ---- NodeArgs ------------------------------------------------------------------------------------------

NodeArgs& NodeArgs::add_slot(TensorSlot slot, Direction direction) {
    TensorParam p{};
    p.source = TensorSource::Slot;
    p.direction = direction;
    p.slot = slot.index;
    tensors_.push_back(p);
    return *this;
}

NodeArgs& NodeArgs::add_constant(const TensorView& view, Direction direction) {
    TensorParam p{};
    p.source = TensorSource::Constant;
    p.direction = direction;
    p.view = view;
    tensors_.push_back(p);
    return *this;
}

NodeArgs& NodeArgs::output(const TensorCreateInfo& info) {
    TensorParam p{};
    p.source = TensorSource::CreateInfo;
    p.direction = Direction::Out;
    // The same view a dynamic create-info output becomes (see Args::output): contiguous, no buffer yet.
    // A rank outside 1..5 is reported by finalize, so only the valid part is copied here.
    p.view.base = nullptr;
    p.view.offset = 0;
    p.view.dtype = info.dtype;
    p.view.ndim = static_cast<std::uint8_t>(info.ndim);
    p.view.is_tracked = true;
    p.view.creator = TaskId{};
    const std::uint32_t dims = info.ndim <= kMaxTensorDims ? info.ndim : 0;
    // Unsigned, as in Args::output: an absurd shape wraps here instead of overflowing; submission rejects it.
    std::uint64_t stride = 1;
    for (int d = kMaxTensorDims - 1; d >= 0; --d) {
        const bool used = static_cast<std::uint32_t>(d) < dims;
        p.view.shape[d] = used ? info.shape[d] : 1;
        p.view.strides[d] = used ? static_cast<std::int64_t>(stride) : 0;
        if (used) stride *= info.shape[d];
    }
    tensors_.push_back(p);
    return *this;
}

NodeArgs& NodeArgs::scalar(ScalarSlot slot) {
    scalars_.push_back(ScalarParam{true, slot.index, 0});
    return *this;
}

// ---- TemplateBuilder -----------------------------------------------------------------------------------

TemplateBuilder::TemplateBuilder(std::string name, BoundaryMode mode) : d_(std::make_unique<Description>()) {
    d_->name = std::move(name);
    d_->mode = mode;
}

TemplateBuilder::~TemplateBuilder() = default;
TemplateBuilder::TemplateBuilder(TemplateBuilder&&) noexcept = default;
TemplateBuilder& TemplateBuilder::operator=(TemplateBuilder&&) noexcept = default;

TensorSlot TemplateBuilder::tensor_slot(std::string name) {
    d_->tensor_slot_names.push_back(std::move(name));
    return TensorSlot{static_cast<std::uint32_t>(d_->tensor_slot_names.size() - 1)};
}

ScalarSlot TemplateBuilder::scalar_slot(std::string name) {
    d_->scalar_slot_names.push_back(std::move(name));
    return ScalarSlot{static_cast<std::uint32_t>(d_->scalar_slot_names.size() - 1)};
}

std::uint32_t TemplateBuilder::add_node(TaskKind kind, CoreType core, const FuncId (&funcs)[3],
                                        const NodeArgs& args) {
    d_->nodes.push_back(Description::Node{kind, core, {funcs[0], funcs[1], funcs[2]}, args});
    return static_cast<std::uint32_t>(d_->nodes.size() - 1);
}

std::uint32_t TemplateBuilder::add_aic(FuncId kernel, const NodeArgs& args) {
    return add_node(TaskKind::Kernel, CoreType::AIC, {kernel, kernel, kernel}, args);
}

std::uint32_t TemplateBuilder::add_aiv(FuncId kernel, const NodeArgs& args) {
    return add_node(TaskKind::Kernel, CoreType::AIV, {kernel, kernel, kernel}, args);
}

std::uint32_t TemplateBuilder::add_mix(FuncId aic, FuncId aiv0, FuncId aiv1, const NodeArgs& args) {
    return add_node(TaskKind::Kernel, CoreType::MIX, {aic, aiv0, aiv1}, args);
}

std::uint32_t TemplateBuilder::add_dependency_only(const NodeArgs& args) {
    return add_node(TaskKind::DependencyOnly, CoreType::None, {FuncId{}, FuncId{}, FuncId{}}, args);
}

TemplateBuilder& TemplateBuilder::edge(std::uint32_t producer, std::uint32_t consumer) {
    d_->edges.emplace_back(producer, consumer);
    return *this;
}

TemplateBuilder& TemplateBuilder::boundary_input(std::uint32_t node) {
    d_->boundary_nodes.push_back(node);
    return *this;
}

TemplateBuilder& TemplateBuilder::boundary_input(std::uint32_t node, std::uint32_t arg) {
    d_->boundary_inputs.push_back(Description::NodeArg{node, arg});
    return *this;
}

TemplateBuilder& TemplateBuilder::boundary_output(std::uint32_t node, std::uint32_t arg) {
    d_->boundary_outputs.push_back(Description::NodeArg{node, arg});
    return *this;
}

TemplateBuilder& TemplateBuilder::boundary_input(std::uint32_t node, TensorSlot slot) {
    d_->boundary_inputs.push_back(Description::NodeArg{node, Description::kBySlot, slot.index});
    return *this;
}

TemplateBuilder& TemplateBuilder::boundary_output(std::uint32_t node, TensorSlot slot) {
    d_->boundary_outputs.push_back(Description::NodeArg{node, Description::kBySlot, slot.index});
    return *this;
}

// ---- Template ------------------------------------------------------------------------------------------

Template::Template() = default;
Template::Template(std::shared_ptr<const detail::TemplateData> data) : data_(std::move(data)) {}
Template::~Template() = default;
Template::Template(Template&&) noexcept = default;
Template& Template::operator=(Template&&) noexcept = default;

namespace {

void check_node(const detail::TemplateData& t, std::uint32_t k, const char* call) {
    if (k >= t.nodes.size()) [[unlikely]]
        detail::throw_error(ErrorCode::InvalidArgument, "Template::" + std::string(call) + ": template '" +
                                                            t.name + "' has " +
                                                            std::to_string(t.nodes.size()) +
                                                            " nodes; there is no node " + std::to_string(k));
}

}  // namespace

std::string_view Template::name() const {
    return data_->name;
}
BoundaryMode Template::mode() const {
    return data_->mode;
}
std::uint32_t Template::node_count() const {
    return static_cast<std::uint32_t>(data_->nodes.size());
}
std::uint32_t Template::edge_count() const {
    return data_->edges->edge_count();
}
std::span<const std::uint32_t> Template::sinks() const {
    return data_->sinks;
}
bool Template::has_boundary_inputs() const {
    return data_->has_boundary_inputs;
}

std::span<const std::uint32_t> Template::producer_offsets(std::uint32_t k) const {
    check_node(*data_, k, "producer_offsets");
    return data_->edges->producers(k);
}

std::span<const std::uint32_t> Template::consumer_offsets(std::uint32_t k) const {
    check_node(*data_, k, "consumer_offsets");
    return data_->edges->consumers(k);
}

std::optional<TensorSlot> Template::find_tensor_slot(std::string_view name) const {
    for (std::size_t i = 0; i < data_->tensor_slots.size(); ++i)
        if (data_->tensor_slots[i].name == name) return TensorSlot{static_cast<std::uint32_t>(i)};
    return std::nullopt;
}

std::optional<ScalarSlot> Template::find_scalar_slot(std::string_view name) const {
    for (std::size_t i = 0; i < data_->scalar_slots.size(); ++i)
        if (data_->scalar_slots[i].name == name) return ScalarSlot{static_cast<std::uint32_t>(i)};
    return std::nullopt;
}

std::string Template::node_label(std::uint32_t k) const {
    check_node(*data_, k, "node_label");
    return data_->label_of(k);
}

// ---- TemplateData messages -----------------------------------------------------------------------------

std::string detail::TemplateData::label_of(std::uint32_t k) const {
    const TemplateNode& n = nodes[k];
    if (!n.label.empty()) return n.label;
    if (n.kind == TaskKind::DependencyOnly) return "dependency-only";
    if (n.core == CoreType::MIX)
        return "MIX kernels func " + std::to_string(n.funcs[0].value) + "/" +
               std::to_string(n.funcs[1].value) + "/" + std::to_string(n.funcs[2].value);
    return std::string(to_string(n.core)) + " kernel func " + std::to_string(n.funcs[0].value);
}

std::string detail::TemplateData::describe_node(std::uint32_t k) const {
    return "template '" + name + "' node " + std::to_string(k) + " (" + label_of(k) + ")";
}

}  // namespace pto
