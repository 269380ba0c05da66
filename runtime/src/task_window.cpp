// TaskWindow's cold paths: starting a run, releasing scope holds, counting them for a diagnosis.
#include "task_window.h"

#include <algorithm>

namespace pto::detail {

TaskWindow::TaskWindow(std::uint32_t window_tasks)
    : map_(window_tasks), books_(std::make_unique<Book[]>(window_tasks)) {}

void TaskWindow::start_run() {
    run_first_id_ = next_id_;
    retired_before_ = next_id_;
    unsuccessful_.clear();
    submits_published_.store(0, std::memory_order_relaxed);
    retired_published_.store(next_id_, std::memory_order_relaxed);
}

void TaskWindow::release_scope(std::uint64_t begin, std::uint64_t end) {
    const std::uint64_t from = std::max(begin, retired_before_);
    const std::uint64_t to = std::min(end, next_id_);
    for (std::uint64_t id = from; id < to; ++id)
        books_[slot_of(id)].scope_held = false;
}

std::uint64_t TaskWindow::scope_held_count() const {
    std::uint64_t held = 0;
    for (std::uint64_t id = retired_before_; id < next_id_; ++id)
        held += books_[slot_of(id)].scope_held ? 1u : 0u;
    return held;
}

}  // namespace pto::detail
