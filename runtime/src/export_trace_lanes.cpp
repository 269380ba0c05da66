// run_trace_extras: a real run's AICPU records as the trace tracks the virtual-time model writes (one
// orchestrator track, one per scheduler thread, the same slice names), so the two traces open side by side.
#include <string>

#include "kernel_names.h"
#include "pto/runtime/export.h"

namespace pto {

const char* instant_executor_warning() {
    return "the instant executor completes every kernel the moment it is dispatched, so kernel slices last "
           "0 us and kernel statistics are zeros; run with the timed executor (modelled durations) or the "
           "compute executor (the real kernels) to see kernel time";
}

TraceExtras run_trace_extras(const GraphRecord& graph, std::span<const AicpuRecord> aicpu,
                             const RuntimeConfig& config) {
    TraceExtras extras;
    extras.tracks.push_back("orchestrator");
    for (std::uint32_t k = 0; k < config.scheduler_threads; ++k)
        extras.tracks.push_back("scheduler " + std::to_string(k));
    const detail::KernelNames name_of(graph);
    extras.slices.reserve(aicpu.size());
    for (const AicpuRecord& r : aicpu) {
        if (r.thread >= extras.tracks.size()) continue;  // a record of a thread this machine does not have
        std::string name;
        if (r.what == AicpuActivity::Submit) {
            const std::int64_t i = graph.index_of(r.task);
            if (i < 0)
                name = "submit";
            else if (const RecordedTask& t = graph.tasks[static_cast<std::size_t>(i)];
                     t.kind == TaskKind::Alloc)
                name = "alloc";
            else if (t.kind == TaskKind::DependencyOnly)
                name = "dependency-only";
            else
                name = name_of(t.funcs[0]);
        } else if (r.what == AicpuActivity::SubmitInstance) {
            name = "instance of " + std::to_string(r.count);
        } else {
            name = to_string(r.what);
        }
        extras.slices.push_back(TraceSlice{r.thread, std::move(name), r.start_ns, r.end_ns,
                                           r.what == AicpuActivity::Submit ? r.task : TaskId{}});
    }
    extras.dependency_arrows = true;
    extras.kernel_counters = true;
    extras.notes.emplace_back("source", "recorded run");
    extras.notes.emplace_back("executor", to_string(config.executor));
    if (config.executor == Executor::Instant)
        extras.notes.emplace_back("warning", instant_executor_warning());
    return extras;
}

}  // namespace pto
