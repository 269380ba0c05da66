// EdgeLinker: links submitted consumers into their producers' fanout lists. It owns the producer selection
// of the submit in progress (duplicates merged, retired producers skipped) and the staged edges: while a
// scope is open, each producer's new consumers collect in a private list of edge nodes, spliced into its
// fanout list with one CAS when the links are flushed. Orchestrator thread only; the fanout lists it
// splices into are shared (see "The link word" in task_slot.h).
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "engine.h"
#include "pto/runtime/ids.h"
#include "pto/runtime/stats.h"
#include "task_window.h"

namespace pto::detail {

class EdgeLinker {
  public:
    /// Staged edges that force a flush even inside a scope: bounds how long a long scope delays its
    /// consumers and how much the flush touches at once.
    static constexpr std::uint64_t kMaxStagedEdges = 4096;

    explicit EdgeLinker(std::uint32_t window_tasks);

    // ---- Selection and staging (one task: a submit, or a node of a template instance)

    /// select_and_stage: stages an edge to consumer `slot` (task `id`) from each producer it must link to,
    /// and returns how many: a producer already retired is skipped (and cancels `consumer` if it failed or
    /// was cancelled), a producer named twice is linked once. Takes one edge node per staged edge (the
    /// caller reserved them), in the order the producers are named, and marks `consumer` as holding
    /// references if one of the staged producers keeps outputs. `known_remembered`: the caller found
    /// `producers` equal to the remembered list (remembers()), so it is not compared again. `may_bundle`: the
    /// caller reserved one edge node more than `producers` has (so EdgeLinker::may_bundle holds), and the
    /// consumer may join or open a bundle (below); it then owns no edge node naming its producers.
    std::uint32_t select_and_stage(TaskId id, std::uint32_t slot, std::span<const TaskId> producers,
                                   const TaskWindow& window, TaskSlot& consumer, EdgePool& edges,
                                   OrchestratorStats& stats, bool known_remembered = false,
                                   bool may_bundle = false) {
        // Inline, so the usual short list costs its caller one compare more than the plain selection.
        if (!may_remember(producers))
            return select<false>(id, slot, producers, window, consumer, edges, stats);
        return select_long(id, slot, producers, window, consumer, edges, stats, known_remembered, may_bundle);
    }

    // ---- The remembered producer list
    //
    // Graph code often names one long producer list for many consumers in a row (every launch of a stage
    // after every launch of the one before: Qwen3's out_proj after all online_softmax, down_proj after all
    // silu). The linker keeps the last list of kMinRemembered..kMaxRemembered producers it selected, with
    // the slots it staged; a consumer naming the same ids again, while none of those staged producers has
    // retired, stages those slots directly: no retirement test, no duplicate merge, and (remembers(), for
    // the submit) no second check that the ids precede it. Shorter lists neither use nor replace it.

    static constexpr std::size_t kMinRemembered = 4;
    static constexpr std::size_t kMaxRemembered = 512;

    /// may_remember: `producers` is long enough to be remembered (the one test short lists pay).
    [[nodiscard]] static bool may_remember(std::span<const TaskId> producers) {
        return producers.size() >= kMinRemembered;
    }
    /// remembers: `producers` is the remembered list of this run (the run starting at `run_first`): every
    /// id in it was checked to precede an earlier task, so it precedes any later one. Out of line: callers
    /// test may_remember first.
    [[nodiscard, gnu::noinline]] bool remembers(std::span<const TaskId> producers,
                                                std::uint64_t run_first) const;

    // ---- Bundles
    //
    // A remembered list named again stages an edge node per producer for each consumer: Qwen3 tier 0 names
    // the same 64 producers for 40 consumers in a row, 2,560 nodes per tile, and staging them took about a
    // seventh of its orchestration's instructions. When the list's producers keep no outputs (so its
    // consumers hold no references, and never walk their own edge nodes), consumers after the first join a
    // bundle instead: one member node each, chained in submission order, and one fanout node per producer
    // standing for the whole bundle (kBundleNode), staged when the bundle opens. A producer's completion
    // releases every member in turn (Engine::release_fanout); each member still counts every producer in its
    // fanin. The bundle closes when the links are flushed (its fanout nodes are then published with the
    // producers' CAS, so no member joins a bundle a completer may be walking) or when the remembered list
    // changes; the next consumer of the list opens a new one. Edges are counted as before: a bundle of n
    // members links n edges per producer (close_bundle).

