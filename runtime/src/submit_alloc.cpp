// alloc_tensors as one runtime call. The buffers are carved from the heap ring and their views written
// straight into the argument ring, where the task's handle reads them: no Args to build, no generic
// tensor-argument checks, no second copy. Built the generic way, an alloc of eight buffers cost about as
// much as four kernel launches. A request equal to the previous one reuses its sizes and views
// (alloc_layout.h), so only the buffers' addresses are new.
#include <cstring>

#include "aicpu_slice.h"
#include "phase_timer.h"
#include "pto/runtime/detail/throw.h"
#include "runtime_impl.h"
#include "submit_sizes.h"

namespace pto {

TaskId Runtime::Impl::submit_alloc(std::span<const TensorCreateInfo> infos, bool scoped) {
    check_run_open("alloc_tensors");
    const TaskId id{window.next_id()};
    const detail::AicpuSlice traced(recorder.aicpu_sink(), AicpuActivity::Submit, run_start_ns, id);
    TaskSpec spec;
    spec.kind = TaskKind::Alloc;
    PTO_ASSERT(infos.size() <= kMaxTensorArgs, "longer lists are refused before they reach the runtime");

    if (!alloc_layout.matches(infos)) [[unlikely]]
        lay_out_alloc(infos, id, spec);
    const detail::AllocLayout& layout = alloc_layout;
    const std::uint64_t reserve_bytes = layout.heap_need().reserve_bytes();
    check_heap_need(reserve_bytes, id, &spec);
    {
        detail::PhaseTimer timer(config.profile_orchestrator, stats.ring_alloc_ns);
        reserve(1, 0, reserve_bytes,
                detail::ArgRing::reserve_bytes(detail::ArgRecord::bytes_for(infos.size(), 0)));
    }

    const std::uint32_t slot = init_slot_state(spec, id, scoped);
    linker.set_keeps_outputs(slot, true);  // its buffers live while a consumer holds it
    {
        detail::PhaseTimer timer(config.profile_orchestrator, stats.arg_copy_ns);
        const std::uint64_t offset = engine.args.append(infos.size(), 0);
        TensorArg* views = engine.args.mutable_record(offset).mutable_tensors();
        if (!infos.empty()) std::memcpy(views, layout.views(), infos.size() * sizeof(TensorArg));
        // All buffers in one run of the heap ring, unless that run would reach the ring's end.
        std::byte* const carved = heap.try_allocate_run(layout.heap_need().total);
        for (std::size_t i = 0; i < infos.size(); ++i) {
            void* base = carved != nullptr ? carved + layout.offset(i) : heap.try_allocate(layout.bytes(i));
            PTO_ASSERT(base != nullptr, "reserve() guaranteed heap room");
            views[i].view.base = base;
            views[i].view.creator = id;
        }
        stats.heap_bytes_allocated += layout.total_bytes();
        engine.tasks.info(slot) = detail::SlotInfo{id.value, offset};
        spec.tensors = {views, infos.size()};
    }

    detail::TaskSlot& t = engine.tasks[slot];
    const std::uint64_t edge_head = engine.edges.head();
    t.fanin_pending.store(0, std::memory_order_relaxed);
    t.fanin_edge_begin = static_cast<std::uint32_t>(edge_head);
    t.fanin_edge_count = 0;
    window.set_marks(slot, detail::RingMarks{edge_head, heap.head(), engine.args.head()});
    window.commit(1);
    count_submit(spec);
    recorder.task(spec, id, {});
    complete_at_birth(t);
    if (linker.should_flush(scoped)) flush_links(FinishedCount::Batched);
    finish_orchestrator_completions(FinishedCount::Batched);
    window.publish_submitted();
    return id;
}

void Runtime::Impl::lay_out_alloc(std::span<const TensorCreateInfo> infos, TaskId id, const TaskSpec& spec) {
    for (std::size_t i = 0; i < infos.size(); ++i) {
        if (infos[i].ndim < 1 || infos[i].ndim > kMaxTensorDims) [[unlikely]]
            throw_bad_rank(id, spec, i, infos[i].ndim);
    }
    alloc_layout.build(infos);
}

}  // namespace pto
