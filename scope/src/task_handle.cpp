// TaskHandle: a task id and a reference to the arguments the runtime keeps for it.
#include <string>

#include "pto/runtime/detail/throw.h"
#include "pto/scope/orchestration.h"

namespace pto {

const TensorView& TaskHandle::find_output(std::uint32_t i) const {
    if (i >= output_count_) [[unlikely]]
        detail::throw_error(ErrorCode::InvalidArgument, "output(" + std::to_string(i) + ") of task " +
                                                            std::to_string(id_.value) + ", which allocated " +
                                                            std::to_string(output_count_) + " tensor(s)");
    // The runtime recycles a task's argument record once the task retires.
    if (retired_->load(std::memory_order_relaxed) > id_.value) [[unlikely]]
        detail::throw_error(
            ErrorCode::InvalidArgument,
            "output(" + std::to_string(i) + ") of task " + std::to_string(id_.value) +
                ", which has retired: its buffers were freed and its arguments are gone. Read "
                "a handle's outputs while the scope that submitted the task is open");
    if (output_count_ == tensor_count_) return tensors_[i].view;  // alloc_tensors: every argument is one
    std::uint32_t seen = 0;
    for (std::uint32_t k = 0; k < tensor_count_; ++k) {
        const TensorView& v = tensors_[k].view;
        if (v.creator == id_ && seen++ == i) return v;
    }
    detail::throw_error(ErrorCode::InvalidArgument, "output(" + std::to_string(i) + ") of task " +
                                                        std::to_string(id_.value) +
                                                        ": the runtime kept no such tensor");
}

}  // namespace pto
