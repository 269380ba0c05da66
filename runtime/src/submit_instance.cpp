// A static template instance as one submission: its checks (instance_validation.cpp), room for the whole id
// range at once, every slot initialised before any node is published, then each node's fanin settled.
#include "aicpu_slice.h"
#include "phase_timer.h"
#include "runtime_impl.h"

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

}  // namespace pto
