// The orchestrator's submission path: slot initialisation and argument copy, submit and submit_instance,
// and the end of a scope. Validation (submit_validation.cpp), reservation and retirement (reservation.cpp)
// and linking into producers' fanout lists (edge_linking.cpp) are the steps it calls.
#include <algorithm>
#include <string>

#include "aicpu_slice.h"
#include "phase_timer.h"
#include "pto/runtime/detail/throw.h"
#include "runtime_impl.h"

namespace pto {

using detail::kLinkRefUnit;
using detail::Outcome;
using detail::PhaseTimer;
using detail::TaskSlot;

namespace {

std::uint64_t aligned_bytes(std::uint64_t bytes) {
    const std::uint64_t a = detail::HeapRing::kAlignment;
    return std::max<std::uint64_t>(a, (bytes + a - 1) & ~(a - 1));
}

/// create_info_bytes: bytes of a create-info output, saturated at 2^48 (more than any heap ring holds), so an
/// absurd shape is rejected as larger than the heap instead of wrapping around to a small size.
std::uint64_t create_info_bytes(const TensorView& v) {
    constexpr std::uint64_t kSaturated = 1ull << 48;
    std::uint64_t bytes = size_of(v.dtype);
    for (int d = 0; d < v.ndim && d < kMaxTensorDims; ++d) {
        // Overflow test by multiplication, not division: this runs per create-info on the submit path.
        if (__builtin_mul_overflow(bytes, std::uint64_t{v.shape[d]}, &bytes) || bytes > kSaturated)
            return kSaturated;
    }
    return bytes;
}

/// keeps_arguments: whether the task's arguments go to the argument ring: kernels read them back (the compute
/// executor), and a task that allocates outputs keeps them so its handle can hand the new views out.
bool keeps_arguments(const TaskSpec& spec) {
    if (spec.kind == TaskKind::Kernel) return true;
    for (const TensorArg& a : spec.tensors)
        if (a.view.base == nullptr) return true;
    return false;
}

/// argument_bytes: argument-ring room to reserve for `spec`.
std::uint64_t argument_bytes(const TaskSpec& spec) {
    if (!keeps_arguments(spec)) return 0;
    return detail::ArgRing::reserve_bytes(
        detail::ArgRecord::bytes_for(spec.tensors.size(), spec.scalars.size()));
}

/// HeapNeed: bytes a set of create-info outputs needs. Buffers never wrap, so carving them may skip the
/// ring's tail once, wasting less than the largest buffer: reserving total + largest always suffices.
struct HeapNeed {
    std::uint64_t total = 0;
    std::uint64_t largest = 0;
    void add(std::span<const TensorArg> tensors) {
        for (const TensorArg& a : tensors) {
            if (a.view.base != nullptr) continue;
            const std::uint64_t b = aligned_bytes(create_info_bytes(a.view));
            total += b;
            largest = std::max(largest, b);
        }
    }
    [[nodiscard]] std::uint64_t reserve_bytes() const { return total == 0 ? 0 : total + largest; }
};

}  // namespace

std::uint32_t Runtime::Impl::init_slot(const TaskSpec& spec, TaskId id, bool scoped) {
    const std::uint32_t slot = static_cast<std::uint32_t>(id.value) & engine.window_mask;
    TaskSlot& t = engine.slots[slot];
    // Relaxed: the slot is unpublished; the first link CAS or the ready-queue push releases these stores.
    t.blocks_claimed.store(0, std::memory_order_relaxed);
    t.blocks_finished.store(0, std::memory_order_relaxed);
    t.outcome.store(Outcome::Ok, std::memory_order_relaxed);
    t.link.store(kLinkRefUnit, std::memory_order_relaxed);  // the completion reference
    t.kind = spec.kind;
    t.shape = detail::shape_of(spec.kind, spec.core);
    t.block_num = static_cast<std::uint16_t>(spec.block_num);
    t.funcs[0] = spec.funcs[0];
    t.funcs[1] = spec.core == CoreType::MIX ? spec.funcs[1] : spec.funcs[0];
    t.funcs[2] = spec.core == CoreType::MIX ? spec.funcs[2] : spec.funcs[0];
    t.static_consumer_count = 0;
    t.static_producer_count = 0;
    t.static_consumers = nullptr;
    t.static_producers = nullptr;
    books[slot].scope_held = scoped;

    // Arguments: allocate create-info outputs (written back so the caller sees them), then copy.
    PhaseTimer timer(config.profile_orchestrator, stats.arg_copy_ns);
    const bool keep = keeps_arguments(spec);  // before the allocation below gives every output a buffer
    for (TensorArg& a : spec.tensors) {
        if (a.view.base != nullptr) continue;
        const std::uint64_t bytes = create_info_bytes(a.view);
        stats.heap_bytes_allocated += bytes;
        a.view.base = heap.try_allocate(bytes);
        PTO_ASSERT(a.view.base != nullptr, "reserve() guaranteed heap room");
        a.view.creator = id;
    }
    const std::uint64_t args_offset =
        keep ? engine.args.write(spec.tensors, spec.scalars) : detail::SlotInfo::kNoArguments;
    engine.slot_info[slot] = detail::SlotInfo{id.value, args_offset};
    books[slot].args_end = engine.args.head();
    return slot;
}

void Runtime::Impl::record_task(const TaskSpec& spec, TaskId id, std::span<const TaskId> producers) {
    RecordedTask& r = graph.tasks.emplace_back();
    r.id = id;
    r.kind = spec.kind;
    r.core = spec.core;
    for (int i = 0; i < 3; ++i)
        r.funcs[i] = spec.funcs[i];
    r.block_num = spec.block_num;
    r.first_producer = static_cast<std::uint32_t>(graph.producers.size());
    record_scratch.assign(producers.begin(), producers.end());
    std::sort(record_scratch.begin(), record_scratch.end());
    record_scratch.erase(std::unique(record_scratch.begin(), record_scratch.end()), record_scratch.end());
    graph.producers.insert(graph.producers.end(), record_scratch.begin(), record_scratch.end());
    r.producer_count = static_cast<std::uint32_t>(record_scratch.size());
}

void Runtime::Impl::count_submit(const TaskSpec& spec) {
    ++stats.submits;
    if (spec.kind == TaskKind::Kernel) {
        ++kernel_tasks;
        subtasks += spec.block_num;
    } else {
        ++framework_tasks;
    }
}

TaskId Runtime::Impl::submit(const TaskSpec& spec, std::span<const TaskId> producers, bool scoped) {
    check_run_open("submit");
    const TaskId id{next_id};
    const detail::AicpuSlice traced(aicpu_sink(), AicpuActivity::Submit, run_start_ns, id);
    validate_spec(spec, id);
    validate_producers(producers, id, spec);
    if (spec.kind == TaskKind::Alloc && !producers.empty()) [[unlikely]]
        detail::throw_error(ErrorCode::InvalidArgument,
                            describe_task(id, &spec) +
                                " cannot wait for producers: an alloc task completes when "
                                "it is submitted");

    HeapNeed heap_need;
    heap_need.add(spec.tensors);
    check_heap_need(heap_need.reserve_bytes(), id, &spec);
    {
        PhaseTimer timer(config.profile_orchestrator, stats.ring_alloc_ns);
        reserve(1, producers.size(), heap_need.reserve_bytes(), argument_bytes(spec));
    }

    const std::uint32_t slot = init_slot(spec, id, scoped);
    TaskSlot& t = engine.slots[slot];
    {
        // Ends before flush_links, which times itself into the same counter.
        PhaseTimer timer(config.profile_orchestrator, stats.fanin_ns);
        candidates.clear();
        const std::uint32_t expected = select_producers(id, producers);
        const std::uint64_t edge_begin = engine.edges.head();
        // Every field is written before the first link publishes the slot (see "The fanin counter").
        t.fanin_pending.store(static_cast<std::int32_t>(expected), std::memory_order_relaxed);
        t.fanin_edge_begin = static_cast<std::uint32_t>(edge_begin);
        t.fanin_edge_count = expected;
        detail::SlotBook& book = books[slot];
        book.edge_end = edge_begin + expected;
        book.heap_end = heap.head();
        ++next_id;
        count_submit(spec);
        if (config.record_graph) record_task(spec, id, producers);

        stage_links(slot, candidates.data(), expected);
        if (spec.kind == TaskKind::Alloc) {
            // Owns buffers and has no kernel: it completes now, but lives on while referenced.
            engine.complete_task(slot, Outcome::Ok, orchestrator_ctx);
        } else if (expected == 0) {
            engine.make_ready(slot, orchestrator_ctx);
        }
    }
    // Inside a scope, edges are spliced per producer when the scope ends (or the staging fills), one CAS
    // per producer instead of one per edge; outside any scope, at once.
    if (!scoped || staged_edges >= kMaxStagedEdges) flush_links();
    finish_orchestrator_completions();
    submits_published.store(next_id - run_first_id, std::memory_order_relaxed);
    return id;
}

TaskId Runtime::Impl::submit_instance(std::span<InstanceNode> nodes,
                                      const std::shared_ptr<const InstanceEdges>& edges, bool scoped) {
    check_run_open("submit_instance");
    const TaskId first{next_id};
    if (nodes.empty()) return first;
    const detail::AicpuSlice traced(aicpu_sink(), AicpuActivity::SubmitInstance, run_start_ns, first,
                                    static_cast<std::uint32_t>(nodes.size()));
    if (nodes.size() > config.window_tasks) [[unlikely]]
        detail::throw_error(
            ErrorCode::CapacityExhausted,
            "a static template instance of " + std::to_string(nodes.size()) + " tasks (starting at task " +
                std::to_string(first.value) +
                ") is larger than the whole task window: raise RuntimeConfig::window_tasks (" +
                std::to_string(config.window_tasks) + ") or split the template");
    validate_instance_edges(nodes, first, edges.get());
    HeapNeed heap_need;
    std::uint64_t edge_nodes = 0;
    std::uint64_t arg_bytes = 0;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const InstanceNode& n = nodes[i];
        const TaskId id = first.plus(i);
        validate_spec(n.spec, id);
        if (n.spec.kind == TaskKind::Alloc && !(n.external_producers.empty() && n.producer_offsets.empty()))
            [[unlikely]]
            detail::throw_error(ErrorCode::InvalidTemplate,
                                describe_task(id, &n.spec) +
                                    " cannot wait for producers: an alloc task completes "
                                    "when it is submitted");
        // External producers must precede the whole instance.
        validate_producers(n.external_producers, first, n.spec);
        edge_nodes += n.external_producers.size();
        heap_need.add(n.spec.tensors);
        arg_bytes += argument_bytes(n.spec);
    }
    if (arg_bytes > engine.args.capacity()) [[unlikely]]
        detail::throw_error(ErrorCode::CapacityExhausted,
                            "a static template instance starting at task " + std::to_string(first.value) +
                                " copies " + std::to_string(arg_bytes) +
                                " argument bytes (with room for wrapping), more than the "
                                "argument ring holds: raise RuntimeConfig::argument_bytes (" +
                                std::to_string(engine.args.capacity()) + ")");
    if (edge_nodes > engine.edges.capacity()) [[unlikely]]
        detail::throw_error(ErrorCode::CapacityExhausted,
                            "a static template instance starting at task " + std::to_string(first.value) +
                                " needs " + std::to_string(edge_nodes) +
                                " boundary edges, more than the edge pool holds: raise "
                                "RuntimeConfig::edge_capacity (" +
                                std::to_string(config.edge_capacity) + ")");
    check_heap_need(heap_need.reserve_bytes(), first, nullptr);
    {
        PhaseTimer timer(config.profile_orchestrator, stats.ring_alloc_ns);
        reserve(nodes.size(), edge_nodes, heap_need.reserve_bytes(), arg_bytes);
    }
    // The slots below point into the tables until the tasks retire (raw tables: the caller's promise).
    if (edges) edge_table_holds.hold(edges, first.value + nodes.size() - 1);

