// GraphBuilder: hand-made GraphRecords for the virtual-time model and exporter tests
// (docs/design/virtual-time-model.md), so each test states its graph in a few lines instead of running the
// runtime.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pto/runtime/graph.h"
#include "pto/runtime/simulate.h"

namespace pto::test {

class GraphBuilder {
  public:
    explicit GraphBuilder(std::uint64_t first_id = 0) : next_id_(first_id) {}

    /// kernel: registers a kernel with a mean duration; returns its FuncId.
    FuncId kernel(const std::string& name, double duration_us) {
        const FuncId f{static_cast<std::uint16_t>(graph_.kernels.size())};
        graph_.kernels.push_back(KernelSummary{f, name, duration_us});
        return f;
    }
    /// task: appends a kernel task (MIX runs `f` on every lane) depending on `deps`; returns its id.
    TaskId task(CoreType core, FuncId f, std::uint32_t block_num = 1, const std::vector<TaskId>& deps = {}) {
        const FuncId lane = core == CoreType::MIX ? f : FuncId{};
        return add(TaskKind::Kernel, core, f, lane, lane, block_num, deps);
    }
    TaskId mix(FuncId aic, FuncId aiv0, FuncId aiv1, std::uint32_t block_num = 1,
               const std::vector<TaskId>& deps = {}) {
        return add(TaskKind::Kernel, CoreType::MIX, aic, aiv0, aiv1, block_num, deps);
    }
    TaskId dependency_only(const std::vector<TaskId>& deps) {
        return add(TaskKind::DependencyOnly, CoreType::None, FuncId{}, FuncId{}, FuncId{}, 1, deps);
    }
    TaskId alloc() { return add(TaskKind::Alloc, CoreType::None, FuncId{}, FuncId{}, FuncId{}, 1, {}); }

    [[nodiscard]] const GraphRecord& graph() const { return graph_; }

  private:
    TaskId add(TaskKind kind, CoreType core, FuncId f0, FuncId f1, FuncId f2, std::uint32_t block_num,
               const std::vector<TaskId>& deps) {
        RecordedTask& t = graph_.tasks.emplace_back();
        t.id = TaskId{next_id_++};
        t.kind = kind;
        t.core = core;
        t.funcs[0] = f0;
        t.funcs[1] = f1;
        t.funcs[2] = f2;
        t.block_num = block_num;
        t.first_producer = static_cast<std::uint32_t>(graph_.producers.size());
        for (TaskId d : deps)
            graph_.producers.push_back(d);
        t.producer_count = static_cast<std::uint32_t>(graph_.producers.size()) - t.first_producer;
        return t.id;
    }

    GraphRecord graph_;
    std::uint64_t next_id_;
};

/// free_config: a machine of `clusters` clusters and `threads` schedulers where every AICPU cost is 0, so
/// tests turn on exactly the costs they reason about.
inline SimConfig free_config(std::uint32_t clusters, std::uint32_t threads) {
    SimConfig c;
    c.machine.cluster_count = clusters;
    c.machine.scheduler_threads = threads;
    c.cost = without_aicpu_costs(c.cost);
    return c;
}

/// records_of: the timeline records of task `id`, in timeline order.
inline std::vector<SubtaskRecord> records_of(const SimReport& r, TaskId id) {
    std::vector<SubtaskRecord> out;
    for (const SubtaskRecord& s : r.timeline)
        if (s.task == id) out.push_back(s);
    return out;
}

/// us: microseconds as the model's integer nanoseconds, rounded.
constexpr std::int64_t us(double v) {
    return static_cast<std::int64_t>(v * 1000.0 + 0.5);
}

}  // namespace pto::test
