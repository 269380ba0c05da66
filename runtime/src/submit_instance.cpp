// A static template instance as one submission: its checks (instance_validation.cpp), room for the whole id
// range at once, every slot initialised before any node is published, then each node's fanin settled. Either
// from InstanceNodes (every spec checked per call) or from an InstancePlan (constants checked once; each
// argument written from its slot or the plan).
#include "aicpu_slice.h"
#include "phase_timer.h"
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
    if (linker.should_flush(scoped)) flush_links();
    finish_orchestrator_completions();
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
        t.static_consumer_count = static_cast<std::uint16_t>(n.consumer_offsets.size());
        t.static_consumers = n.consumer_offsets.data();
        t.static_producer_count = static_cast<std::uint16_t>(n.producer_offsets.size());
        t.static_producers = n.producer_offsets.data();
        // Internal consumers each hold a reference until they finish, like dynamic ones.
        t.link.store(kLinkRefUnit * (1 + n.consumer_offsets.size()), std::memory_order_relaxed);
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
    const std::uint64_t edge_nodes = validate_planned(plan, inputs, first);
    {
        PhaseTimer timer(config.profile_orchestrator, stats.ring_alloc_ns);
        reserve(count, edge_nodes, plan.heap_reserve_bytes(), plan.arg_reserve_bytes());
    }
    init_planned_slots(plan, inputs, first, scoped);
    {
        PhaseTimer timer(config.profile_orchestrator, stats.fanin_ns);
        const InstanceEdges& edges = *plan.edges();
        for (std::uint32_t k = 0; k < count; ++k) {
            const std::uint32_t slot = window.slot_of(first.value + k);
            if (engine.tasks[slot].fanin_edge_count == 0 && edges.producers(k).empty())
                engine.make_ready(slot, orchestrator_ctx);
        }
    }
    if (linker.should_flush(scoped)) flush_links();
    finish_orchestrator_completions();
    window.publish_submitted();
    return first;
}

void Runtime::Impl::init_planned_slots(const detail::InstancePlan& plan, const detail::InstanceInputs& inputs,
                                       TaskId first, bool scoped) {
    const std::span<const detail::InstancePlan::Node> nodes = plan.nodes();
    const detail::InstancePlan::Arg* tensor_args = plan.tensor_args().data();
    const detail::InstancePlan::Arg* scalar_args = plan.scalar_args().data();
    const TensorView* constant_views = plan.constant_views().data();
    const std::uint64_t* constant_scalars = plan.constant_scalars().data();
    const std::uint32_t* created_args = plan.created_args().data();
    const InstanceEdges& edges = *plan.edges();
    for (std::uint32_t k = 0; k < nodes.size(); ++k) {
        const detail::InstancePlan::Node& n = nodes[k];
        const TaskId id = first.plus(k);
        const std::uint32_t slot = window.slot_of(id.value);
        TaskSlot& t = engine.tasks[slot];
        // As init_slot_state, from the plan's constants (kernel lanes already resolved). Relaxed: nothing is
        // published before the flush.
        t.blocks_claimed.store(0, std::memory_order_relaxed);
        t.blocks_finished.store(0, std::memory_order_relaxed);
        t.outcome.store(Outcome::Ok, std::memory_order_relaxed);
        t.kind = n.kind;
        t.shape = detail::shape_of(n.kind, n.core);
        t.block_num = n.block_num;
        t.funcs[0] = n.funcs[0];
        t.funcs[1] = n.funcs[1];
        t.funcs[2] = n.funcs[2];
        window.open_slot(slot, scoped);
        std::uint64_t args_offset = detail::SlotInfo::kNoArguments;
        if (n.keeps_arguments) {
            PhaseTimer timer(config.profile_orchestrator, stats.arg_copy_ns);
            args_offset = engine.args.append(n.tensor_count, n.scalar_count);
            detail::ArgRecord& record = engine.args.mutable_record(args_offset);
            auto* out_scalars = reinterpret_cast<std::uint64_t*>(&record + 1);
            // One copy per argument from where the plan says its value is: no branch but for allocations.
            for (std::uint32_t a = 0; a < n.scalar_count; ++a) {
                const detail::InstancePlan::Arg arg = scalar_args[n.first_scalar + a];
                const std::uint64_t* from = arg.source == detail::InstancePlan::ArgSource::Slot
                                                ? inputs.scalar_slots.data()
                                                : constant_scalars;
                out_scalars[a] = from[arg.index];
            }
            TensorArg* out = record.mutable_tensors();
            for (std::uint32_t a = 0; a < n.tensor_count; ++a) {
                const detail::InstancePlan::Arg arg = tensor_args[n.first_tensor + a];
                const TensorView* from = arg.source == detail::InstancePlan::ArgSource::Slot
                                             ? inputs.tensor_slots.data()
                                             : constant_views;
                out[a].view = from[arg.index];
                out[a].direction = arg.direction;
            }
            for (std::uint32_t c = 0; c < n.create_info_count; ++c) {
                TensorView& created = out[created_args[n.first_created + c]].view;
                allocate_created(created, id);
                inputs.created[n.first_created + c] = created;
            }
        }
        engine.tasks.info(slot) = detail::SlotInfo{id.value, args_offset};
        const std::span<const std::uint32_t> consumers = edges.consumers(k);
        const std::span<const std::uint32_t> producers = edges.producers(k);
        t.static_consumer_count = static_cast<std::uint16_t>(consumers.size());
        t.static_consumers = consumers.data();
        t.static_producer_count = static_cast<std::uint16_t>(producers.size());
        t.static_producers = producers.data();
        // The completion reference, and one for each internal consumer until it finishes.
        t.link.store(kLinkRefUnit * (1 + consumers.size()), std::memory_order_relaxed);
        const std::uint64_t edge_begin = engine.edges.head();
        std::span<const TaskId> external;
        std::uint32_t staged = 0;
        if (n.external != detail::kNotBound) {
            external = inputs.external_producers[n.external];
            staged = linker.select_and_stage(id, slot, external, window, t, engine.edges, stats);
        }
        t.fanin_pending.store(static_cast<std::int32_t>(staged + producers.size()),
                              std::memory_order_relaxed);
        t.fanin_edge_begin = static_cast<std::uint32_t>(edge_begin);
        t.fanin_edge_count = staged;
        window.set_marks(slot, detail::RingMarks{edge_begin + staged, heap.head(), engine.args.head()});
        if (config.record_graph) [[unlikely]] {
            InstanceNode recorded;
            recorded.spec = detail::spec_of(n);
            recorded.producer_offsets = producers;
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
