// A static template instance as one submission: its checks (instance_validation.cpp), room for the whole id
// range at once, every slot initialised before any node is published, then each node's fanin settled. Either
// from InstanceNodes (every spec checked per call) or from an InstancePlan (constants checked once; the
// arguments written as one ring block: the plan's image, the bound values patched in).
#include <cstddef>
#include <cstring>

#include "aicpu_slice.h"
#include "phase_timer.h"
#include "pto/runtime/detail/copy_view.h"
#include "pto/runtime/detail/instance_plan.h"
#include "pto/runtime/detail/throw.h"
#include "runtime_impl.h"
#include "submit_sizes.h"

namespace pto {

using detail::kLinkRefUnit;
using detail::Outcome;
using detail::PhaseTimer;
using detail::TaskSlot;

TaskId Runtime::Impl::submit_instance(std::span<InstanceNode> nodes,
                                      const std::shared_ptr<const InstanceEdges>& edges, bool scoped) {
    check_run_open("submit_instance");
    const TaskId first{window.next_id()};
    if (nodes.empty()) return first;
    const detail::AicpuSlice traced(recorder.aicpu_sink(), AicpuActivity::SubmitInstance, run_start_ns, first,
                                    static_cast<std::uint32_t>(nodes.size()));
    const InstanceNeeds needs = validate_instance(nodes, first, edges.get());
    {
        PhaseTimer timer(config.profile_orchestrator, stats.ring_alloc_ns);
        reserve(nodes.size(), needs.edge_nodes, needs.heap_bytes, needs.arg_bytes);
    }
    // The slots below point into the tables until the tasks retire (raw tables: the caller's promise).
    if (edges) edge_table_holds.hold(edges, first.value + nodes.size() - 1);
    init_instance_slots(nodes, first, scoped);
    link_instance(nodes, first);
    if (linker.should_flush(scoped)) flush_links(FinishedCount::Batched);
    finish_orchestrator_completions(FinishedCount::Batched);
    window.publish_submitted();
    return first;
}

void Runtime::Impl::init_instance_slots(std::span<const InstanceNode> nodes, TaskId first, bool scoped) {
    // Every slot, fanin counts included, is initialised before any node is published, so a node that
    // completes at once finds its internal consumers ready to be released.
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const InstanceNode& n = nodes[i];
        const TaskId id = first.plus(i);
        const std::uint32_t slot = init_slot(n.spec, id, scoped);
        TaskSlot& t = engine.tasks[slot];
        // The link word keeps init_slot's completion reference only: internal consumers hold none (see
        // "The link word" in task_slot.h).
        t.static_consumer_count = static_cast<std::uint16_t>(n.consumer_offsets.size());
        t.static_consumers = n.consumer_offsets.data();
        // Boundary edges are staged at once: nothing is published before the flush after link_instance.
        const std::uint64_t edge_begin = engine.edges.head();
        const std::uint32_t external =
            linker.select_and_stage(id, slot, n.external_producers, window, t, engine.edges, stats);
        t.fanin_pending.store(static_cast<std::int32_t>(external + n.producer_offsets.size()),
                              std::memory_order_relaxed);
        t.fanin_edge_begin = static_cast<std::uint32_t>(edge_begin);
        t.fanin_edge_count = external;
        window.set_marks(slot, detail::RingMarks{edge_begin + external, heap.head(), engine.args.head()});
        count_submit(n.spec);
        recorder.instance_node(n, id);
    }
    window.commit(nodes.size());
    recorder.instance(first, static_cast<std::uint32_t>(nodes.size()));
}

void Runtime::Impl::link_instance(std::span<const InstanceNode> nodes, TaskId first) {
    // Each node settles its fanin, in node order (its boundary edges were staged with its slot). Ends before
    // flush_links, which times itself into the same counter.
    PhaseTimer timer(config.profile_orchestrator, stats.fanin_ns);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const InstanceNode& n = nodes[i];
        const std::uint32_t slot = window.slot_of(first.value + i);
        const std::uint32_t external = engine.tasks[slot].fanin_edge_count;
        if (n.spec.kind == TaskKind::Alloc) {
            engine.complete_task(slot, Outcome::Ok, orchestrator_ctx);
        } else if (external + n.producer_offsets.size() == 0) {
            engine.make_ready(slot, orchestrator_ctx);
        }
    }
}

