// InstancePlan: the part of a static-template instance that is the same in every instance (node kinds, cores,
// kernels, block_num, argument layout, constant and create-info arguments, internal edges), checked once when
// the plan is created and kept immutable, so that submitting an instance (TaskPort::submit_planned) checks
// and writes only what changes per instance: the bound tensors (each slot once, wherever it is used), the
// scalars, the boundary producers and the ids. The static_graph layer builds one plan per template; graph
// authors never see it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pto/runtime/ids.h"
#include "pto/runtime/instance_edges.h"
#include "pto/runtime/task_desc.h"
#include "pto/runtime/tensor.h"

namespace pto::detail {

/// kNotBound: a plan argument that no slot feeds (a constant, or a create-info output).
inline constexpr std::uint32_t kNotBound = ~0u;
/// kSlotImageBytes: the size of the part of the runtime's per-task slot that a template node has the same
/// in every instance (InstancePlan::Node::slot_image); the runtime checks it against its slot's layout.
inline constexpr std::size_t kSlotImageBytes = 32;

/// PlanNodeDesc: one node as given to InstancePlan::create; the spans are copied.
struct PlanNodeDesc {
    TaskKind kind = TaskKind::Kernel;
    CoreType core = CoreType::None;
    FuncId funcs[3] = {};
    std::uint32_t block_num = 1;
    /// Prototype tensor arguments: complete views for constants and create-info outputs (base null), the
    /// direction only where tensor_slots names a slot.
    std::span<const TensorArg> tensors;
    std::span<const std::uint32_t> tensor_slots;  ///< per tensor argument: the slot feeding it, or kNotBound
    std::span<const std::uint64_t> scalars;       ///< constants; the value is ignored where a slot feeds it
    std::span<const std::uint32_t> scalar_slots;  ///< per scalar argument: the slot feeding it, or kNotBound
    bool takes_external = false;                  ///< producers outside the instance may be given
    std::string_view label;                       ///< names the node in messages
};

/// InstanceInputs: what one instance of a plan binds. Spans the caller owns for the call.
struct InstanceInputs {
    std::span<const TensorView> tensor_slots;  ///< one view per tensor slot of the plan
    std::span<const std::uint64_t> scalar_slots;
    /// One list per external node of the plan (InstancePlan::external_nodes order).
    std::span<const std::span<const TaskId>> external_producers;
    /// Out: the views the runtime allocated for the create-info outputs, in plan order
    /// (InstancePlan::create_info_count of them), creator set.
    std::span<TensorView> created;
    /// Some consecutive external nodes were handed the very same list (same_list): it is checked and
    /// selected once for them. False: every list is checked and selected on its own.
    bool shares_lists = false;
};

/// same_list: `a` is the very list `b` is (same ids at the same address: the caller handed one list over
/// for several nodes, and nothing changes it during the call), so what was checked or selected for `b`
/// holds for `a`.
[[nodiscard]] inline bool same_list(std::span<const TaskId> a, std::span<const TaskId> b) {
    return !a.empty() && a.data() == b.data() && a.size() == b.size();
}

class PlanCheckKey;  // defined by the runtime only: who may record that a plan was checked for a run

/// InstancePlan: see the top of this file. Immutable once created, except for a one-word memo of the last
/// run that checked the plan against its runtime (kernel registrations and capacities), so that check runs
/// once per run instead of once per instance. Safe to share between threads and runtimes.
class InstancePlan {
  public:
    /// Node: one node's constants, laid out for the submission loop.
    struct Node {
        TaskKind kind;
        CoreType core;
        bool keeps_arguments;  ///< kernels, and tasks with create-info outputs, keep their arguments
        std::uint16_t block_num;
        FuncId funcs[3];              ///< lanes 1, 2 repeat lane 0 unless MIX
        std::uint32_t external;       ///< index into InstanceInputs::external_producers, or kNotBound
        std::uint32_t first_created;  ///< index of its first create-info output in InstanceInputs::created
        std::uint32_t create_info_count;  ///< its create-info outputs: created_offsets()[first_created + i]
        /// Its argument record's offset in the instance's argument image (arg_image()), or kNotBound, and
        /// the end of the records of nodes 0..k there (what the ring frees when the node retires); for the
        /// last node, the end of the image, view table included.
        std::uint32_t arg_offset;
        std::uint32_t args_end;
        std::uint32_t internal_producers;  ///< edges().producers(k).size()
        const std::uint32_t* producers;    ///< edges().producers(k)
        /// The node's task slot as every instance starts it, from the kind on (the runtime's layout, opaque
        /// here: kind, ready queue, block_num, kernel lanes, edges().consumers(k)): copied in one piece per
        /// instance.
        alignas(8) std::byte slot_image[kSlotImageBytes];
    };
    /// ArgPatch: a bound value's place in the argument image: the byte `offset` of a bound view in the
    /// view table (or of a bound scalar in its record) and the slot it is copied from per instance.
    struct ArgPatch {
        std::uint32_t offset;
        std::uint32_t slot;
    };
    /// ImageRange: `words` 8-byte words at byte `offset` of the argument image that no patch writes (the
    /// records but their bound scalars, constant and create-info views): copied as they are.
    struct ImageRange {
        std::uint32_t offset;
        std::uint32_t words;
    };

