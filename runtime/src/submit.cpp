// The orchestrator's submission path: slot initialisation and argument copy, submit, and the end of a
// scope (a template instance: submit_instance.cpp). Each step names the component it drives: validation
// (submit_validation.cpp), room (back_pressure.cpp), ids and retirement marks (TaskWindow), producer
// selection and staged edges (EdgeLinker), readiness and completion (Engine).
#include <algorithm>
#include <string>

#include "aicpu_slice.h"
#include "phase_timer.h"
#include "pto/runtime/detail/throw.h"
#include "runtime_impl.h"
#include "submit_sizes.h"

namespace pto {

using detail::argument_bytes;
using detail::create_info_bytes;
using detail::HeapNeed;
using detail::keeps_arguments;
using detail::kLinkRefUnit;
using detail::Outcome;
using detail::PhaseTimer;
using detail::PhaseTimerIf;
using detail::TaskSlot;

std::uint32_t Runtime::Impl::init_slot_state(const TaskSpec& spec, TaskId id, bool scoped) {
    const std::uint32_t slot = window.slot_of(id.value);
    TaskSlot& t = engine.tasks[slot];
    claim_ahead(id.value);
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
    t.static_consumers = nullptr;
    t.holds_references = false;  // until the linker stages an edge from a producer with outputs
    window.open_slot(slot, scoped);
    linker.set_keeps_outputs(slot, false);  // until it allocates (allocate_created, submit_alloc)
    return slot;
}

void Runtime::Impl::allocate_created(TensorView& view, TaskId id) {
    const std::uint64_t bytes = create_info_bytes(view);
    stats.heap_bytes_allocated += bytes;
    view.base = heap.try_allocate(bytes);
    PTO_ASSERT(view.base != nullptr, "reserve() guaranteed heap room");
    view.creator = id;
    linker.set_keeps_outputs(window.slot_of(id.value), true);
}

template <bool kObserved>
std::uint32_t Runtime::Impl::init_slot_as(const TaskSpec& spec, TaskId id, bool scoped, bool allocates) {
    const std::uint32_t slot = init_slot_state(spec, id, scoped);
    // Arguments: allocate create-info outputs (written back so the caller sees them), then copy.
    PhaseTimerIf<kObserved> timer(config.profile_orchestrator, stats.arg_copy_ns);
    const bool keep = keeps_arguments(spec);  // before the allocation below gives every output a buffer
    for (TensorArg& a : allocates ? spec.tensors : std::span<TensorArg>{}) {
        if (a.view.base == nullptr) allocate_created(a.view, id);
    }
    const std::uint64_t args_offset =
        keep ? engine.args.write(spec.tensors, spec.scalars) : detail::SlotInfo::kNoArguments;
    engine.tasks.info(slot) = detail::SlotInfo{id.value, args_offset};
    return slot;
}

// init_slot (runtime_impl.h) picks one of these for callers outside this file.
template std::uint32_t Runtime::Impl::init_slot_as<true>(const TaskSpec&, TaskId, bool, bool);
template std::uint32_t Runtime::Impl::init_slot_as<false>(const TaskSpec&, TaskId, bool, bool);

void Runtime::Impl::complete_at_birth(TaskSlot& t) {
    // An alloc task owns buffers and runs no kernel: it completes at submission, and lives on while its
    // scope or consumers reference it. Nothing can be linked to it or wait for it yet (its slot is not
    // published), so plain stores do what complete_task's closing exchange and reference drop would.
    t.link.store(detail::kLinkClosed, std::memory_order_relaxed);
    ++orchestrator_ctx.counters.completed;
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
    if (config.profile_orchestrator || recorder.aicpu_sink() != nullptr) [[unlikely]]
        return submit_as<true>(spec, producers, scoped);
    return submit_as<false>(spec, producers, scoped);
}

template <bool kObserved>
TaskId Runtime::Impl::submit_as(const TaskSpec& spec, std::span<const TaskId> producers, bool scoped) {
    check_run_open("submit");
    const TaskId id{window.next_id()};
    const detail::AicpuSliceIf<kObserved> traced(recorder.aicpu_sink(), AicpuActivity::Submit, run_start_ns,
                                                 id);
    HeapNeed heap_need;
    validate_spec(spec, id, heap_need);
    // A list equal to the linker's remembered one passed this check for an earlier task of the run.
    const bool remembered = linker.may_remember(producers) &&
                            linker.remembers(producers, window.run_first_id()) &&
                            spec.kind != TaskKind::Alloc;
    if (!remembered) validate_producers(producers, id, spec);

    check_heap_need(heap_need.reserve_bytes(), id, &spec);
    // In a scope, whose links are flushed at its end, a long list may put the task in a bundle (EdgeLinker,
    // "Bundles"), whose first member takes a node more than its edges. Outside one, every submit flushes,
    // and a bundle would close with its first member.
    const bool may_bundle = scoped && detail::EdgeLinker::may_bundle(producers, engine.edges);
    {
        PhaseTimerIf<kObserved> timer(config.profile_orchestrator, stats.ring_alloc_ns);
        reserve(1, producers.size() + (may_bundle ? 1 : 0), heap_need.reserve_bytes(), argument_bytes(spec));
    }

    const std::uint32_t slot = init_slot_as<kObserved>(spec, id, scoped, heap_need.total != 0);
    TaskSlot& t = engine.tasks[slot];
    {
        // Ends before flush_links, which times itself into the same counter.
        PhaseTimerIf<kObserved> timer(config.profile_orchestrator, stats.fanin_ns);
        const std::uint64_t edge_begin = engine.edges.head();
        const std::uint32_t expected = linker.select_and_stage(id, slot, producers, window, t, engine.edges,
                                                               stats, remembered, may_bundle);
        const std::uint64_t edge_end = engine.edges.head();
        // Every field is written before the first link publishes the slot (see "The fanin counter").
        t.fanin_pending.store(static_cast<std::int32_t>(expected), std::memory_order_relaxed);
        t.fanin_edge_begin = static_cast<std::uint32_t>(edge_begin);
        t.fanin_edge_count = expected;
        window.set_marks(slot, detail::RingMarks{edge_end, heap.head(), engine.args.head()});
        window.commit(1);
        count_submit(spec);
        recorder.task(spec, id, producers);

        if (spec.kind == TaskKind::Alloc) {
            PTO_ASSERT(expected == 0, "an alloc task has no producers");
            complete_at_birth(t);
        } else if (expected == 0) {
            engine.make_ready(slot, orchestrator_ctx);
        } else {
            linker.mark_private(slot);  // unreachable by other threads until its edges are spliced
        }
    }
    // Inside a scope, edges are spliced per producer when the scope ends (or the staging fills), one CAS
    // per producer instead of one per edge; outside any scope, at once.
    if (linker.should_flush(scoped)) flush_links(FinishedCount::Batched);
    finish_orchestrator_completions(FinishedCount::Batched);
    window.publish_submitted();
    return id;
}

std::span<const TensorArg> Runtime::Impl::task_tensors(TaskId id) const {
    if (id.value < window.retired_before() || id.value >= window.next_id()) return {};
    const std::uint32_t slot = window.slot_of(id.value);
    if (engine.tasks.info(slot).args_offset == detail::SlotInfo::kNoArguments) return {};
    const detail::ArgRecord& record = engine.args_of(slot);
    if (record.by_reference != 0) return {};  // a planned instance's node: no TensorArgs to point at
    return {record.tensors(), record.tensor_count};
}

void Runtime::Impl::publish_orchestrator_completions() {
    engine.end_cancelled(orchestrator_ctx);
    if (orchestrator_ctx.pushed_ready) {
        orchestrator_ctx.pushed_ready = false;
        engine.ready.publish();
        if (config.orchestration == OrchestrationMode::Concurrent) engine.wake.wake_sleeping_schedulers();
    }
}

void Runtime::Impl::count_orchestrator_completions() {
    // Alloc tasks and tasks cancelled at submission end on this thread; count them like a scheduler pass.
    const std::uint64_t ended = orchestrator_ctx.counters.total();
    engine.progress.set_uncounted_on_orchestrator(0);
    engine.add_finished(ended - orchestrator_finished_published);
    orchestrator_finished_published = ended;
}

void Runtime::Impl::release_scope(TaskId begin, TaskId end) {
    flush_links(FinishedCount::Batched);
    PhaseTimer timer(config.profile_orchestrator, stats.scope_end_ns);
    ++stats.scopes_closed;
    recorder.scope(begin, end);
    window.release_scope(begin.value, end.value);
}

}  // namespace pto
