// GraphRecord lookups and counts.
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
    scopes.clear();
    instances.clear();
    waits.clear();
    kernels.clear();
}

GraphCounts count_graph(const GraphRecord& graph) {
    GraphCounts c;
    for (const RecordedTask& t : graph.tasks) {
        const bool is_kernel = t.kind == TaskKind::Kernel;
        if (is_kernel) {
            ++c.kernel_tasks;
            c.subtasks += t.block_num;
        } else {
            ++c.framework_tasks;
        }
        for (TaskId p : graph.producers_of(t)) {  // distinct per task (GraphRecord's contract)
            const std::int64_t i = graph.index_of(p);
            const bool kernel_pair =
                is_kernel && i >= 0 && graph.tasks[static_cast<std::size_t>(i)].kind == TaskKind::Kernel;
            ++(kernel_pair ? c.kernel_edges : c.framework_edges);
        }
    }
    return c;
}

}  // namespace pto

namespace pto {

const char* to_string(AicpuActivity a) {
    switch (a) {
        case AicpuActivity::Submit:
            return "submit";
        case AicpuActivity::SubmitInstance:
            return "instance";
        case AicpuActivity::WindowWait:
            return "window wait";
        case AicpuActivity::EdgeWait:
            return "edge wait";
        case AicpuActivity::ArgumentWait:
            return "argument wait";
        case AicpuActivity::HeapWait:
            return "heap wait";
        case AicpuActivity::Complete:
            return "complete";
        case AicpuActivity::Dispatch:
            return "dispatch";
        case AicpuActivity::TaskWait:
            return "task wait";
    }
    return "?";
}

}  // namespace pto
