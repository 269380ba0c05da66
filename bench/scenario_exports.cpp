// The files one scenario writes besides the report: a trace of a real run (--trace, and --kernel-stats of
// that run), the recorded graph as DOT (--dot) and its kernel-level summary (--dot-summary).
#include <fstream>
#include <iostream>

#include "pto/runtime/detail/throw.h"
#include "pto/runtime/export.h"
#include "pto/scope/orchestration.h"
#include "scenario_run.h"

namespace pto::bench {
namespace {

/// export_trace: one more concurrent run, recording subtasks and the graph, as a Perfetto trace.
void export_trace(const ScenarioRun& run) {
    const BenchOptions& o = run.options;
    const Scenario& scenario = run.scenario;
    RuntimeConfig traced = run.concurrent;
    traced.record_subtasks = true;
    traced.record_graph = true;
    Runtime rt(traced);
    run.workload.register_kernels(rt);
    run.workload.prepare_run();
    pto::run(rt, run.body);
    const TraceExtras lanes = run_trace_extras(rt.graph(), rt.aicpu_records(), traced);
    write_file(
        o, file_for(o.trace_path, scenario, o.several_scenarios), "trace of " + scenario.id,
        [&](std::ostream& out) { write_perfetto_trace(out, rt.graph(), rt.subtasks(), traced, lanes); });
    if (o.executor == Executor::Instant)
        std::cerr << o.program << ": warning: " << scenario.id << ": " << instant_executor_warning() << '\n';
    if (o.kernel_stats) {
        std::cout << "\n"
                  << scenario.id << ": recorded per-kernel timing of the traced run (us, "
                  << to_string(o.executor) << " executor)\n";
        write_timing_table(std::cout, timing_by_kernel(rt.graph(), rt.subtasks()));
        write_timing_table(std::cout, timing_by_core_type(rt.subtasks()));
    }
}

/// export_dot: the probe's graph task by task, refused beyond kMaxDotTasks.
void export_dot(const ScenarioRun& run) {
    const BenchOptions& o = run.options;
    const Scenario& scenario = run.scenario;
    const GraphRecord& graph = run.probe.graph;
    write_file(o, file_for(o.dot_path, scenario, o.several_scenarios), "task graph of " + scenario.id,
               [&](std::ostream& out) {
                   if (graph.tasks.size() > kMaxDotTasks)
                       detail::throw_error(ErrorCode::InvalidArgument,
                                           scenario.id + " has " + std::to_string(graph.tasks.size()) +
                                               " tasks, more than --dot draws (" +
                                               std::to_string(kMaxDotTasks) +
                                               "); use --dot-summary for the kernel-level graph");
                   write_graph_dot(out, graph);
               });
}

}  // namespace

void write_file(const BenchOptions& o, const std::string& path, const std::string& what,
                const std::function<void(std::ostream&)>& write) {
    if (o.write_output) {
        o.write_output(path, what, write);
        return;
    }
    std::ofstream out(path);
    write(out);
    if (!out) detail::throw_error(ErrorCode::InvalidArgument, "cannot write " + path);
}

void export_files(const ScenarioRun& run) {
    const BenchOptions& o = run.options;
    if (!o.trace_path.empty()) export_trace(run);
    if (!o.dot_path.empty()) export_dot(run);
    if (!o.dot_summary_path.empty())
        write_file(o, file_for(o.dot_summary_path, run.scenario, o.several_scenarios),
                   "kernel-level graph of " + run.scenario.id,
                   [&](std::ostream& out) { write_graph_dot_summary(out, run.probe.graph); });
}

}  // namespace pto::bench
