// GraphRecord lookups.
#include "pto/runtime/graph.h"

namespace pto {

const KernelSummary* GraphRecord::kernel(FuncId f) const {
    for (const KernelSummary& k : kernels)
        if (k.id == f) return &k;
    return nullptr;
}

std::int64_t GraphRecord::index_of(TaskId id) const {
    if (tasks.empty() || id < tasks.front().id) return -1;
    const std::uint64_t i = id.value - tasks.front().id.value;
    return i < tasks.size() && tasks[i].id == id ? static_cast<std::int64_t>(i) : -1;
}

void GraphRecord::clear() {
    tasks.clear();
    producers.clear();
    kernels.clear();
}

}  // namespace pto
