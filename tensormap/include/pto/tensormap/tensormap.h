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
/// that do not overlap it. Entries of tasks that retired are invalid; they are skipped and reclaimed lazily
/// (during lookups, and oldest-first when the pool is full), so the caller passes its retirement watermark.
///
///     map.find_producers(view, Direction::In, rt.retired_before(), deps);   // before submit
///     TaskId id = rt.submit(spec, deps, true);
///     while (!map.try_record(view, Direction::In, id, rt.retired_before())) rt.wait_for_retirement(...);
class TensorMap {
public:
    /// entry_capacity: most live entries (RuntimeConfig::tensormap_entries); a power of two >= 64.
    explicit TensorMap(std::uint32_t entry_capacity);
    ~TensorMap();
    TensorMap(const TensorMap&) = delete;
    TensorMap& operator=(const TensorMap&) = delete;

    /// find_producers: appends to `out` the tasks an access of `view` with `direction` must wait for:
    /// In -> overlapping writers; Out -> overlapping writers and readers; InOut -> both. Ignores entries of
    /// tasks below `retired_before`. May append an id more than once. Untracked views find nothing.
    void find_producers(const TensorView& view, Direction direction, TaskId retired_before,
                        std::vector<TaskId>& out);

    /// try_record: records that `task` accesses `view`. A write (Out, InOut) supersedes the entries it fully
    /// covers. Returns false, recording nothing, when no entry is free even after reclaiming entries of
    /// tasks below `retired_before`; the caller then waits for retirement and retries. Untracked views
    /// record nothing and return true.
    bool try_record(const TensorView& view, Direction direction, TaskId task, TaskId retired_before);

    /// clear: forgets every entry (at the end of a run).
    void clear();

    /// live_entries: entries in use, including invalid ones not yet reclaimed.
    [[nodiscard]] std::uint32_t live_entries() const;
    [[nodiscard]] std::uint32_t capacity() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace pto
