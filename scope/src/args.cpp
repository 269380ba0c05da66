// Args builder operations that are not worth inlining.
#include "pto/scope/args.h"

#include <cstring>
#include <string>

#include "pto/runtime/detail/throw.h"

namespace pto {

Args& Args::operator=(const Args& other) {
    if (this == &other) return *this;
    tensor_count_ = other.tensor_count_;
    scalar_count_ = other.scalar_count_;
    block_num_ = other.block_num_;
    dep_count_ = other.dep_count_;
    requested_tensors_ = other.requested_tensors_;
    null_view_ = other.null_view_;
    null_deps_ = other.null_deps_;
    deps_set_ = other.deps_set_;
    deps_twice_ = other.deps_twice_;
    too_many_ = other.too_many_;
    after_overflow_ = other.after_overflow_;
    after_count_ = other.after_count_;
    created_ = other.created_;
    deps_ = other.deps_;
    std::memcpy(after_storage_, other.after_storage_, after_count_ * sizeof(TaskId));
    std::memcpy(tensor_storage_, other.tensor_storage_, tensor_count_ * sizeof(TensorArg));
    std::memcpy(scalars_, other.scalars_, scalar_count_ * sizeof(std::uint64_t));
    return *this;
}

void Args::throw_bad_slice(const TensorView& view, std::initializer_list<Slice> slices) const {
    detail::throw_error(ErrorCode::InvalidTensor, "Args: tensor argument " + std::to_string(tensor_count_) +
                                                      ": " + detail::describe_bad_slice(view, slices));
}

Args& Args::output(const TensorCreateInfo& info) {
    ++requested_tensors_;
    if (tensor_count_ == kMaxTensorArgs) [[unlikely]] {
        too_many_ = true;
        return *this;
    }
    // Built in place: a create-info is a row-major view whose buffer the runtime allocates at submission.
    ++created_;
    TensorArg* a = new (tensor_data() + tensor_count_++) TensorArg;
    a->direction = Direction::Out;
    detail::write_created_view(a->view, info, nullptr, TaskId{});
    return *this;
}

Args& Args::set_dependencies(const TaskId* ids, std::uint32_t n) {
    if (n == 0) {
        deps_ = nullptr;
        dep_count_ = 0;
        deps_set_ = false;
        null_deps_ = false;
        return *this;
    }
    if (ids == nullptr) [[unlikely]] {
        // Kept as an error for the submit (the builder cannot throw a task-naming error itself).
        null_deps_ = true;
        deps_ = nullptr;
        dep_count_ = 0;
        deps_set_ = true;
        return *this;
    }
    if (deps_set_) deps_twice_ = true;
    deps_set_ = true;
    deps_ = ids;
    dep_count_ = n;
    return *this;
}

}  // namespace pto
