// InstanceEdges: the internal edges of a batch submitted with Runtime::submit_instance (a static-template
// instance), as per-node offset tables checked once when built and shared by reference count, so the
// runtime can keep them alive for exactly as long as an instance that uses them has unretired tasks.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace pto {

/// kMaxInstanceEdgesPerNode: at most this many internal consumers, and as many internal producers, per
/// node (a task slot keeps 16-bit counts of them).
inline constexpr std::uint32_t kMaxInstanceEdgesPerNode = 65535;

/// OffsetLists: one list of offsets per node in compressed form: node i's list is
/// offsets[first[i] .. first[i + 1]), so `first` has one entry more than there are nodes.
struct OffsetLists {
    std::vector<std::uint32_t> first;
    std::vector<std::uint32_t> offsets;
};

/// InstanceEdges: immutable, validated internal edges of an instance of `node_count()` nodes: node i feeds
/// node i + d for each d in consumers(i) and waits for node i - d for each d in producers(i). Built once
/// (e.g. by TemplateBuilder::finalize) and passed to every submit_instance of that shape; the runtime holds
/// a reference until the instance's last task retires, so the builder may drop its own at any time.
class InstanceEdges {
  public:
    /// create: checks and takes the tables. `owner` names them in messages (e.g. "template 'attn'").
    /// Throws InvalidTemplate naming the owner, the node and the offending offset unless: `first` is
    /// well formed for both tables and both describe the same number of nodes; every offset points inside
    /// the instance (consumers forwards, producers backwards, none 0); each list is strictly ascending;
    /// no list is longer than kMaxInstanceEdgesPerNode; and the two tables agree (node i lists consumer
    /// +d exactly when node i + d lists producer -d). A consumer entry without its producer entry would
    /// release the consumer before that producer finished; a producer entry without its consumer entry
    /// would make the node wait forever.
    static std::shared_ptr<const InstanceEdges> create(std::string owner, OffsetLists consumers,
                                                       OffsetLists producers);

    [[nodiscard]] std::uint32_t node_count() const {
        return static_cast<std::uint32_t>(consumers_.first.size() - 1);
    }
    /// consumers / producers: node `k`'s offsets (k < node_count(); not checked: a hot accessor).
    [[nodiscard]] std::span<const std::uint32_t> consumers(std::uint32_t k) const {
        return list(consumers_, k);
    }
    [[nodiscard]] std::span<const std::uint32_t> producers(std::uint32_t k) const {
        return list(producers_, k);
    }
    /// edge_count: the number of internal edges.
    [[nodiscard]] std::uint32_t edge_count() const {
        return static_cast<std::uint32_t>(consumers_.offsets.size());
    }
    [[nodiscard]] const std::string& owner() const { return owner_; }

  private:
    InstanceEdges(std::string owner, OffsetLists consumers, OffsetLists producers);
    static std::span<const std::uint32_t> list(const OffsetLists& l, std::uint32_t k) {
        return {l.offsets.data() + l.first[k], l.first[k + 1] - l.first[k]};
    }

    std::string owner_;
    OffsetLists consumers_;
    OffsetLists producers_;
};

}  // namespace pto
