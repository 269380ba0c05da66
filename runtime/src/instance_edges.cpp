// InstanceEdges: checking an instance's offset tables once and keeping them in one shared, immutable block.
#include "pto/runtime/instance_edges.h"

#include <utility>

#include "instance_edges_check.h"

namespace pto {

namespace {

/// Tables: check_instance_edges' view of two OffsetLists.
struct Tables {
    const std::string& owner;
    const OffsetLists& consumer_lists;
    const OffsetLists& producer_lists;

    [[nodiscard]] std::size_t size() const { return consumer_lists.first.size() - 1; }
    [[nodiscard]] std::span<const std::uint32_t> consumers(std::uint32_t k) const {
        return list(consumer_lists, k);
    }
    [[nodiscard]] std::span<const std::uint32_t> producers(std::uint32_t k) const {
        return list(producer_lists, k);
    }
    [[nodiscard]] std::string describe(std::uint32_t k) const { return owner + " node " + std::to_string(k); }

    static std::span<const std::uint32_t> list(const OffsetLists& l, std::uint32_t k) {
        return {l.offsets.data() + l.first[k], l.first[k + 1] - l.first[k]};
    }
};

void check_shape(const std::string& owner, const OffsetLists& l, const char* what) {
    const auto fail = [&](const std::string& why) {
        detail::throw_error(ErrorCode::InvalidTemplate, owner + ": the " + what + " table " + why);
    };
    if (l.first.empty() || l.first.front() != 0) fail("must start its index with 0");
    for (std::size_t k = 1; k < l.first.size(); ++k)
        if (l.first[k] < l.first[k - 1])
            fail("index decreases at node " + std::to_string(k - 1) + " (" + std::to_string(l.first[k - 1]) +
                 " then " + std::to_string(l.first[k]) + ")");
    if (l.first.back() != l.offsets.size())
        fail("index ends at " + std::to_string(l.first.back()) + ", but it holds " +
             std::to_string(l.offsets.size()) + " offsets");
}

}  // namespace

InstanceEdges::InstanceEdges(std::string owner, OffsetLists consumers, OffsetLists producers)
    : owner_(std::move(owner)), consumers_(std::move(consumers)), producers_(std::move(producers)) {}

std::shared_ptr<const InstanceEdges> InstanceEdges::create(std::string owner, OffsetLists consumers,
                                                           OffsetLists producers) {
    check_shape(owner, consumers, "consumer");
    check_shape(owner, producers, "producer");
    if (consumers.first.size() != producers.first.size())
        detail::throw_error(ErrorCode::InvalidTemplate, owner + ": the consumer table has " +
                                                            std::to_string(consumers.first.size() - 1) +
                                                            " nodes and the producer table " +
                                                            std::to_string(producers.first.size() - 1));
    std::vector<std::uint32_t> cursor;
    detail::check_instance_edges(Tables{owner, consumers, producers}, cursor);
    return std::shared_ptr<const InstanceEdges>(
        new InstanceEdges(std::move(owner), std::move(consumers), std::move(producers)));
}

}  // namespace pto
