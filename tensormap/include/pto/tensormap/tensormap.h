// TensorMap: finds the tasks an access of a tensor view must wait for (docs/design/tensormap.md), with
// sequential consistency for tracked views: reads wait for the latest overlapping writers (RAW), writes wait
// for earlier overlapping writers (WAW) and for readers since the last write (WAR). Used by AUTO scopes.
#pragma once

#include <cstddef>
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
/// that do not overlap it, tiles of one matrix included (exception: views whose linear ranges interleave
/// without a common row window, such as the full-height columns of one matrix, are told apart exactly but
/// each is examined; docs/design/tensormap.md). Entries of tasks that retired successfully are invalid;
/// they are skipped and reclaimed lazily (when a lookup meets them, and oldest-first on every record), so
/// the caller passes what has retired (RetiredTasks, usually Runtime::retired()). Entries of retired tasks
/// that failed or were cancelled stay and are still reported, so whoever later reads, overwrites or
/// writes after reading their data is cancelled, however long ago they retired; a covering write
/// supersedes them, clear() drops them. Nothing allocates after construction.
///
/// Each access is normalised once (prepare) and then looked up before the task is submitted and recorded
/// after; a task's accesses are all looked up before any is recorded (a write must not find itself):
///
///     map.prepare(view, Direction::In, access);                              // per tensor argument
///     map.find_producers(access, rt.retired(), deps);                        // every argument, then
///     TaskId id = rt.submit(spec, deps, true);
///     while (!map.try_record(access, id, rt.retired())) rt.wait_for_retirement(...);
class TensorMap {
  public:
    /// Access: one tensor argument in the map's normal form (its buffer, element set and row window),
    /// filled by prepare and read by find_producers and try_record, so a view is normalised once per
    /// submit. A plain value: copyable, no heap, 176 bytes.
    class Access {
      public:
        Access() = default;
        /// is_active: false for an untracked or empty view, which finds and records nothing.
        [[nodiscard]] bool is_active() const { return is_active_; }

      private:
        friend class TensorMap;
        alignas(8) std::byte storage_[168];
        bool is_active_ = false;
    };

    /// entry_capacity: most live entries (RuntimeConfig::tensormap_entries); a power of two in 64..2^26.
    /// Reserves about 540 bytes per entry (34 MiB at the default 2^16) but initialises entries on first
    /// use: construction costs a few microseconds whatever the capacity, and memory is touched only as
    /// entries are used. Throws InvalidConfig naming the knob otherwise.
    explicit TensorMap(std::uint32_t entry_capacity);
    ~TensorMap();
    TensorMap(const TensorMap&) = delete;
    TensorMap& operator=(const TensorMap&) = delete;

    /// prepare: normalises an access of `view` with `direction` into `out` (inactive for an untracked or
    /// empty view). Throws InvalidTensor for a tracked view of more than kMaxTensorDims dimensions.
    void prepare(const TensorView& view, Direction direction, Access& out) const;

    /// find_producers: appends to `out` the tasks the access must wait for: In -> overlapping writers
    /// (RAW); Out -> overlapping writers and readers (WAW, WAR); InOut -> both. Ignores entries of tasks
    /// that retired successfully (and drops those it meets), and, for a view with a creator (a buffer the
    /// runtime allocated), entries of tasks older than the creator (an earlier buffer at that address).
    /// Reports entries of retired tasks that failed or were cancelled like live ones. May append an id more
    /// than once, and may report a writer whose overlapping part a later write replaced only partly
    /// (conservative: the later writer depends on it anyway). Notes in `access` what the lookup saw, which
    /// lets try_record skip work. An inactive access finds nothing.
    void find_producers(Access& access, const RetiredTasks& retired, std::vector<TaskId>& out);

    /// try_record: records that `task` performs the access, after find_producers for it (and for the
    /// task's other accesses; without a lookup it is still correct, only slower). A write (Out, InOut)
    /// supersedes the entries it provably covers (view_covers), which the new entry stands in for; partly
    /// covered entries stay. Returns false, recording nothing, when no entry is free even after reclaiming
    /// entries of tasks that retired successfully; the caller then waits for retirement and retries. An
    /// inactive access records nothing and returns true. Throws InvalidArgument for an invalid `task`.
    bool try_record(const Access& access, TaskId task, const RetiredTasks& retired);

    /// prepare_and_find: prepare into `access`, then find_producers on it, in one call (the scope layer's
    /// lookup of each argument).
    void prepare_and_find(const TensorView& view, Direction direction, Access& access,
                          const RetiredTasks& retired, std::vector<TaskId>& out);

    /// try_record for the accesses accesses[i] whose bit i is set in `mask` (i < 32), in increasing i:
    /// all of one task's accesses in one call. Returns 0 when all are recorded, else the bits of those
    /// not recorded yet (the first of them found no free entry); the caller waits for retirement and
    /// calls again with that mask. Throws InvalidArgument for an invalid `task` when `mask` is not 0.
    std::uint32_t try_record(const Access* accesses, std::uint32_t mask, TaskId task,
                             const RetiredTasks& retired);

    /// find_producers / try_record on a view: prepare, then the call above (two normalisations when both
    /// are used for one access; the scope layer prepares once).
    void find_producers(const TensorView& view, Direction direction, const RetiredTasks& retired,
                        std::vector<TaskId>& out);
    bool try_record(const TensorView& view, Direction direction, TaskId task, const RetiredTasks& retired);

    /// clear: forgets every entry (at the end of a run). O(live entries), a few nanoseconds each.
    void clear();

    /// live_entries: entries in use, including those of retired tasks not yet reclaimed; superseded
    /// entries are freed at once and not counted.
    [[nodiscard]] std::uint32_t live_entries() const;
    [[nodiscard]] std::uint32_t capacity() const;

  private:
    struct Impl;
    static bool prepare_access(const TensorView& view, Direction direction, Access& out);
    std::unique_ptr<Impl> impl_;
};

}  // namespace pto
