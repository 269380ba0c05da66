// pto::wait / pto::wait_for: data-dependent orchestration on the run open on this thread (the runtime does
// the waiting; see detail::TaskPort::wait_for).
#include "orchestrator_state.h"

namespace pto {

void wait_for(std::span<const TaskId> tasks) {
    detail::require_state("pto::wait_for").port.wait_for(tasks);
}

void wait(TaskId task) {
    detail::require_state("pto::wait").port.wait_for(std::span<const TaskId>(&task, 1));
}

void wait(const TaskHandle& task) {
    wait(task.task_id());
}

}  // namespace pto
