// ReadResults: the producers a remembered read reported (RegionIndex's read memos), so that the same read
// again copies them instead of visiting each candidate once more. Graphs read one tile many times in a row
// (each output projection of a tile reads the whole attention tile, each down projection the whole
// activation tile) and such a read meets tens of writers: remembered, it costs a copy of their ids instead
// of a load, a retirement check and an overlap test per writer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "pto/runtime/detail/throw.h"
#include "pto/runtime/ids.h"
#include "region_index.h"

namespace pto::detail {

/// ReadResults: per read memo slot of the index, what a read that made or followed that memo reported, and
/// what decides that besides the memo's candidates: the view's creator (entries of older tasks belong to an
/// earlier buffer at the address and are not reported), how many writer entries were taken over in place
/// (an entry that now names another task), and the oldest producer reported (the answer holds while it
/// has not retired: a retired producer is dropped, not reported). Only reads of a dense view or rows are
/// kept by the caller: for those the memo's range and row window (pitch 0: dense) fix the elements, so
/// every read that follows the memo meets the same candidates. Orchestrator thread only.
class ReadResults {
  public:
    /// A memo has at most this many candidates, and a read reports each at most once.
    static constexpr std::uint32_t kMaxProducers = RegionIndex::kReadMemo;

    ReadResults()
        : ids_(std::make_unique_for_overwrite<TaskId[]>(std::size_t{RegionIndex::kReadMemos} *
                                                        kMaxProducers)) {}

    /// recall: appends to `out` what the read kept under `memo` reported and returns true, if that read had
    /// the same `first_task`, no writer entry was taken over since (`takeovers` is the same) and none of
    /// its producers retired (all at or above `retired_before`); otherwise returns false, appending nothing.
    [[nodiscard]] bool recall(const RegionIndex::RememberedRead& memo, std::uint64_t first_task,
                              std::uint64_t takeovers, std::uint64_t retired_before,
                              std::vector<TaskId>& out) const {
        const Kept& r = kept_[memo.slot];
        if (r.serial != memo.serial || r.takeovers != takeovers || r.first_task != first_task ||
            r.oldest < retired_before)
            return false;
        const TaskId* ids = ids_.get() + std::size_t{memo.slot} * kMaxProducers;
        out.insert(out.end(), ids, ids + r.count);
        return true;
    }

    /// keep: keeps `producers`, what a read that made or followed `memo` reported (no entry erased during
    /// it), for the next read that follows the same memo.
    void keep(const RegionIndex::RememberedRead& memo, std::uint64_t first_task, std::uint64_t takeovers,
              std::span<const TaskId> producers) {
        PTO_ASSERT(producers.size() <= kMaxProducers,
                   "a read reports each of its memo's candidates once at most");
        std::ranges::copy(producers, ids_.get() + std::size_t{memo.slot} * kMaxProducers);
        std::uint64_t oldest = ~std::uint64_t{0};
        for (const TaskId t : producers)
            oldest = std::min(oldest, t.value);
        kept_[memo.slot] =
            Kept{memo.serial, takeovers, first_task, oldest, static_cast<std::uint32_t>(producers.size())};
    }

  private:
    struct Kept {
        std::uint64_t serial = 0;  ///< RememberedRead::serial; 0: nothing kept
        std::uint64_t takeovers = 0;
        std::uint64_t first_task = 0;
        std::uint64_t oldest = 0;  ///< the oldest producer reported (~0 for none)
        std::uint32_t count = 0;
    };
    Kept kept_[RegionIndex::kReadMemos];
    std::unique_ptr<TaskId[]> ids_;  ///< kMaxProducers per memo slot, slot k's at k * kMaxProducers
};

}  // namespace pto::detail