// ---- A planned instance: the plan's constants were checked once (instance_plan.cpp), the runtime-specific
// part once per run (validate_planned), so only what the instance binds is checked and written here.

TaskId detail::TaskPort::submit_planned(const InstancePlan& plan, const InstanceInputs& inputs, bool scoped) {
    return runtime_->impl_->submit_planned(plan, inputs, scoped);
}

TaskId Runtime::Impl::submit_planned(const detail::InstancePlan& plan, const detail::InstanceInputs& inputs,
                                     bool scoped) {
    check_run_open("submit_instance");
    const TaskId first{window.next_id()};
    const auto count = static_cast<std::uint32_t>(plan.nodes().size());
    const detail::AicpuSlice traced(recorder.aicpu_sink(), AicpuActivity::SubmitInstance, run_start_ns, first,
                                    count);
    const BoundaryEdges boundary = validate_planned(plan, inputs, first);
    // In a scope, a long boundary list may join or open a bundle (EdgeLinker, "Bundles"), which takes a node
    // more than its edges: where the pool has room for that too.
    const bool may_bundle = scoped && boundary.edges + boundary.long_lists <= engine.edges.capacity();
    {
        PhaseTimer timer(config.profile_orchestrator, stats.ring_alloc_ns);
        reserve(count, boundary.edges + (may_bundle ? boundary.long_lists : 0), plan.heap_reserve_bytes(),
                plan.arg_reserve_bytes());
    }
    if (inputs.shares_lists) [[unlikely]]
        init_planned_slots<true>(plan, inputs, first, scoped, may_bundle);
    else
        init_planned_slots<false>(plan, inputs, first, scoped, may_bundle);
    {
        PhaseTimer timer(config.profile_orchestrator, stats.fanin_ns);
        // Only nodes without internal producers can be ready now: those whose boundary producers all
        // retired or were none.
        for (const std::uint32_t k : plan.source_nodes()) {
            const std::uint32_t slot = window.slot_of(first.value + k);
            if (engine.tasks[slot].fanin_edge_count == 0) engine.make_ready(slot, orchestrator_ctx);
        }
    }
    if (linker.should_flush(scoped)) flush_links(FinishedCount::Batched);
    finish_orchestrator_completions(FinishedCount::Batched);
    window.publish_submitted();
    return first;
}

namespace {
/// Image ranges of at most this many words are copied word by word, longer ones with one memcpy: the
/// crossover measured in instructions per launch on the Qwen3 and paged-attention templates.
constexpr std::uint32_t kWordCopyLimit = 3;
}  // namespace

