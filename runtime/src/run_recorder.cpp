// RunRecorder's out-of-line parts (see run_recorder.h).
#include "run_recorder.h"

#include <algorithm>

namespace pto::detail {

void RunRecorder::start_run() {
    graph_.clear();
    subtasks_.clear();
    aicpu_.clear();
}

void RunRecorder::record_task(const TaskSpec& spec, TaskId id, std::span<const TaskId> producers) {
    RecordedTask& r = graph_.tasks.emplace_back();
    r.id = id;
    r.kind = spec.kind;
    r.core = spec.core;
    for (int i = 0; i < 3; ++i)
        r.funcs[i] = spec.funcs[i];
    r.block_num = spec.block_num;
    r.first_producer = static_cast<std::uint32_t>(graph_.producers.size());
    producer_scratch_.assign(producers.begin(), producers.end());
    std::sort(producer_scratch_.begin(), producer_scratch_.end());
    producer_scratch_.erase(std::unique(producer_scratch_.begin(), producer_scratch_.end()),
                            producer_scratch_.end());
    graph_.producers.insert(graph_.producers.end(), producer_scratch_.begin(), producer_scratch_.end());
    r.producer_count = static_cast<std::uint32_t>(producer_scratch_.size());
}

void RunRecorder::record_instance_node(const InstanceNode& n, TaskId id) {
    instance_scratch_.clear();
    for (std::uint32_t d : n.producer_offsets)
        instance_scratch_.push_back(TaskId{id.value - d});
    instance_scratch_.insert(instance_scratch_.end(), n.external_producers.begin(),
                             n.external_producers.end());
    record_task(n.spec, id, instance_scratch_);
}

void RunRecorder::kernels(const std::vector<KernelInfo>& table) {
    if (!graph_on_) return;
    graph_.kernels.clear();
    for (std::size_t f = 0; f < table.size(); ++f)
        if (!table[f].name.empty())
            graph_.kernels.push_back(
                KernelSummary{FuncId{static_cast<std::uint16_t>(f)}, table[f].name, table[f].duration_us});
}

void RunRecorder::append(std::span<const SubtaskRecord> subtasks, std::span<const AicpuRecord> aicpu) {
    if (!timelines_on_) return;
    subtasks_.insert(subtasks_.end(), subtasks.begin(), subtasks.end());
    aicpu_.insert(aicpu_.end(), aicpu.begin(), aicpu.end());
}

void RunRecorder::finish_timelines() {
    std::sort(subtasks_.begin(), subtasks_.end(),
              [](const SubtaskRecord& a, const SubtaskRecord& b) { return a.dispatch_ns < b.dispatch_ns; });
}

}  // namespace pto::detail
