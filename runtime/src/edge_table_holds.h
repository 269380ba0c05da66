// EdgeTableHolds: the references the runtime keeps on the InstanceEdges of instances that still have
// unretired tasks, because those tasks' slots point into the tables (TaskSlot::static_consumers) until
// they retire. Orchestrator thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "pto/runtime/instance_edges.h"

namespace pto::detail {

/// EdgeTableHolds: a queue in id order of (tables, last task id using them). Consecutive instances of one
/// table share an entry, so a loop stamping out one template costs no reference-count traffic per instance;
/// alternating templates cost one reference per instance. Retirement is in id order, so entries are
/// dropped from the front once the watermark passes their last id. Grows (rarely) by doubling, never
/// shrinks: no allocation in steady state.
class EdgeTableHolds {
  public:
    EdgeTableHolds() : entries_(16) {}

    /// hold: keeps `edges` alive until every task with an id <= last_id has retired.
    void hold(const std::shared_ptr<const InstanceEdges>& edges, std::uint64_t last_id) {
        if (count_ != 0) {
            Entry& newest = entries_[(head_ + count_ - 1) % entries_.size()];
            if (newest.edges == edges) {
                newest.last_id = last_id;
                return;
            }
        }
        if (count_ == entries_.size()) grow();
        entries_[(head_ + count_) % entries_.size()] = Entry{edges, last_id};
        ++count_;
    }

    /// release_retired: drops the tables whose last task is below `retired_before` (has retired).
    void release_retired(std::uint64_t retired_before) {
        while (count_ != 0 && entries_[head_].last_id < retired_before) {
            entries_[head_].edges.reset();
            head_ = (head_ + 1) % entries_.size();
            --count_;
        }
    }

    [[nodiscard]] std::size_t held() const { return count_; }

  private:
    struct Entry {
        std::shared_ptr<const InstanceEdges> edges;
        std::uint64_t last_id = 0;
    };

    void grow() {
        std::vector<Entry> bigger(entries_.size() * 2);
        for (std::size_t i = 0; i < count_; ++i)
            bigger[i] = std::move(entries_[(head_ + i) % entries_.size()]);
        entries_ = std::move(bigger);
        head_ = 0;
    }

    std::vector<Entry> entries_;
    std::size_t head_ = 0;
    std::size_t count_ = 0;
};

}  // namespace pto::detail