    /// kMinBundled: the shortest list a consumer joins a bundle for: below it, the bundle's fanout nodes
    /// would cost more than the edge nodes it saves.
    static constexpr std::uint32_t kMinBundled = 4;
    /// may_bundle: `producers` is long enough for a bundle and, with the member node, fits the edge pool.
    [[nodiscard]] static bool may_bundle(std::span<const TaskId> producers, const EdgePool& edges) {
        return producers.size() >= kMinBundled && producers.size() < edges.capacity();
    }

    // ---- What consumers hold on a producer

    /// set_keeps_outputs: whether the task now in `slot` allocated buffers from the heap ring (create-info
    /// outputs, alloc_tensors). Only then do its consumers hold a reference on it, keeping it from retiring
    /// (and its buffers from being freed) until they finish; a task that allocated nothing may retire as
    /// soon as it completed, and its consumers neither take nor drop a reference. Set for every task
    /// before any consumer is staged on it.
    void set_keeps_outputs(std::uint32_t slot, bool keeps) {
        staging_[slot].unreferenced = keeps ? 0 : kUnreferenced;
    }

    // ---- Producers no other thread can reach yet
    //
    // Splicing a producer's staged consumers takes a CAS on its link word (a locked instruction, which also
    // waits for every store the submits left in the store buffer), because a completer may close the word
    // at the same time. A task with an edge staged since the last flush has no such completer: it cannot
    // become ready before that edge is spliced (its fanin counts the edge), so no scheduler completes it and
    // no consumer of it runs. The flush writes such producers' link words with plain stores first, before
    // it publishes anything; the releasing CAS or ready push that later makes one reachable publishes that
    // store as it does the slot's other fields. Qwen3's scopes are chains of such tasks: only the producers
    // of earlier scopes need the CAS.

    /// mark_private: until the next flush, only this thread touches the link word of the task in `slot`:
    /// the caller staged an edge to it in this epoch. The dynamic submit marks its tasks; template instance
    /// nodes are not marked (their producers are almost always tasks of earlier scopes, so the mark would
    /// not pay for its store) and are spliced with a CAS.
    void mark_private(std::uint32_t slot) { staging_[slot].private_epoch = flush_epoch_; }

    // ---- Flushing

    /// should_flush: outside a scope edges are spliced at once; inside one, when the staging fills.
    [[nodiscard]] bool should_flush(bool scoped) const { return !scoped || staged_edges_ >= kMaxStagedEdges; }
    [[nodiscard]] bool has_staged() const { return private_staged_ != 0 || shared_begin_ != window_tasks_; }
    /// flush: splices every producer's staged consumers into its fanout list (one CAS each, a plain store
    /// for a producer marked private in this flush epoch, before anything is published). A producer
    /// that completed meanwhile has a closed list: its staged consumers are released here instead, with
    /// `ctx` (the caller then finishes the completions that caused).
    void flush(Engine& engine, CompletionContext& ctx, OrchestratorStats& stats, bool profile);
    /// is_drained: nothing is staged (checked when a run ends).
    [[nodiscard]] bool is_drained() const { return !has_staged() && staged_edges_ == 0 && bundle_last_ == 0; }

  private:
    /// select: select_and_stage without the remembered list; kRemember: the list's length qualifies, so
    /// the selection becomes the remembered one (with the producers it found retired, and whether one of
    /// them cancels consumers).
    template <bool kRemember>
    std::uint32_t select(TaskId id, std::uint32_t slot, std::span<const TaskId> producers,
                         const TaskWindow& window, TaskSlot& consumer, EdgePool& edges,
                         OrchestratorStats& stats);
    /// select_long: select_and_stage of a list long enough to be remembered.
    std::uint32_t select_long(TaskId id, std::uint32_t slot, std::span<const TaskId> producers,
                              const TaskWindow& window, TaskSlot& consumer, EdgePool& edges,
                              OrchestratorStats& stats, bool known_remembered, bool may_bundle);
    /// remembered_still_holds: no producer the remembered selection staged has retired since (a walk of the
    /// list only when the watermark moved).
    bool remembered_still_holds(const TaskWindow& window);
    /// stage_remembered: stages an edge from each slot the remembered selection staged, and cancels
    /// `consumer` if that selection met a retired producer that failed or was cancelled.
    std::uint32_t stage_remembered(std::uint32_t slot, TaskSlot& consumer, EdgePool& edges,
                                   OrchestratorStats& stats);
    /// stage_bundled: stage_remembered as a member of the open bundle (opening one if none is).
    std::uint32_t stage_bundled(std::uint32_t slot, TaskSlot& consumer, EdgePool& edges,
                                OrchestratorStats& stats);
    /// restart_epochs: after 2^32 - 1 flushes, clears every private mark and starts counting again (a
    /// wrapped counter would meet old marks).
    void restart_epochs();
    /// close_bundle: closes the open bundle, if any, counting its edges on its producers (Staging::extra).
    /// Before the remembered list changes: the bundle's producers are its staged slots.
    void close_bundle();

