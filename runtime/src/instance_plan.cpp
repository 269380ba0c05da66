// InstancePlan::create: the checks of an instance's constant parts, once per plan, and the precomputed room
// (heap, argument ring) and counts every instance of it needs.
#include "pto/runtime/detail/instance_plan.h"

#include <algorithm>
#include <string>
#include <utility>

#include "pto/runtime/detail/throw.h"
#include "submit_sizes.h"

namespace pto::detail {

namespace {

/// Checker: the messages of one create call.
struct Checker {
    const std::string& owner;
    std::span<const PlanNodeDesc> nodes;

    [[nodiscard]] std::string node(std::uint32_t k) const {
        return owner + " node " + std::to_string(k) + " (" + std::string(nodes[k].label) + ")";
    }
    [[noreturn]] void fail(ErrorCode code, std::uint32_t k, const std::string& what) const {
        throw_error(code, node(k) + ": " + what);
    }
};

void check_kind(const Checker& c, const PlanNodeDesc& n, std::uint32_t k) {
    switch (n.kind) {
        case TaskKind::Kernel: {
            if (n.core != CoreType::AIC && n.core != CoreType::AIV && n.core != CoreType::MIX)
                c.fail(ErrorCode::InvalidArgument, k, "a kernel task needs core type AIC, AIV or MIX");
            if (n.block_num < 1 || n.block_num > kMaxBlockNum)
                c.fail(ErrorCode::InvalidBlockNum, k,
                       "block_num = " + std::to_string(n.block_num) + "; it must be in 1.." +
                           std::to_string(kMaxBlockNum));
            const int lanes = n.core == CoreType::MIX ? 3 : 1;
            for (int l = 0; l < lanes; ++l)
                if (n.funcs[l].is_none())
                    c.fail(ErrorCode::InvalidTemplate, k, "a kernel lane has FuncId none");
            break;
        }
        case TaskKind::DependencyOnly:
            if (n.block_num != 1)
                c.fail(ErrorCode::InvalidBlockNum, k,
                       "framework tasks have block_num 1, not " + std::to_string(n.block_num));
            break;
        case TaskKind::Alloc:
            c.fail(ErrorCode::InvalidTemplate, k, "an alloc task cannot be part of a planned instance");
    }
    if (n.tensors.size() > kMaxTensorArgs || n.scalars.size() > kMaxScalarArgs)
        c.fail(ErrorCode::TooManyArguments, k,
               std::to_string(n.tensors.size()) + " tensors and " + std::to_string(n.scalars.size()) +
                   " scalars; at most " + std::to_string(kMaxTensorArgs) + " and " +
                   std::to_string(kMaxScalarArgs));
    if (n.tensor_slots.size() != n.tensors.size() || n.scalar_slots.size() != n.scalars.size())
        c.fail(ErrorCode::InvalidTemplate, k, "every argument needs its slot entry (or kNotBound)");
}

}  // namespace

std::uint64_t next_run_token() {
    static std::atomic<std::uint64_t> last{0};
    return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

InstancePlan::InstancePlan() = default;
InstancePlan::~InstancePlan() = default;

std::shared_ptr<const InstancePlan> InstancePlan::create(std::string owner,
                                                         std::span<const PlanNodeDesc> nodes,
                                                         std::vector<std::string> tensor_slot_names,
                                                         std::uint32_t scalar_slot_count,
                                                         std::shared_ptr<const InstanceEdges> edges) {
    const Checker c{owner, nodes};
    if (nodes.empty()) throw_error(ErrorCode::InvalidTemplate, owner + ": a plan needs at least one node");
    if (!edges || edges->node_count() != nodes.size())
        throw_error(ErrorCode::InvalidTemplate, owner + ": the plan's " + std::to_string(nodes.size()) +
                                                    " nodes need edge tables of as many nodes");
    std::shared_ptr<InstancePlan> plan(new InstancePlan());
    InstancePlan& p = *plan;
    const auto slot_count = static_cast<std::uint32_t>(tensor_slot_names.size());
    std::vector<std::uint32_t> feeds(slot_count, 0);
    HeapNeed heap;
    for (std::uint32_t k = 0; k < nodes.size(); ++k) {
        const PlanNodeDesc& n = nodes[k];
        check_kind(c, n, k);
        if (n.takes_external) p.external_nodes_.push_back(k);
        Node out{};
        out.kind = n.kind;
        out.core = n.core;
        out.block_num = static_cast<std::uint16_t>(n.block_num);
        out.funcs[0] = n.funcs[0];
        out.funcs[1] = n.core == CoreType::MIX ? n.funcs[1] : n.funcs[0];
        out.funcs[2] = n.core == CoreType::MIX ? n.funcs[2] : n.funcs[0];
        out.first_tensor = static_cast<std::uint32_t>(p.tensor_args_.size());
        out.tensor_count = static_cast<std::uint32_t>(n.tensors.size());
        out.first_scalar = static_cast<std::uint32_t>(p.scalar_args_.size());
        out.scalar_count = static_cast<std::uint32_t>(n.scalars.size());
        out.external =
            n.takes_external ? static_cast<std::uint32_t>(p.external_nodes_.size() - 1) : kNotBound;
        out.first_created = p.create_info_count_;
        bool creates = false;
        for (std::uint32_t a = 0; a < n.tensors.size(); ++a) {
            const TensorArg& t = n.tensors[a];
            const std::uint32_t slot = n.tensor_slots[a];
            if (slot != kNotBound) {
                if (slot >= slot_count)
                    c.fail(ErrorCode::InvalidTemplate, k,
                           "tensor argument " + std::to_string(a) + " names slot " + std::to_string(slot) +
                               " of " + std::to_string(slot_count));
                if (feeds[slot]++ == 0) p.used_tensor_slots_.push_back(slot);
                p.tensor_args_.push_back(Arg{slot, ArgSource::Slot, t.direction});
                continue;
            }
            const auto constant = static_cast<std::uint32_t>(p.constant_views_.size());
            p.constant_views_.push_back(t.view);
            if (t.view.ndim < 1 || t.view.ndim > kMaxTensorDims)
                c.fail(ErrorCode::InvalidTensor, k,
                       "tensor argument " + std::to_string(a) + " has rank " + std::to_string(t.view.ndim));
            if (t.view.base == nullptr) {
                if (t.direction != Direction::Out)
                    c.fail(ErrorCode::InvalidTemplate, k,
                           "tensor argument " + std::to_string(a) +
                               " is a create-info but not an output; only outputs can be allocated");
                heap.add_buffer(create_info_bytes(t.view));
                ++p.create_info_count_;
                ++out.create_info_count;
                p.created_args_.push_back(a);
                creates = true;
                p.tensor_args_.push_back(Arg{constant, ArgSource::CreateInfo, t.direction});
                continue;
            }
            if (used_stride_bits(t.view) < 0)
                c.fail(ErrorCode::InvalidTensor, k,
                       "tensor argument " + std::to_string(a) + " has a negative stride; strides are >= 0");
            p.tensor_args_.push_back(Arg{constant, ArgSource::Constant, t.direction});
        }
        for (std::uint32_t a = 0; a < n.scalars.size(); ++a) {
            const std::uint32_t slot = n.scalar_slots[a];
            if (slot == kNotBound) {
                p.scalar_args_.push_back(Arg{static_cast<std::uint32_t>(p.constant_scalars_.size()),
                                             ArgSource::Constant, Direction::In});
                p.constant_scalars_.push_back(n.scalars[a]);
                continue;
            }
            if (slot >= scalar_slot_count)
                c.fail(ErrorCode::InvalidTemplate, k,
                       "scalar argument " + std::to_string(a) + " names slot " + std::to_string(slot) +
                           " of " + std::to_string(scalar_slot_count));
            p.scalar_args_.push_back(Arg{slot, ArgSource::Slot, Direction::In});
        }
        out.keeps_arguments = n.kind == TaskKind::Kernel || creates;
        if (out.keeps_arguments)
            p.arg_reserve_bytes_ +=
                ArgRing::reserve_bytes(ArgRecord::bytes_for(n.tensors.size(), n.scalars.size()));
        if (n.kind == TaskKind::Kernel) {
            ++p.kernel_tasks_;
            p.subtasks_ += n.block_num;
            p.has_mix_ = p.has_mix_ || n.core == CoreType::MIX;
            for (int l = 0; l < (n.core == CoreType::MIX ? 3 : 1); ++l)
                if (std::find(p.kernel_functions_.begin(), p.kernel_functions_.end(), n.funcs[l]) ==
                    p.kernel_functions_.end())
                    p.kernel_functions_.push_back(n.funcs[l]);
        }
        p.labels_.emplace_back(n.label);
        p.nodes_.push_back(out);
    }
    std::sort(p.used_tensor_slots_.begin(), p.used_tensor_slots_.end());
    p.heap_reserve_bytes_ = heap.reserve_bytes();
    p.owner_ = std::move(owner);
    p.tensor_slot_names_ = std::move(tensor_slot_names);
    p.scalar_slot_count_ = scalar_slot_count;
    p.edges_ = std::move(edges);
    return plan;
}

std::string InstancePlan::describe_node(std::uint32_t k) const {
    return owner_ + " node " + std::to_string(k) + " (" + labels_[k] + ")";
}

std::string InstancePlan::describe_tensor_slot(std::uint32_t slot) const {
    std::string s = owner_ + ": tensor slot '" + tensor_slot_names_[slot] + "'";
    for (std::uint32_t k = 0; k < nodes_.size(); ++k) {
        const Node& n = nodes_[k];
        for (std::uint32_t a = 0; a < n.tensor_count; ++a)
            if (tensor_args_[n.first_tensor + a].source == ArgSource::Slot &&
                tensor_args_[n.first_tensor + a].index == slot)
                return s + " (feeds tensor argument " + std::to_string(a) + " of " + describe_node(k) + ")";
    }
    return s;
}

}  // namespace pto::detail
