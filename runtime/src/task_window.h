// TaskWindow: the bounded window of live task ids over the slot array. It owns which ids are live (the
// run's first id, the next id, the retirement watermark), the id -> slot mapping, each live task's
// retirement marks and scope hold, the list of this run's retired tasks that did not succeed, and in-order
// retirement. Orchestrator thread only, except the two published counters the watchdog and the scope layer
// read.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "pto/runtime/ids.h"
#include "slot_map.h"
#include "task_table.h"

namespace pto::detail {

/// RingMarks: where the edge pool, the heap ring and the argument ring stood after one task's
/// allocations; retiring the task frees each ring up to its mark.
struct RingMarks {
    std::uint64_t edge_end = 0;
    std::uint64_t heap_end = 0;
    std::uint64_t args_end = 0;
};

class TaskWindow {
  public:
    explicit TaskWindow(std::uint32_t window_tasks);

    // ---- Ids and slots

    [[nodiscard]] std::uint32_t slot_of(std::uint64_t id) const { return map_.slot_of(id); }
    [[nodiscard]] const SlotMap& map() const { return map_; }
    [[nodiscard]] std::uint64_t next_id() const { return next_id_; }
    [[nodiscard]] std::uint64_t run_first_id() const { return run_first_id_; }
    /// retired_before: every task below it has retired (the watermark).
    [[nodiscard]] std::uint64_t retired_before() const { return retired_before_; }
    /// submitted: tasks submitted in this run.
    [[nodiscard]] std::uint64_t submitted() const { return next_id_ - run_first_id_; }
    [[nodiscard]] bool all_retired() const { return retired_before_ == next_id_; }
    /// has_room: `tasks` more ids fit without reusing a slot of an unretired task.
    [[nodiscard]] bool has_room(std::uint64_t tasks) const {
        return next_id_ + tasks - retired_before_ <= map_.window_tasks();
    }
    /// slot_is_free_for: no unretired task holds the slot task `id` (not yet submitted) will take.
    [[nodiscard]] bool slot_is_free_for(std::uint64_t id) const {
        return id - retired_before_ < map_.window_tasks();
    }

    /// start_run: the next id opens a run; every earlier task retired.
    void start_run();

    // ---- Submission

    /// open_slot: task `slot` is being written; `scoped`: an open scope holds it until release_scope.
    void open_slot(std::uint32_t slot, bool scoped) { books_[slot].scope_held = scoped; }
    /// set_marks: the ring marks task `slot` frees when it retires.
    void set_marks(std::uint32_t slot, const RingMarks& marks) { books_[slot].marks = marks; }
    /// commit: the next `count` ids are submitted (their slots written).
    void commit(std::uint64_t count) { next_id_ += count; }
    /// publish_submitted: tells the watchdog how many tasks this run submitted (relaxed store).
    void publish_submitted() {
        submits_published_.store(next_id_ - run_first_id_, std::memory_order_relaxed);
    }

    // ---- Scope holds
    //
    // A scope's hold is orchestrator-private (see "The link word" in task_slot.h): releasing it is a plain
    // store, and retire() retires what it unblocked the next time it runs.

    /// release_scope: drops the scope hold of the unretired tasks in [begin, end).
    void release_scope(std::uint64_t begin, std::uint64_t end);
    /// release_all_scopes: drops every scope hold (holds an orchestration function left behind).
    void release_all_scopes() { release_scope(retired_before_, next_id_); }
    [[nodiscard]] bool is_scope_held(std::uint64_t id) const { return books_[slot_of(id)].scope_held; }
    /// scope_held_count: unretired tasks an open scope still holds (for diagnoses; walks the window).
    [[nodiscard]] std::uint64_t scope_held_count() const;

    // ---- Retirement

    /// retire: retires, in id order, every task at the head of the window that no scope holds and whose
    /// link word holds no reference, calling free_rings(marks) for each so the rings free its room;
    /// returns the new watermark. A task that failed or was cancelled is remembered (retired()).
    template <class FreeRings>
    std::uint64_t retire(const TaskTable& tasks, FreeRings&& free_rings) {
        while (retired_before_ < next_id_) {
            const std::uint32_t slot = slot_of(retired_before_);
            // Acquire pairs with the last drop_reference (seq_cst RMW): every thread is done with the slot.
            if (books_[slot].scope_held || link_refs(tasks[slot].link.load(std::memory_order_acquire)) != 0)
                break;
            if (tasks[slot].outcome.load(std::memory_order_relaxed) != Outcome::Ok) [[unlikely]]
                unsuccessful_.push_back(TaskId{retired_before_});  // in id order: sorted
            free_rings(books_[slot].marks);
            ++retired_before_;
        }
        retired_published_.store(retired_before_, std::memory_order_relaxed);
        return retired_before_;
    }
    /// retired: the watermark and this run's retired tasks that failed or were cancelled.
    [[nodiscard]] RetiredTasks retired() const {
        return RetiredTasks{TaskId{retired_before_}, unsuccessful_};
    }

    // ---- Published for other threads (relaxed)

    [[nodiscard]] const std::atomic<std::uint64_t>& retirement_counter() const { return retired_published_; }
    [[nodiscard]] std::uint64_t published_submitted() const {
        return submits_published_.load(std::memory_order_relaxed);
    }
    [[nodiscard]] std::uint64_t published_retired() const {
        return retired_published_.load(std::memory_order_relaxed);
    }

  private:
    /// Book: what the window keeps per slot for retirement (never read by other threads).
    struct Book {
        RingMarks marks;
        bool scope_held = false;  // an open scope still holds this task
    };

    SlotMap map_;
    std::unique_ptr<Book[]> books_;
    std::uint64_t next_id_ = 0;
    std::uint64_t run_first_id_ = 0;
    std::uint64_t retired_before_ = 0;
    std::vector<TaskId> unsuccessful_;  // this run's failed or cancelled tasks that retired, ascending
    std::atomic<std::uint64_t> submits_published_{0};  // stored after each submit
    std::atomic<std::uint64_t> retired_published_{0};  // retired_before_, stored by retire()

  public:
    /// kBytesPerSlot: what the window allocates per slot (for the out-of-memory diagnosis).
    static constexpr std::size_t kBytesPerSlot = sizeof(Book);
};

}  // namespace pto::detail