    // Phase 1: initialise every slot, fanin counts included, before any node is published, so a node that
    // completes at once finds its internal consumers ready to be released.
    candidates.clear();
    std::uint64_t edge_cursor = engine.edges.head();
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const InstanceNode& n = nodes[i];
        const TaskId id = first.plus(i);
        const std::uint32_t slot = init_slot(n.spec, id, scoped);
        TaskSlot& t = engine.slots[slot];
        t.static_consumer_count = static_cast<std::uint16_t>(n.consumer_offsets.size());
        t.static_consumers = n.consumer_offsets.data();
        t.static_producer_count = static_cast<std::uint16_t>(n.producer_offsets.size());
        t.static_producers = n.producer_offsets.data();
        // Internal consumers each hold a reference until they finish, like dynamic ones.
        t.link.store(kLinkRefUnit * (1 + n.consumer_offsets.size()), std::memory_order_relaxed);
        const std::uint32_t external = select_producers(id, n.external_producers);
        t.fanin_pending.store(static_cast<std::int32_t>(external + n.producer_offsets.size()),
                              std::memory_order_relaxed);
        t.fanin_edge_begin = static_cast<std::uint32_t>(edge_cursor);
        t.fanin_edge_count = external;
        edge_cursor += external;
        detail::SlotBook& book = books[slot];
        book.edge_end = edge_cursor;
        book.heap_end = heap.head();
        count_submit(n.spec);
        if (config.record_graph) {
            instance_scratch.clear();
            for (std::uint32_t d : n.producer_offsets)
                instance_scratch.push_back(TaskId{id.value - d});
            instance_scratch.insert(instance_scratch.end(), n.external_producers.begin(),
                                    n.external_producers.end());
            record_task(n.spec, id, instance_scratch);
        }
    }
    next_id += nodes.size();
    if (config.record_graph)
        graph.instances.push_back(RecordedRange{first, static_cast<std::uint32_t>(nodes.size())});

    // Phase 2: boundary edges, then each node settles its fanin, in node order.
    {
        // Ends before flush_links, which times itself into the same counter.
        PhaseTimer timer(config.profile_orchestrator, stats.fanin_ns);
        std::size_t offset = 0;
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            const InstanceNode& n = nodes[i];
            const std::uint32_t slot = static_cast<std::uint32_t>(first.value + i) & engine.window_mask;
            const std::uint32_t external = engine.slots[slot].fanin_edge_count;
            stage_links(slot, candidates.data() + offset, external);
            offset += external;
            if (n.spec.kind == TaskKind::Alloc) {
                engine.complete_task(slot, Outcome::Ok, orchestrator_ctx);
            } else if (external + n.producer_offsets.size() == 0) {
                engine.make_ready(slot, orchestrator_ctx);
            }
        }
    }
    if (!scoped || staged_edges >= kMaxStagedEdges) flush_links();
    finish_orchestrator_completions();
    submits_published.store(next_id - run_first_id, std::memory_order_relaxed);
    return first;
}

