// TaskHandle: copies out the tensors a submit allocated.
#include <cstring>
#include <string>

#include "pto/runtime/detail/throw.h"
#include "pto/scope/orchestration.h"

namespace pto {

TaskHandle& TaskHandle::operator=(const TaskHandle& other) {
    if (this == &other) return *this;
    id_ = other.id_;
    output_count_ = other.output_count_;
    std::memcpy(storage_, other.storage_, output_count_ * sizeof(TensorView));
    return *this;
}

void TaskHandle::assign(TaskId id, std::span<const TensorArg> args) {
    id_ = id;
    output_count_ = 0;
    for (const TensorArg& a : args)
        if (a.view.creator == id) new (outputs() + output_count_++) TensorView(a.view);
}

const TensorView& TaskHandle::output(std::uint32_t i) const {
    if (i >= output_count_) [[unlikely]]
        detail::throw_error(ErrorCode::InvalidArgument, "output(" + std::to_string(i) + ") of task " +
                                                            std::to_string(id_.value) + ", which allocated " +
                                                            std::to_string(output_count_) + " tensor(s)");
    return outputs()[i];
}

}  // namespace pto
