// InstancePlan::create: the checks of an instance's constant parts, once per plan, and the precomputed room
// (heap, argument ring) and counts every instance of it needs.
#include "pto/runtime/detail/instance_plan.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>

#include "arg_ring.h"
#include "pto/runtime/detail/throw.h"
#include "task_slot.h"
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

static_assert(SlotImage::kBytes == kSlotImageBytes, "InstancePlan::Node::slot_image fits the task slot");

/// kMaxImageBytes: argument image offsets are 32-bit.
constexpr std::uint64_t kMaxImageBytes = std::uint64_t{1} << 31;

}  // namespace

/// ViewTable: the views an instance's records point at (TensorRef), gathered while the records are laid
/// out and appended after them: one entry per tensor slot used, per distinct constant view and per
/// create-info output. `refs` are the TensorRefs still to point at their entry.
struct InstancePlan::ViewTable {
    struct Entry {
        std::uint32_t slot;  ///< kNotBound: a constant or create-info view, `view`
        TensorView view;
    };
    struct Pending {
        std::uint64_t ref_at;     ///< the TensorRef's byte offset in the image
        std::uint64_t record_at;  ///< its record's
        std::uint32_t entry;
    };
    std::vector<Entry> entries;
    std::vector<std::uint32_t> slot_entries;  ///< per tensor slot: its entry, or kNotBound
    std::vector<Pending> refs;

    std::uint32_t add(std::uint32_t slot, const TensorView& view) {
        entries.push_back(Entry{slot, view});
        return static_cast<std::uint32_t>(entries.size() - 1);
    }
    std::uint32_t entry_for_slot(std::uint32_t slot) {
        std::uint32_t& e = slot_entries[slot];
        if (e == kNotBound) e = add(slot, TensorView{});
        return e;
    }
    std::uint32_t entry_for_constant(const TensorView& view) {
        for (std::uint32_t e = 0; e < entries.size(); ++e)
            if (entries[e].slot == kNotBound && entries[e].view.base != nullptr &&
                same_view(entries[e].view, view))
                return e;
        return add(kNotBound, view);
    }
    static bool same_view(const TensorView& a, const TensorView& b) {
        if (a.base != b.base || a.offset != b.offset || a.ndim != b.ndim || a.dtype != b.dtype ||
            a.is_tracked != b.is_tracked || a.creator != b.creator)
            return false;
        for (std::uint32_t d = 0; d < a.ndim && d < kMaxTensorDims; ++d)
            if (a.shape[d] != b.shape[d] || a.strides[d] != b.strides[d]) return false;
        return true;
    }
};

/// append_record: node `n`'s argument record at the end of the plan's image: the header, the scalars
/// (padded to an even count), a TensorRef per tensor argument; constants and directions written, bound
/// scalars left to the instance's patches. The views go to `table`.
void InstancePlan::append_record(InstancePlan& p, const PlanNodeDesc& n, ViewTable& table) {
    const std::uint64_t at = p.arg_image_bytes_;
    const std::uint64_t size = ArgRing::round(ArgRecord::bytes_for_refs(n.tensors.size(), n.scalars.size()));
    p.arg_image_bytes_ = at + size;
    p.arg_image_.resize(p.arg_image_bytes_ / sizeof(std::uint64_t), 0);
    auto* bytes = reinterpret_cast<std::byte*>(p.arg_image_.data());
    const ArgRecord header{static_cast<std::uint32_t>(n.tensors.size()),
                           static_cast<std::uint16_t>(n.scalars.size()), 1};
    std::memcpy(bytes + at, &header, sizeof header);
    const std::uint64_t scalars_at = at + sizeof(ArgRecord);
    const std::uint64_t tensors_at = at + ArgRecord::tensors_offset(n.scalars.size());
    std::uint64_t constant_from = at;  // the record's bytes from here on are constants, up to the next patch
    for (std::uint32_t a = 0; a < n.scalars.size(); ++a) {
        const std::uint64_t offset = scalars_at + a * sizeof(std::uint64_t);
        if (n.scalar_slots[a] != kNotBound) {
            p.add_range(constant_from, offset - constant_from);
            constant_from = offset + sizeof(std::uint64_t);
            p.scalar_patches_.push_back(ArgPatch{static_cast<std::uint32_t>(offset), n.scalar_slots[a]});
            continue;
        }
        std::memcpy(bytes + offset, &n.scalars[a], sizeof(std::uint64_t));
    }
    for (std::uint32_t a = 0; a < n.tensors.size(); ++a) {
        const TensorArg& t = n.tensors[a];
        const std::uint32_t slot = n.tensor_slots[a];
        const std::uint32_t entry = slot != kNotBound        ? table.entry_for_slot(slot)
                                    : t.view.base == nullptr ? table.add(kNotBound, t.view)  // create-info
                                                             : table.entry_for_constant(t.view);
        const std::uint64_t offset = tensors_at + a * sizeof(TensorRef);
        const TensorRef ref{0, t.direction};  // view_offset: see append_view_table
        std::memcpy(bytes + offset, &ref, sizeof ref);
        table.refs.push_back(ViewTable::Pending{offset, at, entry});
    }
    p.add_range(constant_from, p.arg_image_bytes_ - constant_from);
}

