// TensorMap: finds the tasks an access of a tensor view must wait for (SPEC §4), with sequential
// consistency for tracked views: reads wait for the latest overlapping writers (RAW), writes wait for
// earlier overlapping writers (WAW) and for readers since the last write (WAR). Used by AUTO scopes.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "pto/runtime/ids.h"
#include "pto/runtime/tensor.h"

namespace pto {

/// TensorMap: one per orchestrator; single-threaded (the orchestrator thread only).
///
/// Entries record which task last wrote, or has read since the last write, a view of a buffer. A lookup
/// costs O(views overlapping the query) and does not grow with the number of live views of the same buffer
/// that do not overlap it (exception: views whose linear ranges interleave, such as the columns of one
/// matrix, are told apart exactly but each is examined; docs/design/tensormap.md). Entries of tasks that
/// retired are invalid; they are skipped and reclaimed lazily (when a lookup meets them, and oldest-first
/// on every record), so the caller passes its retirement watermark. Nothing allocates after construction.
///
///     map.find_producers(view, Direction::In, rt.retired_before(), deps);   // before submit
///     TaskId id = rt.submit(spec, deps, true);
///     while (!map.try_record(view, Direction::In, id, rt.retired_before())) rt.wait_for_retirement(...);
class TensorMap {
  public:
    /// entry_capacity: most live entries (RuntimeConfig::tensormap_entries); a power of two in 64..2^26.
    /// Allocates about 250 bytes per entry (16 MiB at the default 2^16). Throws InvalidConfig naming the
    /// knob otherwise.
    explicit TensorMap(std::uint32_t entry_capacity);
    ~TensorMap();
    TensorMap(const TensorMap&) = delete;
    TensorMap& operator=(const TensorMap&) = delete;

    /// find_producers: appends to `out` the tasks an access of `view` with `direction` must wait for:
    /// In -> overlapping writers (RAW); Out -> overlapping writers and readers (WAW, WAR); InOut -> both.
    /// Ignores entries of tasks below `retired_before` (and drops those it meets). May append an id more
    /// than once, and may report a writer whose overlapping part a later write replaced only partly
    /// (conservative: the later writer depends on it anyway). Untracked and empty views find nothing.
    /// Throws InvalidTensor for a view of more than kMaxTensorDims dimensions.
    void find_producers(const TensorView& view, Direction direction, TaskId retired_before,
                        std::vector<TaskId>& out);

    /// try_record: records that `task` accesses `view`, after find_producers for the same access. A write
    /// (Out, InOut) supersedes the entries it provably covers (view_covers), which the new entry stands in
    /// for; partly covered entries stay. Returns false, recording nothing, when no entry is free even after
    /// reclaiming entries of tasks below `retired_before`; the caller then waits for retirement and retries.
    /// Untracked and empty views record nothing and return true. Throws InvalidArgument for an invalid
    /// `task`, InvalidTensor for a view of more than kMaxTensorDims dimensions.
    bool try_record(const TensorView& view, Direction direction, TaskId task, TaskId retired_before);

    /// clear: forgets every entry (at the end of a run). O(live entries).
    void clear();

    /// live_entries: entries in use, including those of retired tasks not yet reclaimed; superseded
    /// entries are freed at once and not counted.
    [[nodiscard]] std::uint32_t live_entries() const;
    [[nodiscard]] std::uint32_t capacity() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace pto