std::span<const TensorArg> Runtime::Impl::task_tensors(TaskId id) const {
    if (id.value < retired_before || id.value >= next_id) return {};
    const std::uint32_t slot = static_cast<std::uint32_t>(id.value) & engine.window_mask;
    if (engine.slot_info[slot].args_offset == detail::SlotInfo::kNoArguments) return {};
    const detail::ArgRecord& record = engine.args_of(slot);
    return {record.tensors(), record.tensor_count};
}

void Runtime::Impl::release_scope(TaskId begin, TaskId end) {
    flush_links();
    PhaseTimer timer(config.profile_orchestrator, stats.scope_end_ns);
    ++stats.scopes_closed;
    if (config.record_graph && end.value > begin.value)
        graph.scopes.push_back(RecordedRange{begin, static_cast<std::uint32_t>(end.value - begin.value)});
    // The scope's hold is orchestrator-private (see "The link word"): releasing it is a plain store, and
    // try_retire retires what it unblocked the next time it runs.
    const std::uint64_t from = std::max(begin.value, retired_before);
    const std::uint64_t to = std::min(end.value, next_id);
    for (std::uint64_t id = from; id < to; ++id)
        books[static_cast<std::uint32_t>(id) & engine.window_mask].scope_held = false;
}

}  // namespace pto