    /// Staging: the linker's own facts about one producer slot.
    struct Staging {
        std::uint64_t last_consumer = ~0ull;  // id of the newest consumer selected for it (merges duplicates)
        // Consumers staged since the last flush, as a private list of edge nodes (1 + index; 0 = none,
        // which flush restores).
        std::uint32_t head = 0;
        std::uint32_t tail = 0;
        std::uint32_t count = 0;
        // kUnreferenced when the producer allocated nothing, so its consumers take no reference on it (0, a
        // reference each, until set_keeps_outputs says otherwise).
        std::uint32_t unreferenced = 0;
        // Edges staged beyond `count` nodes: a bundle's node links all its members (close_bundle).
        std::uint32_t extra = 0;
        // The flush epoch in which a task in this slot was last marked private (0: none). A mark left by
        // an earlier task of the slot is always older than the current epoch: that task had an edge staged
        // in its epoch, so it completed, and retired, only after that epoch's flush. Epochs only grow; when
        // the counter wraps, every mark is cleared.
        std::uint32_t private_epoch = 0;

        /// references: what the staged consumers add to the link word: a reference each, only on a
        /// producer that keeps outputs (set_keeps_outputs).
        [[nodiscard]] std::uint64_t references() const {
            return unreferenced != 0 ? 0 : count * kLinkRefUnit;
        }
        /// spliced: the staged list is in the fanout list (or released); nothing is staged any more.
        void spliced() { head = tail = count = extra = 0; }
    };

    /// stage_one: pushes one edge node (producer slot `ps`, whose staging is `producer` -> consumer `slot`)
    /// on the producer's private list.
    void stage_one(Staging& producer, std::uint32_t ps, std::uint32_t slot, EdgePool::Appender& nodes) {
        const std::uint32_t index = nodes.next();
        EdgeNode& node = nodes.node(index);
        node.producer_slot = ps | producer.unreferenced;
        node.consumer_slot = slot;
        const std::uint32_t tag = index + 1;
        node.next = producer.head;  // 0, ending the list, while nothing is staged for the producer
        if (producer.count == 0) {
            // Sorted as it is first staged: a producer is marked private at its own submit, before any
            // consumer of it, and stays so until the flush.
            if (producer.private_epoch == flush_epoch_)
                staged_producers_[private_staged_++] = ps;
            else
                staged_producers_[--shared_begin_] = ps;
            producer.tail = tag;
        }
        producer.head = tag;
        ++producer.count;
    }

    std::unique_ptr<Staging[]> staging_;  // per window slot
    // Producers with staged consumers, each once: at most one per window slot, so a window-sized array
    // needs no capacity check (and no call the compiler must assume touches the staging loop's state).
    // Private producers fill it from the front, [0, private_staged_), the others from the back,
    // [shared_begin_, window_tasks_).
    std::unique_ptr<std::uint32_t[]> staged_producers_;
    std::uint32_t window_tasks_;
    std::uint32_t private_staged_ = 0;
    std::uint32_t shared_begin_;
    std::uint64_t staged_edges_ = 0;
    // Counts flushes from 1 (0 is no mark).
    std::uint32_t flush_epoch_ = 1;

    // The remembered list (remembered_size_ = 0: none) and its run; the retirement watermark its selection
    // saw, the distinct producer slots it staged, in order, how many producers had retired, whether one of
    // those cancels consumers, and whether a staged one keeps outputs (a task's flag is fixed once it is
    // submitted, and the list is used only while every producer it staged still holds its slot).
    std::unique_ptr<TaskId[]> remembered_ids_;
    std::unique_ptr<std::uint32_t[]> remembered_slots_;
    std::size_t remembered_size_ = 0;
    std::uint32_t remembered_staged_ = 0;
    std::uint32_t remembered_to_retired_ = 0;
    bool remembered_cancels_ = false;
    bool remembered_holds_ = false;
    std::uint64_t remembered_run_ = 0;
    std::uint64_t remembered_retired_before_ = 0;

    // The open bundle of the remembered list (bundle_last_ = 0: none): 1 + the index of its newest member
    // node, and its members.
    std::uint32_t bundle_last_ = 0;
    std::uint32_t bundle_members_ = 0;

  public:
    /// kBytesPerSlot: what the linker allocates per window slot (for the out-of-memory diagnosis).
    static constexpr std::size_t kBytesPerSlot = sizeof(Staging) + sizeof(std::uint32_t);
};

}  // namespace pto::detail
