// The orchestrator's submission path: validation, reservation with back-pressure, slot initialisation,
// argument copy, linking into producers' fanout lists, publication, and in-order retirement.
#include <algorithm>
#include <chrono>
#include <string>

#include "pto/runtime/detail/throw.h"
#include "runtime_impl.h"

namespace pto {

using detail::kLinkClosed;
using detail::kLinkHeadMask;
using detail::kLinkRefUnit;
using detail::Outcome;
using detail::TaskSlot;

namespace {

std::int64_t steady_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// PhaseTimer: adds the wall time of a scope to a counter, only when profiling is on.
class PhaseTimer {
  public:
    PhaseTimer(bool enabled, std::int64_t& sink)
        : sink_(enabled ? &sink : nullptr), start_(enabled ? steady_ns() : 0) {}
    ~PhaseTimer() {
        if (sink_ != nullptr) *sink_ += steady_ns() - start_;
    }
    PhaseTimer(const PhaseTimer&) = delete;
    PhaseTimer& operator=(const PhaseTimer&) = delete;

  private:
    std::int64_t* sink_;
    std::int64_t start_;
};

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

/// argument_bytes: argument-ring room to reserve for `spec` (kernels only keep their arguments).
std::uint64_t argument_bytes(const TaskSpec& spec) {
    if (spec.kind != TaskKind::Kernel) return 0;
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

// ---- Validation (before anything changes: a rejected call leaves no trace) ------------------------------

void Runtime::Impl::check_run_open(const char* call) const {
    if (!in_run) [[unlikely]]
        detail::throw_error(ErrorCode::NoActiveRun,
                            std::string(call) +
                                " outside a run: call it from the orchestration function "
                                "given to pto::run (or between Runtime::begin_run and end_run)");
}

std::string Runtime::Impl::describe_task(TaskId id, const TaskSpec* spec) const {
    std::string s = "task " + std::to_string(id.value);
    if (spec == nullptr) return s;
    switch (spec->kind) {
        case TaskKind::Kernel:
            s += " (" + std::string(to_string(spec->core)) + " kernel " + engine.kernel_name(spec->funcs[0]) +
                 ")";
            break;
        case TaskKind::DependencyOnly:
            s += " (dependency-only)";
            break;
        case TaskKind::Alloc:
            s += " (alloc_tensors)";
            break;
    }
    return s;
}

void Runtime::Impl::validate_spec(const TaskSpec& spec, TaskId id) const {
    if (spec.kind == TaskKind::Kernel) {
        if (spec.core == CoreType::None)
            detail::throw_error(ErrorCode::InvalidArgument,
                                describe_task(id, &spec) + ": a kernel task needs core type AIC, AIV or MIX");
        if (spec.block_num < 1 || spec.block_num > kMaxBlockNum) [[unlikely]]
            detail::throw_error(ErrorCode::InvalidBlockNum,
                                describe_task(id, &spec) + ": block_num = " + std::to_string(spec.block_num) +
                                    "; it must be in 1.." + std::to_string(kMaxBlockNum));
        const int lanes = spec.core == CoreType::MIX ? 3 : 1;
        if (config.executor != Executor::Instant) {
            for (int l = 0; l < lanes; ++l) {
                const KernelInfo* k = engine.kernel(spec.funcs[l]);
                const bool missing =
                    k == nullptr || (config.executor == Executor::Compute && k->fn == nullptr);
                if (missing) [[unlikely]]
                    detail::throw_error(ErrorCode::UnknownKernel,
                                        describe_task(id, &spec) + ": " + engine.kernel_name(spec.funcs[l]) +
                                            (config.executor == Executor::Compute
                                                 ? " has no registered compute function"
                                                 : " is not registered (its duration is needed)") +
                                            "; call Runtime::register_kernel first");
            }
        }
    } else if (spec.block_num != 1) [[unlikely]] {
        detail::throw_error(ErrorCode::InvalidBlockNum, describe_task(id, &spec) +
                                                            ": framework tasks have block_num 1, not " +
                                                            std::to_string(spec.block_num));
    }
    if (spec.tensors.size() > kMaxTensorArgs || spec.scalars.size() > kMaxScalarArgs) [[unlikely]]
        detail::throw_error(ErrorCode::TooManyArguments,
                            describe_task(id, &spec) + ": " + std::to_string(spec.tensors.size()) +
                                " tensors and " + std::to_string(spec.scalars.size()) + " scalars; at most " +
                                std::to_string(kMaxTensorArgs) + " and " + std::to_string(kMaxScalarArgs));
    for (std::size_t i = 0; i < spec.tensors.size(); ++i) {
        const TensorArg& a = spec.tensors[i];
        if (a.view.ndim < 1 || a.view.ndim > kMaxTensorDims) [[unlikely]]
            detail::throw_error(ErrorCode::InvalidTensor, describe_task(id, &spec) + ": tensor argument " +
                                                              std::to_string(i) + " has rank " +
                                                              std::to_string(a.view.ndim));
        if (a.view.base == nullptr) {
            if (a.direction != Direction::Out) [[unlikely]]
                detail::throw_error(ErrorCode::InvalidTensor,
                                    describe_task(id, &spec) + ": tensor argument " + std::to_string(i) +
                                        " is a create-info (no buffer yet) but is passed as an input; "
                                        "only outputs can be allocated by the runtime");
        }
    }
}

void Runtime::Impl::check_heap_need(std::uint64_t reserve_bytes, TaskId id, const TaskSpec* spec) const {
    if (reserve_bytes <= heap.capacity()) [[likely]]
        return;
    detail::throw_error(ErrorCode::CapacityExhausted,
                        describe_task(id, spec) + " allocates " + std::to_string(reserve_bytes) +
                            " bytes (with room for wrapping), more than the whole heap ring: raise "
                            "RuntimeConfig::heap_bytes (" +
                            std::to_string(config.heap_bytes) + ")");
}

void Runtime::Impl::validate_producers(std::span<const TaskId> producers, TaskId id,
                                       const TaskSpec& spec) const {
    for (TaskId p : producers) {
        if (p.value >= run_first_id && p.value < id.value) [[likely]]
            continue;
        std::string why;
        if (!p.is_valid())
            why = "an invalid TaskId (a handle of a call that created no task?)";
        else if (p.value >= id.value)
            why = "task " + std::to_string(p.value) + ", which has not been submitted yet";
        else
            why = "task " + std::to_string(p.value) +
                  ", which belongs to an earlier run (this run starts at task " +
                  std::to_string(run_first_id) + ")";
        detail::throw_error(ErrorCode::InvalidDependency, describe_task(id, &spec) + " depends on " + why);
    }
    if (producers.size() > engine.edges.capacity()) [[unlikely]]
        detail::throw_error(
            ErrorCode::CapacityExhausted,
            describe_task(id, &spec) + " names " + std::to_string(producers.size()) +
                " producers, more than the edge pool holds: raise RuntimeConfig::edge_capacity (" +
                std::to_string(config.edge_capacity) + ")");
}

// ---- Reservation and retirement ---------------------------------------------------------------------------

TaskId Runtime::Impl::try_retire() {
    // A producer with staged consumers must not retire before they are spliced: they hold references.
    flush_links();
    const std::uint32_t mask = engine.window_mask;
    while (retired_before < next_id) {
        const std::uint32_t slot = static_cast<std::uint32_t>(retired_before) & mask;
        // Acquire pairs with the last drop_reference (seq_cst RMW): every thread is done with the slot.
        if (books[slot].scope_held ||
            detail::link_refs(engine.slots[slot].link.load(std::memory_order_acquire)) != 0)
            break;
        if (engine.slots[slot].outcome.load(std::memory_order_relaxed) != Outcome::Ok) [[unlikely]]
            retired_unsuccessful.push_back(retired_before);  // in id order: sorted
        engine.edges.release_until(books[slot].edge_end);
        heap.release_until(books[slot].heap_end);
        engine.args.release_until(books[slot].args_end);
        ++retired_before;
    }
    retired_published.store(retired_before, std::memory_order_relaxed);
    return TaskId{retired_before};
}

std::uint64_t Runtime::Impl::knob_value(std::string_view knob) const {
    if (knob == "window_tasks") return config.window_tasks;
    if (knob == "heap_bytes") return config.heap_bytes;
    if (knob == "edge_capacity") return config.edge_capacity;
    if (knob == "tensormap_entries") return config.tensormap_entries;
    if (knob == "argument_bytes") return engine.args.capacity();
    return 0;
}

void Runtime::Impl::throw_deadlock(std::string_view knob) const {
    const std::string knob_text =
        "RuntimeConfig::" + std::string(knob) + " (" + std::to_string(knob_value(knob)) + ")";
    if (config.orchestration == OrchestrationMode::Serial && !orchestration_ended) {
        detail::throw_error(ErrorCode::CapacityDeadlock,
                            knob_text + " is exhausted after " + std::to_string(next_id - run_first_id) +
                                " tasks in serial mode, where no task runs before the orchestration function "
                                "returns: raise it to hold the whole graph, or use concurrent mode");
    }
    std::uint64_t held = 0;
    for (std::uint64_t id = retired_before; id < next_id; ++id)
        held += books[id & engine.window_mask].scope_held ? 1 : 0;
    detail::throw_error(ErrorCode::CapacityDeadlock,
                        knob_text + " is exhausted and cannot drain: the oldest unretired task " +
                            std::to_string(retired_before) +
                            " is held by a scope that is still open (open scopes hold " +
                            std::to_string(held) + " of the " + std::to_string(next_id - retired_before) +
                            " unretired tasks, and a scope releases its tasks only when it ends). Raise " +
                            knob_text + " or end the scope sooner (e.g. one scope per loop iteration)");
}

void Runtime::Impl::wait_for_retirement(std::string_view knob) {
    const std::uint64_t before = retired_before;
    for (;;) {
        if (try_retire().value > before) return;
        const std::uint32_t oldest = static_cast<std::uint32_t>(retired_before) & engine.window_mask;
        const bool serial_blocked = config.orchestration == OrchestrationMode::Serial && !orchestration_ended;
        if (retired_before == next_id || books[oldest].scope_held || serial_blocked) throw_deadlock(knob);
        if (watchdog->stalled()) [[unlikely]]
            throw_stall_while_waiting(knob);  // aborts the run
        orchestrator_waiting.store(true, std::memory_order_relaxed);
        engine.orchestrator_parker.park_until(
            [&] {
                return detail::link_refs(engine.slots[oldest].link.load(std::memory_order_seq_cst)) == 0 ||
                       watchdog->stalled();
            },
            detail::Parker::Clock::now() + std::chrono::milliseconds(50));
        orchestrator_waiting.store(false, std::memory_order_relaxed);
    }
}

void Runtime::Impl::reserve(std::uint64_t slots, std::uint64_t edge_nodes, std::uint64_t heap_bytes,
                            std::uint64_t arg_bytes) {
    // Only this thread consumes these pools, so once each is satisfied it stays satisfied.
    if (next_id + slots - retired_before > config.window_tasks) [[unlikely]] {
        ++stats.window_waits;
        while (next_id + slots - retired_before > config.window_tasks)
            wait_for_retirement("window_tasks");
    }
    if (engine.edges.free_nodes() < edge_nodes) [[unlikely]] {
        ++stats.edge_waits;
        while (engine.edges.free_nodes() < edge_nodes)
            wait_for_retirement("edge_capacity");
    }
    if (engine.args.free_bytes() < arg_bytes) [[unlikely]] {
        ++stats.argument_waits;
        while (engine.args.free_bytes() < arg_bytes)
            wait_for_retirement("argument_bytes");
    }
    if (heap.capacity() - heap.used_bytes() < heap_bytes) [[unlikely]] {
        ++stats.heap_waits;
        while (heap.capacity() - heap.used_bytes() < heap_bytes)
            wait_for_retirement("heap_bytes");
    }
}

// ---- Submission
// --------------------------------------------------------------------------------------------

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
    for (TensorArg& a : spec.tensors) {
        if (a.view.base != nullptr) continue;
        stats.heap_bytes_allocated += create_info_bytes(a.view);
        a.view.base = heap.try_allocate(create_info_bytes(a.view));
        PTO_ASSERT(a.view.base != nullptr, "reserve() guaranteed heap room");
        a.view.creator = id;
    }
    // Only kernels read their arguments back (the compute executor); framework tasks keep none.
    const std::uint64_t args_offset =
        spec.kind == TaskKind::Kernel ? engine.args.write(spec.tensors, spec.scalars) : 0;
    engine.slot_info[slot] = detail::SlotInfo{id.value, args_offset};
    books[slot].args_end = engine.args.head();
    return slot;
}

std::uint32_t Runtime::Impl::select_producers(TaskId id, std::span<const TaskId> producers) {
    const std::uint32_t mask = engine.window_mask;
    std::uint32_t selected = 0;
    for (TaskId p : producers) {
        if (p.value < retired_before) {
            ++stats.edges_to_retired;
            // A producer that failed or was cancelled cancels its consumers even after it retired (SPEC §10).
            if (!retired_unsuccessful.empty() &&
                std::binary_search(retired_unsuccessful.begin(), retired_unsuccessful.end(), p.value))
                [[unlikely]]
                engine.slots[static_cast<std::uint32_t>(id.value) & mask].outcome.store(
                    Outcome::Cancelled, std::memory_order_relaxed);
            continue;
        }
        const std::uint32_t ps = static_cast<std::uint32_t>(p.value) & mask;
        detail::SlotBook& pbook = books[ps];
        if (pbook.last_consumer == id.value) {
            ++stats.edges_duplicate;
            continue;
        }
        pbook.last_consumer = id.value;
        candidates.push_back(ps);
        ++selected;
    }
    return selected;
}

void Runtime::Impl::stage_links(std::uint32_t slot, const std::uint32_t* producers, std::uint32_t count) {
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t ps = producers[i];
        const std::uint64_t counter = engine.edges.allocate();
        detail::EdgeNode& node = engine.edges.at(counter);
        node.producer_slot = ps;
        node.consumer_slot = slot;
        const std::uint32_t tag = engine.edges.index_of(counter) + 1;
        detail::SlotBook& pbook = books[ps];
        if (pbook.staged_count == 0) {
            staged_producers.push_back(ps);
            pbook.staged_tail = tag;
            node.next = 0;
        } else {
            node.next = pbook.staged_head;
        }
        pbook.staged_head = tag;
        ++pbook.staged_count;
    }
    staged_edges += count;
}

void Runtime::Impl::flush_links() {
    if (staged_producers.empty()) return;
    PhaseTimer timer(config.profile_orchestrator, stats.fanin_ns);
    for (const std::uint32_t ps : staged_producers) {
        detail::SlotBook& pbook = books[ps];
        const std::uint64_t refs = pbook.staged_count * kLinkRefUnit;
        detail::EdgeNode& tail = engine.edges.node(pbook.staged_tail - 1);
        std::atomic<std::uint64_t>& link = engine.slots[ps].link;
        std::uint64_t word = link.load(std::memory_order_relaxed);
        for (;;) {
            if (detail::link_is_closed(word)) {
                // Completed already: every staged consumer holds a reference for its outputs but waits for
                // nothing from it. acq_rel: the acquire side sees the completer's outcome (stored before its
                // close CAS).
                if (!link.compare_exchange_weak(word, word + refs, std::memory_order_acq_rel,
                                                std::memory_order_relaxed))
                    continue;
                const bool failed = engine.slots[ps].outcome.load(std::memory_order_relaxed) != Outcome::Ok;
                // The staged list was never published, so no other thread reads it while we walk it. Walk
                // exactly staged_count nodes: a failed splice attempt above may have pointed the tail's next
                // into the producer's published list, which its completer walks.
                std::uint32_t e = pbook.staged_head;
                for (std::uint32_t k = 0; k < pbook.staged_count; ++k) {
                    const detail::EdgeNode& node = engine.edges.node(e - 1);
                    e = node.next;
                    TaskSlot& consumer = engine.slots[node.consumer_slot];
                    // Ordered before the fanin subtraction (release), like a completer's cancellation.
                    if (failed) consumer.outcome.store(Outcome::Cancelled, std::memory_order_relaxed);
                    if (consumer.fanin_pending.fetch_sub(1, std::memory_order_acq_rel) == 1)
                        engine.make_ready(node.consumer_slot, orchestrator_ctx);
                }
                stats.edges_to_completed += pbook.staged_count;
                break;
            }
            tail.next = detail::link_head(word);
            const std::uint64_t pushed = ((word + refs) & ~kLinkHeadMask) | pbook.staged_head;
            // Release: the nodes and the consumers' slots are visible to the completer that takes the list
            // with its acquire close.
            if (link.compare_exchange_weak(word, pushed, std::memory_order_acq_rel,
                                           std::memory_order_relaxed)) {
                stats.edges_linked += pbook.staged_count;
                break;
            }
        }
        pbook.staged_head = pbook.staged_tail = pbook.staged_count = 0;
        ++stats.link_flushes;
    }
    staged_producers.clear();
    staged_edges = 0;
    finish_orchestrator_completions();
}

void Runtime::Impl::finish_orchestrator_completions() {
    while (!orchestrator_ctx.cancelled_ready.empty()) {
        const std::uint32_t slot = orchestrator_ctx.cancelled_ready.back();
        orchestrator_ctx.cancelled_ready.pop_back();
        engine.complete_task(slot, Outcome::Cancelled, orchestrator_ctx);
    }
    // Alloc tasks and tasks cancelled at submission end on this thread; publish them like a scheduler pass.
    const std::uint64_t ended = orchestrator_ctx.counters.total();
    engine.add_finished(ended - orchestrator_finished_published);
    orchestrator_finished_published = ended;
    if (orchestrator_ctx.pushed_ready) {
        orchestrator_ctx.pushed_ready = false;
        if (config.orchestration == OrchestrationMode::Concurrent) engine.wake_schedulers();
    }
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
    // Inside a scope, edges are spliced per producer when the scope ends (or the staging fills), one CAS
    // per producer instead of one per edge; outside any scope, at once.
    if (!scoped || staged_edges >= kMaxStagedEdges) flush_links();
    finish_orchestrator_completions();
    submits_published.store(next_id - run_first_id, std::memory_order_relaxed);
    return id;
}

TaskId Runtime::Impl::submit_instance(std::span<InstanceNode> nodes, bool scoped) {
    check_run_open("submit_instance");
    const TaskId first{next_id};
    if (nodes.empty()) return first;
    if (nodes.size() > config.window_tasks) [[unlikely]]
        detail::throw_error(
            ErrorCode::CapacityExhausted,
            "a static template instance of " + std::to_string(nodes.size()) + " tasks (starting at task " +
                std::to_string(first.value) +
                ") is larger than the whole task window: raise RuntimeConfig::window_tasks (" +
                std::to_string(config.window_tasks) + ") or split the template");
    HeapNeed heap_need;
    std::uint64_t edge_nodes = 0;
    std::uint64_t arg_bytes = 0;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const InstanceNode& n = nodes[i];
        const TaskId id = first.plus(i);
        validate_spec(n.spec, id);
        for (std::uint32_t d : n.consumer_offsets)
            if (d == 0 || i + d >= nodes.size()) [[unlikely]]
                detail::throw_error(ErrorCode::InvalidTemplate,
                                    describe_task(id, &n.spec) + " of an instance of " +
                                        std::to_string(nodes.size()) + " nodes feeds node offset +" +
                                        std::to_string(d) + ", outside the instance");
        for (std::uint32_t d : n.producer_offsets)
            if (d == 0 || d > i) [[unlikely]]
                detail::throw_error(ErrorCode::InvalidTemplate,
                                    describe_task(id, &n.spec) + " waits for node offset -" +
                                        std::to_string(d) + ", outside the instance (edges point backwards)");
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

    // Phase 1: initialise every slot, fanin counts included, before any node is published, so a node that
    // completes at once finds its internal consumers ready to be released.
    candidates.clear();
    instance_marks.clear();
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
        instance_marks.push_back(external);
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

    // Phase 2: boundary edges, then each node settles its fanin, in node order.
    PhaseTimer timer(config.profile_orchestrator, stats.fanin_ns);
    std::size_t offset = 0;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const InstanceNode& n = nodes[i];
        const std::uint32_t slot = static_cast<std::uint32_t>(first.value + i) & engine.window_mask;
        const std::uint32_t external = instance_marks[i];
        stage_links(slot, candidates.data() + offset, external);
        offset += external;
        if (n.spec.kind == TaskKind::Alloc) {
            engine.complete_task(slot, Outcome::Ok, orchestrator_ctx);
        } else if (external + n.producer_offsets.size() == 0) {
            engine.make_ready(slot, orchestrator_ctx);
        }
    }
    if (!scoped || staged_edges >= kMaxStagedEdges) flush_links();
    finish_orchestrator_completions();
    submits_published.store(next_id - run_first_id, std::memory_order_relaxed);
    return first;
}

void Runtime::Impl::release_scope(TaskId begin, TaskId end) {
    flush_links();
    PhaseTimer timer(config.profile_orchestrator, stats.scope_end_ns);
    ++stats.scopes_closed;
    // The scope's hold is orchestrator-private (see "The link word"): releasing it is a plain store, and
    // try_retire retires what it unblocked the next time it runs.
    const std::uint64_t from = std::max(begin.value, retired_before);
    const std::uint64_t to = std::min(end.value, next_id);
    for (std::uint64_t id = from; id < to; ++id)
        books[static_cast<std::uint32_t>(id) & engine.window_mask].scope_held = false;
}

}  // namespace pto
