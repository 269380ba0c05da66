// What a submit needs before anything changes: heap bytes for its create-info outputs and argument-ring bytes
// for the arguments the runtime keeps. Shared by submit (submit.cpp) and the checks of a whole template
// instance (instance_validation.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>

#include "arg_ring.h"
#include "heap_ring.h"
#include "pto/runtime/task_desc.h"

namespace pto::detail {

inline std::uint64_t aligned_bytes(std::uint64_t bytes) {
    const std::uint64_t a = HeapRing::kAlignment;
    return std::max<std::uint64_t>(a, (bytes + a - 1) & ~(a - 1));
}

/// shape_bytes: bytes of a dense `shape` of `ndim` dimensions, saturated at 2^48 (more than any heap ring
/// holds), so an absurd shape is rejected as larger than the heap instead of wrapping around to a small size.
inline std::uint64_t shape_bytes(DataType dtype, std::uint32_t ndim, const std::uint32_t* shape) {
    constexpr std::uint64_t kSaturated = 1ull << 48;
    std::uint64_t bytes = size_of(dtype);
    for (std::uint32_t d = 0; d < ndim && d < kMaxTensorDims; ++d) {
        // Overflow test by multiplication, not division: this runs per create-info on the submit path.
        if (__builtin_mul_overflow(bytes, std::uint64_t{shape[d]}, &bytes) || bytes > kSaturated)
            return kSaturated;
    }
    return bytes;
}

/// create_info_bytes: bytes of a create-info output (a view without a buffer yet).
inline std::uint64_t create_info_bytes(const TensorView& v) {
    return shape_bytes(v.dtype, v.ndim, v.shape);
}
inline std::uint64_t create_info_bytes(const TensorCreateInfo& info) {
    return shape_bytes(info.dtype, info.ndim, info.shape);
}

/// keeps_arguments: whether the task's arguments go to the argument ring: kernels read them back (the compute
/// executor), and a task that allocates outputs keeps them so its handle can hand the new views out.
inline bool keeps_arguments(const TaskSpec& spec) {
    if (spec.kind == TaskKind::Kernel) return true;
    for (const TensorArg& a : spec.tensors)
        if (a.view.base == nullptr) return true;
    return false;
}

/// argument_bytes: argument-ring room to reserve for `spec`.
inline std::uint64_t argument_bytes(const TaskSpec& spec) {
    if (!keeps_arguments(spec)) return 0;
    return ArgRing::reserve_bytes(ArgRecord::bytes_for(spec.tensors.size(), spec.scalars.size()));
}

/// HeapNeed: bytes a set of create-info outputs needs. Buffers never wrap, so carving them may skip the
/// ring's tail once, wasting less than the largest buffer: reserving total + largest always suffices.
struct HeapNeed {
    std::uint64_t total = 0;
    std::uint64_t largest = 0;
    void add_buffer(std::uint64_t bytes) {
        const std::uint64_t b = aligned_bytes(bytes);
        total += b;
        largest = std::max(largest, b);
    }
    [[nodiscard]] std::uint64_t reserve_bytes() const { return total == 0 ? 0 : total + largest; }
};

}  // namespace pto::detail