template <bool kSharesLists>
void Runtime::Impl::init_planned_slots(const detail::InstancePlan& plan, const detail::InstanceInputs& inputs,
                                       TaskId first, bool scoped, bool may_bundle) {
    // The arguments of every node at once: the plan's image where nothing is bound (headers, constant
    // scalars and tensors), then the bound values with their directions; no byte is written twice.
    // Plain writes: nothing is published before the flush.
    const std::span<const std::byte> image = plan.arg_image();
    std::uint64_t block = 0;
    std::byte* args = nullptr;
    if (!image.empty()) {
        PhaseTimer timer(config.profile_orchestrator, stats.arg_copy_ns);
        block = engine.args.append_block(image.size());
        args = engine.args.block(block);
        for (const detail::InstancePlan::ImageRange r : plan.image_ranges()) {
            // A record's header and scalars are shorter than a memcpy call is worth; the runs of constant
            // tensor arguments (whole views) are not.
            if (r.words > kWordCopyLimit) {
                std::memcpy(args + r.offset, image.data() + r.offset, std::size_t{r.words} * 8);
                continue;
            }
            for (std::uint32_t w = 0; w < r.words; ++w)
                std::memcpy(args + r.offset + w * 8, image.data() + r.offset + w * 8, 8);
        }
        const TensorView* views = inputs.tensor_slots.data();
        for (const detail::InstancePlan::ArgPatch p : plan.tensor_patches())
            detail::copy_view(args + p.offset, views[p.slot]);
        const std::uint64_t* scalars = inputs.scalar_slots.data();
        for (const detail::InstancePlan::ArgPatch p : plan.scalar_patches())
            std::memcpy(args + p.offset, &scalars[p.slot], sizeof(std::uint64_t));
    }
    // Where the block starts in the ring's running count: each node frees up to the end of its record.
    const std::uint64_t args_base = engine.args.head() - image.size();
    const std::uint32_t* created_offsets = plan.created_offsets().data();
    const std::span<const detail::InstancePlan::Node> nodes = plan.nodes();
    [[maybe_unused]] std::uint32_t previous_external =
        detail::kNotBound;  // kSharesLists: the last external node
    for (std::uint32_t k = 0; k < nodes.size(); ++k) {
        const detail::InstancePlan::Node& n = nodes[k];
        const TaskId id = first.plus(k);
        const std::uint32_t slot = window.slot_of(id.value);
        TaskSlot& t = engine.tasks[slot];
        claim_ahead(id.value);
        // As init_slot_state, from the plan's constants (kernel lanes already resolved; holds_references
        // false until the linker stages a boundary edge from a producer with outputs).
        t.blocks_claimed.store(0, std::memory_order_relaxed);
        t.blocks_finished.store(0, std::memory_order_relaxed);
        t.outcome.store(Outcome::Ok, std::memory_order_relaxed);
        detail::SlotImage::write(t, n.slot_image);
        // Its own completion reference only: internal consumers hold none (see "The link word").
        t.link.store(kLinkRefUnit, std::memory_order_relaxed);
        window.open_slot(slot, scoped);
        linker.set_keeps_outputs(slot, false);  // until allocate_created below
        for (std::uint32_t c = 0; c < n.create_info_count; ++c) {
            auto& created = *reinterpret_cast<TensorView*>(args + created_offsets[n.first_created + c]);
            allocate_created(created, id);
            inputs.created[n.first_created + c] = created;
        }
        engine.tasks.info(slot) =
            detail::SlotInfo{id.value, n.arg_offset == detail::kNotBound ? detail::SlotInfo::kNoArguments
                                                                         : block + n.arg_offset};
        const std::uint64_t edge_begin = engine.edges.head();
        std::span<const TaskId> external;
        std::uint32_t staged = 0;
        if (n.external != detail::kNotBound) {
            external = inputs.external_producers[n.external];
            // The list the previous boundary node selected, handed over again (one list for several
            // nodes): the linker remembers it from that selection, so it is not compared again.
            bool known_remembered = false;
            if constexpr (kSharesLists) {
                known_remembered =
                    previous_external != detail::kNotBound &&
                    detail::same_list(external, inputs.external_producers[previous_external]) &&
                    external.size() <= detail::EdgeLinker::kMaxRemembered;
                previous_external = n.external;
            }
            staged =
                linker.select_and_stage(id, slot, external, window, t, engine.edges, stats, known_remembered,
                                        may_bundle && detail::EdgeLinker::may_bundle(external, engine.edges));
        }
        t.fanin_pending.store(static_cast<std::int32_t>(staged + n.internal_producers),
                              std::memory_order_relaxed);
        t.fanin_edge_begin = static_cast<std::uint32_t>(edge_begin);
        t.fanin_edge_count = staged;
        window.set_marks(slot, detail::RingMarks{engine.edges.head(), heap.head(), args_base + n.args_end});
        if (config.record_graph) [[unlikely]] {
            InstanceNode recorded;
            recorded.spec = detail::spec_of(n);
            recorded.producer_offsets = {n.producers, n.internal_producers};
            recorded.external_producers = external;
            recorder.instance_node(recorded, id);
        }
    }
    const auto count = static_cast<std::uint32_t>(nodes.size());
    window.commit(count);
    recorder.instance(first, count);
    stats.submits += count;
    kernel_tasks += plan.kernel_tasks();
    framework_tasks += count - plan.kernel_tasks();
    subtasks += plan.subtasks();
}

}  // namespace pto
