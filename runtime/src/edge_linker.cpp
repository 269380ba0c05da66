// Selecting producers and staging and splicing edges (see edge_linker.h).
#include "edge_linker.h"

#include <cstring>

#include "phase_timer.h"
#include "pto/runtime/detail/throw.h"

namespace pto::detail {

EdgeLinker::EdgeLinker(std::uint32_t window_tasks)
    : staging_(std::make_unique<Staging[]>(window_tasks)),
      staged_producers_(std::make_unique_for_overwrite<std::uint32_t[]>(window_tasks)),
      window_tasks_(window_tasks),
      shared_begin_(window_tasks),
      remembered_ids_(std::make_unique_for_overwrite<TaskId[]>(kMaxRemembered)),
      remembered_slots_(std::make_unique_for_overwrite<std::uint32_t[]>(kMaxRemembered)) {}

bool EdgeLinker::remembers(std::span<const TaskId> producers, std::uint64_t run_first) const {
    return may_remember(producers) && producers.size() == remembered_size_ && remembered_run_ == run_first &&
           std::memcmp(producers.data(), remembered_ids_.get(), producers.size_bytes()) == 0;
}

std::uint32_t EdgeLinker::select_long(TaskId id, std::uint32_t slot, std::span<const TaskId> producers,
                                      const TaskWindow& window, TaskSlot& consumer, EdgePool& edges,
                                      OrchestratorStats& stats, bool known_remembered, bool may_bundle) {
    if (producers.size() > kMaxRemembered)
        return select<false>(id, slot, producers, window, consumer, edges, stats);
    if ((known_remembered || remembers(producers, window.run_first_id())) && remembered_still_holds(window)) {
        // Only consumers that hold no reference share nodes: a reference is dropped through the consumer's
        // own edge nodes.
        if (may_bundle && !remembered_holds_ && remembered_staged_ >= kMinBundled)
            return stage_bundled(slot, consumer, edges, stats);
        return stage_remembered(slot, consumer, edges, stats);
    }
    return select<true>(id, slot, producers, window, consumer, edges, stats);
}

bool EdgeLinker::remembered_still_holds(const TaskWindow& window) {
    // The remembered selection holds while none of the producers it staged has retired since: those that
    // had retired then still have (and cancel consumers alike), the others still hold their slots.
    const std::uint64_t now = window.retired_before();
    if (now == remembered_retired_before_) return true;
    for (std::size_t i = 0; i < remembered_size_; ++i) {
        const std::uint64_t p = remembered_ids_[i].value;
        if (p >= remembered_retired_before_ && p < now) return false;
    }
    // The list splits into retired and live producers at `now` exactly as it did then.
    remembered_retired_before_ = now;
    return true;
}

template <bool kRemember>
std::uint32_t EdgeLinker::select(TaskId id, std::uint32_t slot, std::span<const TaskId> producers,
                                 const TaskWindow& window, TaskSlot& consumer, EdgePool& edges,
                                 OrchestratorStats& stats) {
    // Nothing is published before the flush, so each producer is staged as soon as it is selected. The
    // loop reads the staging array, the slot mask and the edge pool through locals: every node it writes
    // would otherwise make the compiler load them again.
    Staging* const staging = staging_.get();
    std::uint32_t* const remembered = remembered_slots_.get();
    const SlotMap slots = window.map();
    const std::uint64_t retired_before = window.retired_before();
    EdgePool::Appender nodes(edges);
    std::uint32_t staged = 0;
    std::uint32_t to_retired = 0;
    bool cancels = false;
    std::uint32_t all_unreferenced = kUnreferenced;
    // A new list to remember: a bundle of the old one is complete.
    if constexpr (kRemember) close_bundle();
    for (TaskId p : producers) {
        if (p.value < retired_before) {
            ++stats.edges_to_retired;
            if constexpr (kRemember) ++to_retired;
            if (window.retired().is_unsuccessful(p)) [[unlikely]] {
                consumer.outcome.store(Outcome::Cancelled, std::memory_order_relaxed);
                if constexpr (kRemember) cancels = true;
            }
            continue;
        }
        const std::uint32_t ps = slots.slot_of(p.value);
        Staging& producer = staging[ps];
        if (producer.last_consumer == id.value) {
            ++stats.edges_duplicate;
            continue;
        }
        producer.last_consumer = id.value;
        stage_one(producer, ps, slot, nodes);
        all_unreferenced &= producer.unreferenced;
        if constexpr (kRemember) remembered[staged] = ps;
        ++staged;
    }
    nodes.commit();
    staged_edges_ += staged;
    if (all_unreferenced == 0) consumer.holds_references = true;
    if constexpr (kRemember) {
        std::memcpy(remembered_ids_.get(), producers.data(), producers.size_bytes());
        remembered_size_ = producers.size();
        remembered_staged_ = staged;
        remembered_to_retired_ = to_retired;
        remembered_cancels_ = cancels;
        remembered_holds_ = all_unreferenced == 0;
        remembered_run_ = window.run_first_id();
        remembered_retired_before_ = retired_before;
    }
    return staged;
}

template std::uint32_t EdgeLinker::select<false>(TaskId, std::uint32_t, std::span<const TaskId>,
                                                 const TaskWindow&, TaskSlot&, EdgePool&, OrchestratorStats&);

std::uint32_t EdgeLinker::stage_remembered(std::uint32_t slot, TaskSlot& consumer, EdgePool& edges,
                                           OrchestratorStats& stats) {
    if (remembered_cancels_) [[unlikely]]
        consumer.outcome.store(Outcome::Cancelled, std::memory_order_relaxed);
    Staging* const staging = staging_.get();
    const std::uint32_t* const remembered = remembered_slots_.get();
    const std::uint32_t staged = remembered_staged_;
    EdgePool::Appender nodes(edges);
    for (std::uint32_t i = 0; i < staged; ++i) {
        const std::uint32_t ps = remembered[i];
        stage_one(staging[ps], ps, slot, nodes);
    }
    nodes.commit();
    staged_edges_ += staged;
    if (remembered_holds_) consumer.holds_references = true;
    stats.edges_to_retired += remembered_to_retired_;
    stats.edges_duplicate += remembered_size_ - staged - remembered_to_retired_;
    return staged;
}

std::uint32_t EdgeLinker::stage_bundled(std::uint32_t slot, TaskSlot& consumer, EdgePool& edges,
                                        OrchestratorStats& stats) {
    if (remembered_cancels_) [[unlikely]]
        consumer.outcome.store(Outcome::Cancelled, std::memory_order_relaxed);
    const std::uint32_t staged = remembered_staged_;
    EdgePool::Appender nodes(edges);
    const std::uint32_t tag = nodes.next() + 1;
    EdgeNode& member = nodes.node(tag - 1);
    member.producer_slot = kUnreferenced;  // never read: a member holds no reference
    member.consumer_slot = slot;
    member.next = 0;
    if (bundle_last_ == 0) {
        // This consumer opens the bundle: each producer gets one node for all its members.
        bundle_members_ = 0;
        Staging* const staging = staging_.get();
        const std::uint32_t* const remembered = remembered_slots_.get();
        for (std::uint32_t i = 0; i < staged; ++i) {
            const std::uint32_t ps = remembered[i];
            stage_one(staging[ps], ps, kBundleNode | tag, nodes);
        }
    } else {
        nodes.node(bundle_last_ - 1).next = tag;
    }
    bundle_last_ = tag;
    ++bundle_members_;
    nodes.commit();
    staged_edges_ += staged;  // the edges it stands for: the flush bound stays what it was
    stats.edges_to_retired += remembered_to_retired_;
    stats.edges_duplicate += remembered_size_ - staged - remembered_to_retired_;
    return staged;
}

void EdgeLinker::close_bundle() {
    if (bundle_last_ == 0) return;
    // Each fanout node stands for bundle_members_ edges, and `count` counted it as one.
    if (const std::uint32_t extra = bundle_members_ - 1; extra != 0) {
        for (std::uint32_t i = 0; i < remembered_staged_; ++i)
            staging_[remembered_slots_[i]].extra += extra;
    }
    bundle_last_ = 0;
}

void EdgeLinker::restart_epochs() {
    for (std::uint32_t s = 0; s < window_tasks_; ++s)
        staging_[s].private_epoch = 0;
    flush_epoch_ = 1;
}

void EdgeLinker::flush(Engine& engine, CompletionContext& ctx, OrchestratorStats& stats, bool profile) {
    // First: no member may join a bundle once its fanout nodes are published below.
    close_bundle();
    if (!has_staged()) return;
    PhaseTimer timer(profile, stats.fanin_ns);
    // First the producers no other thread can reach yet, with plain stores, while this flush has published
    // nothing ("Producers no other thread can reach yet").
    for (std::uint32_t i = 0; i < private_staged_; ++i) {
        const std::uint32_t ps = staged_producers_[i];
        Staging& producer = staging_[ps];
        std::atomic<std::uint64_t>& link = engine.tasks[ps].link;
        // Submitted since the last flush, so every consumer it has is staged now: its fanout list is empty
        // and the staged list's tail already ends it.
        const std::uint64_t word = link.load(std::memory_order_relaxed);
        PTO_ASSERT(!link_is_closed(word) && link_head(word) == 0,
                   "a task waiting for an unspliced edge has neither completed nor linked consumers");
        link.store(word + producer.references() + producer.head, std::memory_order_relaxed);
        stats.edges_linked += producer.count + producer.extra;
        producer.spliced();
    }
    stats.link_flushes += private_staged_;
    for (std::uint32_t i = shared_begin_; i < window_tasks_; ++i) {
        const std::uint32_t ps = staged_producers_[i];
        Staging& producer = staging_[ps];
        const std::uint64_t refs = producer.references();
        EdgeNode& tail = engine.edges.node(producer.tail - 1);
        std::atomic<std::uint64_t>& link = engine.tasks[ps].link;
        // Acquire (here and on a failed exchange): a closed word read this way shows the completer's outcome,
        // which it stored before its close CAS.
        std::uint64_t word = link.load(std::memory_order_acquire);
        for (;;) {
            if (link_is_closed(word)) {
                // Completed already: the staged consumers wait for nothing from it; those of a producer that
                // keeps outputs hold a reference on it, taken here. The producer cannot retire meanwhile:
                // only this thread retires, and it flushes first.
                if (refs != 0 && !link.compare_exchange_weak(word, word + refs, std::memory_order_acq_rel,
                                                             std::memory_order_acquire))
                    continue;
                const bool failed = engine.tasks[ps].outcome.load(std::memory_order_relaxed) != Outcome::Ok;
                // The staged list was never published, so no other thread reads it while we walk it. Walk
                // exactly `count` nodes: a failed splice attempt above may have pointed the tail's next
                // into the producer's published list, which its completer walks.
                std::uint32_t e = producer.head;
                for (std::uint32_t k = 0; k < producer.count; ++k) {
                    const EdgeNode& node = engine.edges.node(e - 1);
                    e = node.next;
                    // What the producer's completer would have done, had the consumer been linked in time.
                    engine.release_fanout(node, failed, ctx);
                }
                stats.edges_to_completed += producer.count + producer.extra;
                break;
            }
            tail.next = link_head(word);
            const std::uint64_t pushed = ((word + refs) & ~kLinkHeadMask) | producer.head;
            // Release: the nodes and the consumers' slots are visible to the completer that takes the list
            // with its acquire close.
            if (link.compare_exchange_weak(word, pushed, std::memory_order_acq_rel,
                                           std::memory_order_acquire)) {
                stats.edges_linked += producer.count + producer.extra;
                break;
            }
        }
        producer.spliced();
        ++stats.link_flushes;
    }
    private_staged_ = 0;
    shared_begin_ = window_tasks_;
    staged_edges_ = 0;
    // Every task marked private in this epoch may now be reached.
    if (++flush_epoch_ == 0) [[unlikely]]
        restart_epochs();
}

}  // namespace pto::detail
