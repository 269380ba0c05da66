// Refusing task-level calls from the runtime's own threads (see run_phase.h for the thread-local marks).
#include "run_phase.h"

#include <string>

#include "pto/runtime/detail/throw.h"

namespace pto::detail {

void check_not_reentrant(const char* call) {
    if (t_runtime_thread == nullptr) [[likely]]
        return;
    throw_error(ErrorCode::ReentrantCall,
                std::string(call) + " called from " + t_runtime_thread +
                    ": kernels and scheduler threads must not call the task-level API (it would wait on the "
                    "run that is calling it); submit follow-up work from the orchestration function");
}

}  // namespace pto::detail
