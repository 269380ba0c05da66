// check_instance_edges: the one check of an instance's internal offset tables, shared by
// InstanceEdges::create (once per table) and by Runtime::submit_instance for tables it did not build (once
// per call). Both tables are held to one edge set because the completion protocol trusts them blindly: a
// consumer entry releases node i + d, a producer entry is counted in node i's fanin and drops a reference on
// node i - d.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pto/runtime/detail/throw.h"
#include "pto/runtime/instance_edges.h"

namespace pto::detail {

// Tables: size() nodes; consumers(i) / producers(i) as spans of offsets; describe(i) names node i.
template <class Tables>
[[noreturn, gnu::cold, gnu::noinline]] void throw_edge_disagreement(const Tables& t) {
    const auto n = static_cast<std::uint32_t>(t.size());
    // Consumer lists were checked ascending before this is called; producer lists are checked here first,
    // so both can be searched.
    for (std::uint32_t j = 0; j < n; ++j) {
        const std::span<const std::uint32_t> p = t.producers(j);
        for (std::size_t k = 1; k < p.size(); ++k)
            if (p[k] <= p[k - 1])
                throw_error(ErrorCode::InvalidTemplate,
                            t.describe(j) + " lists producer offset -" + std::to_string(p[k]) + " after -" +
                                std::to_string(p[k - 1]) +
                                ": each node's offsets must be strictly ascending, without repeats");
    }
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t d : t.consumers(i)) {
            const std::span<const std::uint32_t> p = t.producers(i + d);
            if (!std::binary_search(p.begin(), p.end(), d))
                throw_error(ErrorCode::InvalidTemplate,
                            t.describe(i) + " feeds node " + std::to_string(i + d) + " (consumer offset +" +
                                std::to_string(d) + "), but " + t.describe(i + d) +
                                " does not list producer offset -" + std::to_string(d) +
                                ": the tables disagree, and that node could start before this producer "
                                "finished");
        }
    for (std::uint32_t j = 0; j < n; ++j)
        for (std::uint32_t d : t.producers(j)) {
            const std::span<const std::uint32_t> c = t.consumers(j - d);
            if (!std::binary_search(c.begin(), c.end(), d))
                throw_error(ErrorCode::InvalidTemplate,
                            t.describe(j) + " waits for node " + std::to_string(j - d) +
                                " (producer offset -" + std::to_string(d) + "), but " + t.describe(j - d) +
                                " does not list consumer offset +" + std::to_string(d) +
                                ": the tables disagree, and this node would wait forever");
        }
    throw_error(ErrorCode::InvalidTemplate, t.describe(0) + ": the instance's offset tables disagree");
}

/// check_instance_edges: throws InvalidTemplate, naming the node and the offset, unless every offset points
/// inside the instance, each list is strictly ascending and at most kMaxInstanceEdgesPerNode long, and the
/// tables agree (see InstanceEdges::create). O(nodes + edges); `cursor` is scratch, grown once.
template <class Tables>
void check_instance_edges(const Tables& t, std::vector<std::uint32_t>& cursor) {
    const auto n = static_cast<std::uint32_t>(t.size());
    if (cursor.size() < n) cursor.resize(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::span<const std::uint32_t> c = t.consumers(i);
        const std::span<const std::uint32_t> p = t.producers(i);
        if (c.size() > kMaxInstanceEdgesPerNode || p.size() > kMaxInstanceEdgesPerNode) [[unlikely]] {
            const bool consumers = c.size() > kMaxInstanceEdgesPerNode;
            throw_error(ErrorCode::InvalidTemplate,
                        t.describe(i) + " has " + std::to_string(consumers ? c.size() : p.size()) +
                            " internal " + (consumers ? "consumers" : "producers") + "; at most " +
                            std::to_string(kMaxInstanceEdgesPerNode) +
                            " (a task counts them in 16 bits): join them through a dependency-only node");
        }
        std::uint32_t previous = 0;
        for (std::uint32_t d : c) {
            if (d == 0 || d >= n - i) [[unlikely]]
                throw_error(ErrorCode::InvalidTemplate, t.describe(i) + " of an instance of " +
                                                            std::to_string(n) + " nodes feeds node offset +" +
                                                            std::to_string(d) + ", outside the instance");
            if (d <= previous) [[unlikely]]
                throw_error(ErrorCode::InvalidTemplate,
                            t.describe(i) + " lists consumer offset +" + std::to_string(d) + " after +" +
                                std::to_string(previous) +
                                ": each node's offsets must be strictly ascending, without repeats");
            previous = d;
        }
        for (std::uint32_t d : p)
            if (d == 0 || d > i) [[unlikely]]
                throw_error(ErrorCode::InvalidTemplate, t.describe(i) + " waits for node offset -" +
                                                            std::to_string(d) +
                                                            ", outside the instance (edges point backwards)");
        cursor[i] = static_cast<std::uint32_t>(p.size());
    }
    // Node j's producers arrive here from the nearest consumer list last: walking the producers in id order
    // meets j's producer offsets from the largest down, which is j's ascending list read backwards.
    for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t d : t.consumers(i)) {
            const std::uint32_t j = i + d;
            if (cursor[j] == 0 || t.producers(j)[cursor[j] - 1] != d) [[unlikely]]
                throw_edge_disagreement(t);
            --cursor[j];
        }
    for (std::uint32_t j = 0; j < n; ++j)
        if (cursor[j] != 0) [[unlikely]]
            throw_edge_disagreement(t);
}

}  // namespace pto::detail
