// Linking a submitted task into its producers' fanout lists. Edges are staged per producer while a scope
// is open and spliced with one CAS per producer at flush time; a producer that completed meanwhile has a
// closed list, and its staged consumers are released here instead.
#include <algorithm>

#include "phase_timer.h"
#include "runtime_impl.h"

namespace pto {

using detail::kLinkHeadMask;
using detail::kLinkRefUnit;
using detail::Outcome;
using detail::PhaseTimer;

std::uint32_t Runtime::Impl::select_producers(TaskId id, std::span<const TaskId> producers) {
    std::uint32_t selected = 0;
    for (TaskId p : producers) {
        if (p.value < retired_before) {
            ++stats.edges_to_retired;
            // A producer that failed or was cancelled cancels its consumers even after it retired
            // (docs/reliability.md).
            if (RetiredTasks{TaskId{retired_before}, retired_unsuccessful}.is_unsuccessful(p)) [[unlikely]]
                engine.slots[slot_of(id.value)].outcome.store(Outcome::Cancelled, std::memory_order_relaxed);
            continue;
        }
        const std::uint32_t ps = slot_of(p.value);
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
                    // What the producer's completer would have done, had the consumer been linked in time.
                    engine.release_consumer(node.consumer_slot, failed, orchestrator_ctx);
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

}  // namespace pto