    /// create: checks every node and takes copies. `owner` names the plan in messages (e.g. "template
    /// 'attn'"), `tensor_slot_names` / `scalar_slot_count` declare the slots. Throws InvalidTemplate (node
    /// count not that of `edges`, an Alloc node, a slot out of range, a create-info input, a kernel lane
    /// without a kernel), InvalidArgument (a core type that does not fit the kind),
    /// InvalidBlockNum, TooManyArguments, InvalidTensor (a constant without a buffer, a negative stride, a
    /// rank outside 1..5), each naming the owner and the node.
    static std::shared_ptr<const InstancePlan> create(std::string owner, std::span<const PlanNodeDesc> nodes,
                                                      std::vector<std::string> tensor_slot_names,
                                                      std::uint32_t scalar_slot_count,
                                                      std::shared_ptr<const InstanceEdges> edges);

    [[nodiscard]] const std::string& owner() const { return owner_; }
    [[nodiscard]] std::span<const Node> nodes() const { return nodes_; }
    [[nodiscard]] const std::shared_ptr<const InstanceEdges>& edges() const { return edges_; }
    /// used_tensor_slots: the slots feeding at least one argument; each is checked once per instance.
    [[nodiscard]] std::span<const std::uint32_t> used_tensor_slots() const { return used_tensor_slots_; }
    [[nodiscard]] std::uint32_t tensor_slot_count() const {
        return static_cast<std::uint32_t>(tensor_slot_names_.size());
    }
    [[nodiscard]] std::uint32_t scalar_slot_count() const { return scalar_slot_count_; }
    /// source_nodes: the nodes without internal producers, ascending: the only ones an instance may
    /// find ready when it is submitted.
    [[nodiscard]] std::span<const std::uint32_t> source_nodes() const { return source_nodes_; }
    /// external_nodes: the nodes that may take producers outside the instance, ascending.
    [[nodiscard]] std::span<const std::uint32_t> external_nodes() const { return external_nodes_; }
    [[nodiscard]] std::uint32_t create_info_count() const { return create_info_count_; }
    /// arg_image: every argument record of an instance, back to back as the argument ring holds them, then
    /// the instance's view table. A record holds its header, scalars and a TensorRef per tensor argument
    /// (direction, and where its view is in the table); the table holds each view once: one per tensor
    /// slot used, per distinct constant and per create-info output. An instance copies its image_ranges
    /// (the bytes no patch writes), patches in each bound view once (tensor_patches) and the bound scalars
    /// (scalar_patches), and allocates its create-info outputs (created_offsets: the byte offset of each
    /// one's view, in plan order). The last node's args_end covers the table.
    [[nodiscard]] std::span<const std::byte> arg_image() const {
        return {reinterpret_cast<const std::byte*>(arg_image_.data()), arg_image_bytes_};
    }
    [[nodiscard]] std::span<const ImageRange> image_ranges() const { return image_ranges_; }
    [[nodiscard]] std::span<const ArgPatch> tensor_patches() const { return tensor_patches_; }
    [[nodiscard]] std::span<const ArgPatch> scalar_patches() const { return scalar_patches_; }
    [[nodiscard]] std::span<const std::uint32_t> created_offsets() const { return created_offsets_; }
    /// heap_reserve_bytes / arg_reserve_bytes: the room one instance reserves in the heap and argument rings.
    [[nodiscard]] std::uint64_t heap_reserve_bytes() const { return heap_reserve_bytes_; }
    [[nodiscard]] std::uint64_t arg_reserve_bytes() const { return arg_reserve_bytes_; }
    /// kernel_functions / has_mix: every kernel lane of every node, each FuncId once, and whether a node
    /// runs on MIX: what the runtime checks against its kernels and cores once per run.
    [[nodiscard]] std::span<const FuncId> kernel_functions() const { return kernel_functions_; }
    [[nodiscard]] bool has_mix() const { return has_mix_; }
    [[nodiscard]] std::uint64_t kernel_tasks() const { return kernel_tasks_; }
    [[nodiscard]] std::uint64_t subtasks() const { return subtasks_; }
    /// describe_node / describe_tensor_slot: "template 'x' node 3 (label)", "template 'x': tensor slot 'q'
    /// (feeds tensor argument 0 of node 1 (label))", for messages (cold).
    [[nodiscard]] std::string describe_node(std::uint32_t k) const;
    [[nodiscard]] std::string describe_tensor_slot(std::uint32_t slot) const;

