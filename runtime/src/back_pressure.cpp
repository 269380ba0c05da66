// Back-pressure: room for a submit in the task window, the edge pool, the argument ring and the heap ring,
// waiting for in-order retirement (TaskWindow::retire) while waiting can help, and a CapacityDeadlock
// naming the knob when it provably cannot.
#include <string>

#include "aicpu_slice.h"
#include "pto/runtime/detail/throw.h"
#include "runtime_impl.h"

namespace pto {

TaskId Runtime::Impl::try_retire() {
    // A producer with staged consumers must not retire before they are spliced: they hold references.
    flush_links();
    const std::uint64_t retired = window.retire(engine.tasks, [&](const detail::RingMarks& marks) {
        engine.edges.release_until(marks.edge_end);
        heap.release_until(marks.heap_end);
        engine.args.release_until(marks.args_end);
    });
    edge_table_holds.release_retired(retired);
    return TaskId{retired};
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
    if (window.all_retired()) [[unlikely]] {
        // Nothing is unretired, so waiting can free nothing: the room is held by something other than tasks.
        if (knob == "tensormap_entries")
            detail::throw_error(
                ErrorCode::CapacityDeadlock,
                knob_text +
                    " is full although every submitted task retired: its entries are "
                    "accesses of failed or cancelled tasks, which the tensormap keeps so their "
                    "data stays poisoned for later readers and writers. Raise " +
                    knob_text + " or fix the failing kernels");
        detail::throw_error(ErrorCode::InvalidArgument,
                            "wait_for_retirement(" + std::string(knob) +
                                ") with no unretired task: every task of the run retired already, so waiting "
                                "cannot free any " +
                                knob_text);
    }
    if (config.orchestration == OrchestrationMode::Serial && run.orchestrating_relaxed()) {
        detail::throw_error(ErrorCode::CapacityDeadlock,
                            knob_text + " is exhausted after " + std::to_string(window.submitted()) +
                                " tasks in serial mode, where no task runs before the orchestration function "
                                "returns: raise it to hold the whole graph, or use concurrent mode");
    }
    const std::uint64_t held = window.scope_held_count();
    detail::throw_error(ErrorCode::CapacityDeadlock,
                        knob_text + " is exhausted and cannot drain: the oldest unretired task " +
                            std::to_string(window.retired_before()) +
                            " is held by a scope that is still open (open scopes hold " +
                            std::to_string(held) + " of the " +
                            std::to_string(window.next_id() - window.retired_before()) +
                            " unretired tasks, and a scope releases its tasks only when it ends). Raise " +
                            knob_text + " or end the scope sooner (e.g. one scope per loop iteration)");
}

void Runtime::Impl::wait_for_retirement(std::string_view knob) {
    check_run_open("wait_for_retirement");
    const std::uint64_t before = window.retired_before();
    for (;;) {
        if (try_retire().value > before) return;
        const std::uint64_t oldest_id = window.retired_before();
        const std::uint32_t oldest = window.slot_of(oldest_id);
        const bool serial_blocked =
            config.orchestration == OrchestrationMode::Serial && run.orchestrating_relaxed();
        if (window.all_retired() || window.is_scope_held(oldest_id) || serial_blocked) throw_deadlock(knob);
        if (watchdog->stalled() ||
            prove_deadlock("wait_for_retirement (RuntimeConfig::" + std::string(knob) + ")")) [[unlikely]]
            throw_stall_while_waiting(knob);  // aborts the run
        orchestrator_waiting.store(true, std::memory_order_relaxed);
        // seq_cst store, then the seq_cst re-check in the park: the waiter's half of the handshake with the
        // thread that drops the slot's last reference (Engine::drop_reference).
        engine.progress.await_slot(oldest);
        engine.wake.orchestrator().park_until(
            [&] {
                return detail::link_refs(engine.tasks[oldest].link.load(std::memory_order_seq_cst)) == 0 ||
                       watchdog->stalled();
            },
            detail::Parker::Clock::now() + std::chrono::milliseconds(10));
        engine.progress.stop_awaiting();
        orchestrator_waiting.store(false, std::memory_order_relaxed);
    }
}

void Runtime::Impl::wait_for_room(std::uint64_t slots, std::uint64_t edge_nodes, std::uint64_t heap_bytes,
                                  std::uint64_t arg_bytes) {
    // Only this thread consumes these pools, so once each is satisfied it stays satisfied.
    if (!window.has_room(slots)) [[unlikely]] {
        ++stats.window_waits;
        const detail::AicpuSlice traced(recorder.aicpu_sink(), AicpuActivity::WindowWait, run_start_ns,
                                        TaskId{window.next_id()});
        while (!window.has_room(slots))
            wait_for_retirement("window_tasks");
    }
    if (engine.edges.free_nodes() < edge_nodes) [[unlikely]] {
        ++stats.edge_waits;
        const detail::AicpuSlice traced(recorder.aicpu_sink(), AicpuActivity::EdgeWait, run_start_ns,
                                        TaskId{window.next_id()});
        while (engine.edges.free_nodes() < edge_nodes)
            wait_for_retirement("edge_capacity");
    }
    if (engine.args.free_bytes() < arg_bytes) [[unlikely]] {
        ++stats.argument_waits;
        const detail::AicpuSlice traced(recorder.aicpu_sink(), AicpuActivity::ArgumentWait, run_start_ns,
                                        TaskId{window.next_id()});
        while (engine.args.free_bytes() < arg_bytes)
            wait_for_retirement("argument_bytes");
    }
    if (heap.capacity() - heap.used_bytes() < heap_bytes) [[unlikely]] {
        ++stats.heap_waits;
        const detail::AicpuSlice traced(recorder.aicpu_sink(), AicpuActivity::HeapWait, run_start_ns,
                                        TaskId{window.next_id()});
        while (heap.capacity() - heap.used_bytes() < heap_bytes)
            wait_for_retirement("heap_bytes");
    }
}

}  // namespace pto
