// EdgePool: the preallocated ring of producer->consumer edge nodes. The orchestrator allocates nodes in
// submission order and frees them in retirement order, so it is a plain ring with no atomics of its own.
#pragma once

#include <cstdint>
#include <memory>

#include "claim_line.h"
#include "task_slot.h"

namespace pto::detail {

/// EdgeNode: one producer->consumer edge of a dynamically submitted task. Allocated when the consumer is
/// submitted, read by the producer's completer (walking its fanout list through `next`) and by the
/// consumer's completer (dropping its reference on the producer, if it holds one), freed when the consumer
/// retires: every reader is done by then, because the producer completed before the consumer ran, and the
/// consumer completed before it retired.
struct EdgeNode {
    std::uint32_t producer_slot;  // with kUnreferenced set when the consumer holds no reference on it
    std::uint32_t consumer_slot;
    std::uint32_t next;  // 1 + index of the next older node in the producer's fanout list; 0 ends it
};

/// kUnreferenced: set in EdgeNode::producer_slot when the producer allocated nothing from the heap ring, so
/// its consumers hold no reference on it (see "The link word" in task_slot.h). Windows have at most 2^24
/// slots, so the bit is never part of a slot.
inline constexpr std::uint32_t kUnreferenced = 1u << 31;

/// kBundleNode: set in EdgeNode::consumer_slot of a fanout node that stands for a bundle (EdgeLinker,
/// "Bundles"): consumers that named one long producer list, released together. The rest of the field is 1 +
/// the index of the bundle's first member node; each member node holds one consumer in consumer_slot and 1 +
/// the index of the next member in `next` (0 ends the bundle). Edge pools have at most 2^26 nodes, so the
/// bit is never part of an index.
inline constexpr std::uint32_t kBundleNode = 1u << 31;

/// EdgePool: ring of EdgeNodes addressed by a running 64-bit counter; index = counter & mask.
/// Orchestrator thread only, except that completers read nodes published to them.
class EdgePool {
  public:
    explicit EdgePool(std::uint32_t capacity)
        : nodes_(std::make_unique_for_overwrite<EdgeNode[]>(capacity)), mask_(capacity - 1) {}

    [[nodiscard]] EdgeNode& at(std::uint64_t counter) { return nodes_[counter & mask_]; }
    [[nodiscard]] const EdgeNode& at(std::uint64_t counter) const { return nodes_[counter & mask_]; }
    [[nodiscard]] EdgeNode& node(std::uint32_t index) { return nodes_[index]; }

    [[nodiscard]] std::uint64_t head() const { return head_; }
    [[nodiscard]] std::uint64_t capacity() const { return mask_ + 1; }
    [[nodiscard]] std::uint64_t free_nodes() const { return capacity() - (head_ - tail_); }
    /// Appender: allocates and writes the nodes of one task's edges through local copies of the pool's
    /// base, mask and head, which the compiler would otherwise reload after every node written (a node's
    /// fields may alias them, as far as it knows); commit() stores the head back. One at a time; the
    /// caller checked free_nodes() first.
    class Appender {
      public:
        explicit Appender(EdgePool& pool)
            : pool_(pool), nodes_(pool.nodes_.get()), mask_(pool.mask_), head_(pool.head_) {}
        /// next: the index of a new node (the caller reserved room for it).
        std::uint32_t next() { return static_cast<std::uint32_t>(head_++ & mask_); }
        [[nodiscard]] EdgeNode& node(std::uint32_t index) const { return nodes_[index]; }
        void commit() const { pool_.head_ = head_; }

      private:
        EdgePool& pool_;
        EdgeNode* const nodes_;
        const std::uint64_t mask_;
        std::uint64_t head_;
    };

    /// release_until: frees every node allocated before `counter` (the end mark of a retired task).
    void release_until(std::uint64_t counter) { tail_ = counter; }
    void reset() { head_ = tail_ = claimed_ = 0; }

    /// claim_ahead: claims (claim_line.h) the lines of the next kClaimAhead nodes, each line once: the
    /// completers read the nodes they walk, so the orchestrator's next writes there would otherwise each
    /// wait for a line from another CPU. Past the free nodes (a nearly full pool) it may take a line a
    /// completer still reads, which costs that completer a transfer and changes nothing else.
    void claim_ahead() {
        if (claimed_ < head_) claimed_ = head_;
        for (const std::uint64_t end = head_ + kClaimAhead; claimed_ < end; claimed_ += kNodesPerLine)
            claim_line(&nodes_[claimed_ & mask_]);
    }

  private:
    // Completers read these two on every edge they follow; the orchestrator moves the cursors below on
    // every edge it links, so they live apart: sharing a line made each link a cross-CPU transfer.
    std::unique_ptr<EdgeNode[]> nodes_;
    std::uint64_t mask_;
    alignas(kFalseSharingRange) std::uint64_t head_ = 0;  // next node to allocate
    std::uint64_t tail_ = 0;                              // oldest node still in use
    std::uint64_t claimed_ = 0;                           // nodes before it were claimed (claim_ahead)

    /// kClaimAhead: nodes claimed ahead of the head, more than the orchestrator links between two claims
    /// (Runtime::Impl::claim_ahead, every eight tasks; Qwen3 tier 0 links about 9 edges per launch).
    /// kNodesPerLine: a step that touches every line at least once.
    static constexpr std::uint64_t kClaimAhead = 128;
    static constexpr std::uint64_t kNodesPerLine = kCacheLine / sizeof(EdgeNode);
};

}  // namespace pto::detail