    /// checked_in / mark_checked: the memo of the run (a number no other run of any runtime shares) that
    /// last checked the plan against its runtime. Only the runtime can record it.
    [[nodiscard]] bool checked_in(std::uint64_t run_token) const {
        return checked_run_.load(std::memory_order_relaxed) == run_token;
    }
    void mark_checked(const PlanCheckKey&, std::uint64_t run_token) const {
        checked_run_.store(run_token, std::memory_order_relaxed);
    }

    InstancePlan(const InstancePlan&) = delete;
    InstancePlan& operator=(const InstancePlan&) = delete;
    ~InstancePlan();

  private:
    InstancePlan();
    struct ViewTable;
    static void append_record(InstancePlan& p, const PlanNodeDesc& n, ViewTable& table);
    void append_view_table(ViewTable& table);
    void add_range(std::uint64_t offset, std::uint64_t bytes);

    std::string owner_;
    std::vector<Node> nodes_;
    std::vector<std::uint64_t> arg_image_;  // 8-byte words: the records' 16-byte offsets stay aligned in it
    std::uint64_t arg_image_bytes_ = 0;
    std::vector<ImageRange> image_ranges_;
    std::vector<ArgPatch> tensor_patches_;
    std::vector<ArgPatch> scalar_patches_;
    std::vector<std::uint32_t> created_offsets_;
    std::shared_ptr<const InstanceEdges> edges_;
    std::vector<std::string> tensor_slot_names_;
    std::uint32_t scalar_slot_count_ = 0;
    std::vector<std::uint32_t> used_tensor_slots_;
    /// Feed: the first argument a tensor slot feeds (node kNotBound: none), for describe_tensor_slot.
    struct Feed {
        std::uint32_t node;
        std::uint32_t arg;
    };
    std::vector<Feed> first_feeds_;
    std::vector<std::uint32_t> external_nodes_;
    std::vector<std::uint32_t> source_nodes_;
    std::vector<std::string> labels_;
    std::uint32_t create_info_count_ = 0;
    std::uint64_t heap_reserve_bytes_ = 0;
    std::uint64_t arg_reserve_bytes_ = 0;
    std::vector<FuncId> kernel_functions_;
    bool has_mix_ = false;
    std::uint64_t kernel_tasks_ = 0;
    std::uint64_t subtasks_ = 0;
    mutable std::atomic<std::uint64_t> checked_run_{0};
};

/// spec_of: a plan node as a TaskSpec without arguments (its messages and the recorded graph name tasks by
/// their spec).
inline TaskSpec spec_of(const InstancePlan::Node& n) {
    TaskSpec spec;
    spec.kind = n.kind;
    spec.core = n.core;
    for (int l = 0; l < 3; ++l)
        spec.funcs[l] = n.funcs[l];
    spec.block_num = n.block_num;
    return spec;
}

}  // namespace pto::detail
