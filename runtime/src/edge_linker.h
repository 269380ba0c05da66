// EdgeLinker: links submitted consumers into their producers' fanout lists. It owns the producer selection
// of the submit in progress (duplicates merged, retired producers skipped) and the staged edges: while a
// scope is open, each producer's new consumers collect in a private list of edge nodes, spliced into its
// fanout list with one CAS when the links are flushed. Orchestrator thread only; the fanout lists it
// splices into are shared (see "The link word" in task_slot.h).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

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
    /// caller reserved them), in the order the producers are named.
    std::uint32_t select_and_stage(TaskId id, std::uint32_t slot, std::span<const TaskId> producers,
                                   const TaskWindow& window, TaskSlot& consumer, EdgePool& edges,
                                   OrchestratorStats& stats);

    // ---- Flushing

    /// should_flush: outside a scope edges are spliced at once; inside one, when the staging fills.
    [[nodiscard]] bool should_flush(bool scoped) const { return !scoped || staged_edges_ >= kMaxStagedEdges; }
    [[nodiscard]] bool has_staged() const { return !staged_producers_.empty(); }
    /// flush: splices every producer's staged consumers into its fanout list (one CAS each). A producer
    /// that completed meanwhile has a closed list: its staged consumers are released here instead, with
    /// `ctx` (the caller then finishes the completions that caused).
    void flush(Engine& engine, CompletionContext& ctx, OrchestratorStats& stats, bool profile);
    /// is_drained: nothing is staged (checked when a run ends).
    [[nodiscard]] bool is_drained() const { return staged_producers_.empty() && staged_edges_ == 0; }

  private:
    /// stage_one: pushes one edge node (producer slot `ps` -> consumer `slot`) on the producer's private
    /// list.
    void stage_one(std::uint32_t ps, std::uint32_t slot, EdgePool& edges) {
        const std::uint64_t counter = edges.allocate();
        EdgeNode& node = edges.at(counter);
        node.producer_slot = ps;
        node.consumer_slot = slot;
        const std::uint32_t tag = edges.index_of(counter) + 1;
        Staging& producer = staging_[ps];
        if (producer.count == 0) {
            staged_producers_.push_back(ps);
            producer.tail = tag;
            node.next = 0;
        } else {
            node.next = producer.head;
        }
        producer.head = tag;
        ++producer.count;
    }

    /// Staging: the linker's own facts about one producer slot.
    struct Staging {
        std::uint64_t last_consumer = ~0ull;  // id of the newest consumer selected for it (merges duplicates)
        // Consumers staged since the last flush, as a private list of edge nodes (1 + index; 0 = none).
        std::uint32_t head = 0;
        std::uint32_t tail = 0;
        std::uint32_t count = 0;
    };

    std::unique_ptr<Staging[]> staging_;           // per window slot
    std::vector<std::uint32_t> staged_producers_;  // producers with staged consumers
    std::uint64_t staged_edges_ = 0;

  public:
    /// kBytesPerSlot: what the linker allocates per window slot (for the out-of-memory diagnosis).
    static constexpr std::size_t kBytesPerSlot = sizeof(Staging);
};

}  // namespace pto::detail
