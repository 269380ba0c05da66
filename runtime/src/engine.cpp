// The completion protocol (see "The link word" and "The fanin counter" in task_slot.h) and the wake-ups
// around it.
#include "engine.h"

#include <utility>

#include "host_cpus.h"

namespace pto::detail {

Engine::Engine(const RuntimeConfig& cfg)
    : config(cfg),
      slot_map(cfg.window_tasks),
      tasks(cfg.window_tasks),
      args(cfg.argument_ring_bytes()),
      edges(cfg.edge_capacity),
      ready(cfg.window_tasks),
      wake(cfg.scheduler_threads, awake_scheduler_limit(cfg.executor, cfg.scheduler_threads, usable_cpus()),
           cfg.executor == Executor::Instant) {}

std::string Engine::kernel_name(FuncId f) const {
    if (const KernelInfo* k = kernel(f)) return k->name;
    if (f.is_none()) return "none";
    return "func " + std::to_string(f.value);
}

void Engine::complete_task(std::uint32_t slot, Outcome outcome, CompletionContext& ctx) {
    end_task(slot, outcome, ctx);
    end_cancelled(ctx);
}

void Engine::end_cancelled(CompletionContext& ctx) {
    // Cancellation spreads through whole subgraphs; a worklist keeps the stack flat.
    while (!ctx.cancelled_ready.empty()) {
        const std::uint32_t next = ctx.cancelled_ready.back();
        ctx.cancelled_ready.pop_back();
        end_task(next, Outcome::Cancelled, ctx);
    }
}

void Engine::end_task(std::uint32_t slot, Outcome outcome, CompletionContext& ctx) {
    TaskSlot& task = tasks[slot];
    const bool cancel_consumers = outcome != Outcome::Ok;
    // The outcome must be visible to consumers linked after the close (they read it when they see the
    // closed bit); the close CAS below is the release that publishes it.
    if (cancel_consumers) task.outcome.store(outcome, std::memory_order_relaxed);

    // This task no longer needs its producers' outputs: it drops the references it holds (only producers
    // that allocated outputs take one, and template-internal producers none). A task holding none does not
    // read its edge nodes at all.
    if (task.holds_references) {
        for (std::uint32_t i = 0; i < task.fanin_edge_count; ++i) {
            const std::uint32_t producer =
                edges.at(static_cast<std::uint32_t>(task.fanin_edge_begin + i)).producer_slot;
            if ((producer & kUnreferenced) == 0) drop_reference(producer);
        }
    }
    // The rest of what this task needs of its own slot: the close below also drops its completion
    // reference, after which the orchestrator may retire the slot and reuse it.
    const std::uint16_t static_consumer_count = task.static_consumer_count;
    const std::uint32_t* const static_consumers = task.static_consumers;

    // One CAS closes the list, takes it and drops the completion reference. acquire pairs with the
    // orchestrator's push CAS (release) so every pushed node is visible; release publishes the outcome to
    // later linkers; seq_cst orders it before the awaited-slot load below (see "The awaited slot" in
    // run_progress.h).
    std::uint64_t word = task.link.load(std::memory_order_relaxed);
    while (!task.link.compare_exchange_weak(word, ((word & ~kLinkHeadMask) | kLinkClosed) - kLinkRefUnit,
                                            std::memory_order_seq_cst, std::memory_order_relaxed)) {
    }
    // From here on the slot may belong to another task: only the consumers' slots and edge nodes are read.
    // A consumer cannot retire before it is released (it waits for this task), and retirement frees edge
    // nodes in id order, so each node is read before its consumer is released and stays valid until then;
    // the same holds for the template tables (held until the instance's last task retires, or the run).

    for (std::uint16_t i = 0; i < static_consumer_count; ++i)
        release_consumer(slot_map.after(slot, static_consumers[i]), cancel_consumers, ctx);

    for (std::uint32_t e = link_head(word); e != 0;) {
        const EdgeNode& node = edges.node(e - 1);
        const std::uint32_t next = node.next;
        release_fanout(node, cancel_consumers, ctx);
        e = next;
    }

    switch (outcome) {
        case Outcome::Ok:
            ++ctx.counters.completed;
            break;
        case Outcome::Failed:
            ++ctx.counters.failed;
            break;
        case Outcome::Cancelled:
            ++ctx.counters.cancelled;
            break;
    }
    // Wake an orchestrator waiting for this task (TaskPort::wait_for) or for its slot to retire: the
    // seq_cst close above precedes this seq_cst load (see "The awaited slot" in run_progress.h).
    if (progress.is_awaited(slot)) [[unlikely]]
        wake.wake_orchestrator();
}

void Engine::release_bundle(std::uint32_t first, bool cancel, CompletionContext& ctx) {
    // A member waits for every producer of its bundle, this one included, so it cannot retire (freeing its
    // node) before this walk released it: each node is read, its successor included, before that.
    for (std::uint32_t e = first; e != 0;) {
        const EdgeNode& member = edges.node(e - 1);
        const std::uint32_t next = member.next;
        release_consumer(member.consumer_slot, cancel, ctx);
        e = next;
    }
}

void Engine::release_consumer(std::uint32_t consumer, bool cancel, CompletionContext& ctx) {
    if (ctx.releases != nullptr && !cancel) {
        if (ctx.releases->add(consumer)) return;
        apply_releases(ctx);  // full: apply what it holds, then start it again
        ctx.releases->add(consumer);
        return;
    }
    TaskSlot& task = tasks[consumer];
    // Ordered before the fanin decrement (release), so whoever takes fanin to zero sees it.
    if (cancel) task.outcome.store(Outcome::Cancelled, std::memory_order_relaxed);
    // acq_rel: the thread reaching zero owns the transition to ready (see "The fanin counter").
    if (task.fanin_pending.fetch_sub(1, std::memory_order_acq_rel) == 1) make_ready(consumer, ctx);
}

void Engine::apply_releases(CompletionContext& ctx) {
    ctx.releases->drain([&](std::uint32_t consumer, std::uint32_t count) {
        const auto n = static_cast<std::int32_t>(count);
        // acq_rel as in release_consumer: the thread reaching zero owns the transition to ready.
        if (tasks[consumer].fanin_pending.fetch_sub(n, std::memory_order_acq_rel) == n)
            make_ready(consumer, ctx);
    });
    end_cancelled(ctx);
}

void Engine::make_ready(std::uint32_t slot, CompletionContext& ctx) {
    TaskSlot& task = tasks[slot];
    // Relaxed: the caller just performed the acquire RMW that made the task ready.
    if (task.outcome.load(std::memory_order_relaxed) == Outcome::Cancelled || control.abort_requested())
        [[unlikely]] {
        task.outcome.store(Outcome::Cancelled, std::memory_order_relaxed);
        ctx.cancelled_ready.push_back(slot);
        return;
    }
    if (ctx.local_ready == nullptr) {
        ready.stage(task.shape, slot);  // the orchestrator
    } else {
        if (ctx.local_ready->try_push(task.shape, slot)) return;
        ready.push(task.shape, slot);
    }
    ctx.pushed_ready = true;
}

void Engine::drop_reference(std::uint32_t slot) {
    // seq_cst, then the seq_cst load of the awaited slot: the completer's half of the handshake with an
    // orchestrator waiting for this slot to retire (see "The awaited slot" in run_progress.h). Only that
    // waiter is woken: waking the orchestrator on every last reference would cost a futex wake per task
    // whenever it is parked for another reason (the end of the run), each one a context switch on a
    // host with fewer cores than threads.
    const std::uint64_t before = tasks[slot].link.fetch_sub(kLinkRefUnit, std::memory_order_seq_cst);
    if (link_refs(before) == 1 && progress.is_awaited(slot)) [[unlikely]]
        wake.wake_orchestrator();
}

bool Engine::cancel_queued(CompletionContext& ctx) {
    bool any = false;
    std::uint32_t slot = 0;
    for (Shape shape : {Shape::MIX, Shape::AIC, Shape::AIV, Shape::DependencyOnly}) {
        while (ready.try_pop(shape, slot)) {
            // Popping takes the task's queue token: only this thread claims its blocks now.
            TaskSlot& task = tasks[slot];
            const std::uint32_t block_num = task.block_num;
            const std::uint32_t claimed = task.blocks_claimed.load(std::memory_order_relaxed);
            const std::uint32_t unclaimed = block_num - claimed;
            task.blocks_claimed.store(block_num, std::memory_order_relaxed);
            // A task none of whose blocks ran is cancelled; one partly run ends when its running blocks do.
            if (claimed == 0) {
                task.outcome.store(Outcome::Cancelled, std::memory_order_relaxed);
            } else {
                task.outcome.store(Outcome::Failed, std::memory_order_relaxed);
                record_failure(slot, "aborted after a stall: " + std::to_string(unclaimed) + " of " +
                                         std::to_string(block_num) + " blocks never started");
            }
            if (task.blocks_finished.fetch_add(unclaimed, std::memory_order_acq_rel) + unclaimed == block_num)
                complete_task(slot, task.outcome.load(std::memory_order_relaxed), ctx);
            any = true;
        }
    }
    return any;
}

}  // namespace pto::detail