/// append_view_table: the table after the records, and every TensorRef pointed at its entry. Bound views
/// are patched in per instance (tensor_patches), once per slot; constants are part of the image; each
/// create-info view is allocated in place (created_offsets).
void InstancePlan::append_view_table(ViewTable& table) {
    static_assert(sizeof(TensorView) % ArgRing::kAlignment == 0, "entries stay aligned");
    const std::uint64_t base = arg_image_bytes_;
    arg_image_bytes_ = base + table.entries.size() * sizeof(TensorView);
    arg_image_.resize(arg_image_bytes_ / sizeof(std::uint64_t), 0);
    auto* bytes = reinterpret_cast<std::byte*>(arg_image_.data());
    for (std::uint32_t e = 0; e < table.entries.size(); ++e) {
        const ViewTable::Entry& entry = table.entries[e];
        const std::uint64_t offset = base + std::uint64_t{e} * sizeof(TensorView);
        if (entry.slot != kNotBound) {
            tensor_patches_.push_back(ArgPatch{static_cast<std::uint32_t>(offset), entry.slot});
            continue;
        }
        std::memcpy(bytes + offset, &entry.view, sizeof(TensorView));
        if (entry.view.base == nullptr) created_offsets_.push_back(static_cast<std::uint32_t>(offset));
        add_range(offset, sizeof(TensorView));
    }
    for (const ViewTable::Pending& r : table.refs) {
        const std::uint64_t view_at = base + std::uint64_t{r.entry} * sizeof(TensorView);
        const auto relative = static_cast<std::int32_t>(view_at - r.record_at);
        std::memcpy(bytes + r.ref_at + offsetof(TensorRef, view_offset), &relative, sizeof relative);
    }
}

/// add_range: the image bytes [offset, offset + bytes) are copied as they are (8-byte multiples); joined to
/// the previous range when they follow it.
void InstancePlan::add_range(std::uint64_t offset, std::uint64_t bytes) {
    static_assert(sizeof(ArgRecord) % 8 == 0 && sizeof(TensorView) % 8 == 0);
    if (bytes == 0) return;
    const auto words = static_cast<std::uint32_t>(bytes / sizeof(std::uint64_t));
    if (!image_ranges_.empty()) {
        ImageRange& last = image_ranges_.back();
        if (last.offset + std::uint64_t{last.words} * sizeof(std::uint64_t) == offset) {
            last.words += words;
            return;
        }
    }
    image_ranges_.push_back(ImageRange{static_cast<std::uint32_t>(offset), words});
}

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
    p.first_feeds_.assign(slot_count, Feed{kNotBound, 0});
    HeapNeed heap;
    ViewTable table;
    table.slot_entries.assign(slot_count, kNotBound);
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
                if (p.first_feeds_[slot].node == kNotBound) {
                    p.used_tensor_slots_.push_back(slot);
                    p.first_feeds_[slot] = Feed{k, a};
                }
                continue;
            }
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
                creates = true;
                continue;
            }
            if (used_stride_bits(t.view) < 0)
                c.fail(ErrorCode::InvalidTensor, k,
                       "tensor argument " + std::to_string(a) + " has a negative stride; strides are >= 0");
        }
        for (std::uint32_t a = 0; a < n.scalars.size(); ++a) {
            const std::uint32_t slot = n.scalar_slots[a];
            if (slot == kNotBound) continue;
            if (slot >= scalar_slot_count)
                c.fail(ErrorCode::InvalidTemplate, k,
                       "scalar argument " + std::to_string(a) + " names slot " + std::to_string(slot) +
                           " of " + std::to_string(scalar_slot_count));
        }
        out.keeps_arguments = n.kind == TaskKind::Kernel || creates;
        out.arg_offset = kNotBound;
        if (out.keeps_arguments) {
            out.arg_offset = static_cast<std::uint32_t>(p.arg_image_bytes_);
            append_record(p, n, table);
            if (p.arg_image_bytes_ > kMaxImageBytes)
                c.fail(
                    ErrorCode::TooManyArguments, k,
                    "the instance's arguments take more than " + std::to_string(kMaxImageBytes) + " bytes");
        }
        out.args_end = static_cast<std::uint32_t>(p.arg_image_bytes_);
        const std::span<const std::uint32_t> consumers = edges->consumers(k);
        const std::span<const std::uint32_t> producers = edges->producers(k);
        out.producers = producers.data();
        out.internal_producers = static_cast<std::uint32_t>(producers.size());
        if (producers.empty()) p.source_nodes_.push_back(k);
        SlotImage::make(out.slot_image, out.kind, shape_of(n.kind, n.core), out.block_num, out.funcs,
                        static_cast<std::uint16_t>(consumers.size()), consumers.data());
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
    p.append_view_table(table);
    if (p.arg_image_bytes_ > kMaxImageBytes)
        throw_error(ErrorCode::TooManyArguments, owner + ": the instance's arguments take more than " +
                                                     std::to_string(kMaxImageBytes) + " bytes");
    // The table outlives every record that points into it: the last node frees it when it retires.
    p.nodes_.back().args_end = static_cast<std::uint32_t>(p.arg_image_bytes_);
    std::sort(p.used_tensor_slots_.begin(), p.used_tensor_slots_.end());
    // One block in the ring: it may skip the ring's tail first, as a single record may.
    p.arg_reserve_bytes_ = p.arg_image_bytes_ == 0 ? 0 : ArgRing::reserve_bytes(p.arg_image_bytes_);
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
    const Feed f = first_feeds_[slot];
    if (f.node == kNotBound) return s;
    return s + " (feeds tensor argument " + std::to_string(f.arg) + " of " + describe_node(f.node) + ")";
}

}  // namespace pto::detail
