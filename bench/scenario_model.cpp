// The virtual-time model's part of a scenario: the probe's graph replayed with the chosen profile, as the
// result's "sim" object, plus --sim-trace and the model's --kernel-stats.
#include <iostream>

#include "pto/runtime/export.h"
#include "pto/runtime/simulate.h"
#include "scenario_run.h"

namespace pto::bench {
namespace {

nlohmann::json sim_json(const SimReport& s, const CostModel& cost) {
    return {{"makespan_us", s.makespan_us},
            {"lower_bound_us", s.lower_bound_us},
            {"lower_bounds_us",
             {{"critical_path", s.bounds.critical_path_us},
              {"aic_work", s.bounds.aic_work_us},
              {"aiv_work", s.bounds.aiv_work_us},
              {"orchestration", s.bounds.orchestration_us},
              {"orchestration_path", s.bounds.orchestration_path_us}}},
            {"utilisation_pct", {{"aic", 100.0 * s.utilisation_aic}, {"aiv", 100.0 * s.utilisation_aiv}}},
            {"overhead_pct",
             {{"aic", 100.0 * s.overhead.aic},
              {"aiv", 100.0 * s.overhead.aiv},
              {"mix", 100.0 * s.overhead.mix},
              {"all", 100.0 * s.overhead.all},
              {"has", 100.0 * s.overhead.has}}},
            {"orch_busy_us", s.orch_busy_us},
            {"sched_busy_us", s.sched_busy_us},
            {"submit_us", cost.submit_us}};
}

void export_sim_trace(const ScenarioRun& run, const SimReport& report, const SimConfig& sim) {
    const BenchOptions& o = run.options;
    TraceExtras extras = report.trace;
    extras.dependency_arrows = true;
    extras.kernel_counters = true;
    extras.notes.emplace_back("source", "virtual-time model");
    write_file(o, file_for(o.sim_trace_path, run.scenario, o.several_scenarios),
               "simulated trace of " + run.scenario.id, [&](std::ostream& out) {
                   write_perfetto_trace(out, run.probe.graph, report.timeline, sim.machine, extras);
               });
}

}  // namespace

nlohmann::json model_json(const ScenarioRun& run, double orchestration_median_ns) {
    const BenchOptions& o = run.options;
    const GraphRecord& graph = run.probe.graph;
    SimConfig sim = sim_config_for(o.sim, graph, run.probe.stats, orchestration_median_ns);
    sim.record_trace = !o.sim_trace_path.empty();
    const SimReport report = simulate(graph, sim);
    nlohmann::json out = sim_json(report, sim.cost);
    out.update(sim_settings_json(o.sim, sim));
    out.update(sim_extra_json(report, device_orchestration_cost(graph, sim, report)));
    if (!o.sim_trace_path.empty()) export_sim_trace(run, report, sim);
    if (o.kernel_stats) {
        std::cout << "\n" << run.scenario.id << ": simulated per-kernel timing (us)\n";
        write_timing_table(std::cout, timing_by_kernel(graph, report.timeline));
        write_timing_table(std::cout, timing_by_core_type(report.timeline));
    }
    return out;
}

}  // namespace pto::bench
