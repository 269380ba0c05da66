// Profiled runs (see profile.h).
#include "profile.h"

#include <cstdio>
#include <string>
#include <vector>

#include "measure.h"
#include "pto/scope/orchestration.h"

namespace pto::bench {
namespace {

struct Phase {
    const char* name;
    std::int64_t OrchestratorStats::*ns;
};

constexpr Phase kPhases[] = {
    {"arg_copy", &OrchestratorStats::arg_copy_ns},     {"ring_alloc", &OrchestratorStats::ring_alloc_ns},
    {"dep_lookup", &OrchestratorStats::dep_lookup_ns}, {"insert", &OrchestratorStats::insert_ns},
    {"fanin", &OrchestratorStats::fanin_ns},           {"scope_end", &OrchestratorStats::scope_end_ns}};

double per_task(double ns, std::uint64_t tasks) {
    return tasks == 0 ? 0.0 : ns / static_cast<double>(tasks);
}

}  // namespace

nlohmann::json profile_runs(Workload& workload, const std::function<void()>& body, RuntimeConfig serial,
                            RuntimeConfig concurrent, std::uint32_t runs) {
    nlohmann::json out = {{"runs", runs}};
    {
        serial.profile_orchestrator = true;
        Runtime rt(serial);
        workload.register_kernels(rt);
        Orchestrator orchestrator(rt);
        std::vector<std::vector<double>> phases(std::size(kPhases) + 1);
        for (std::uint32_t i = 0; i < runs + 1; ++i) {
            workload.prepare_run();
            const RunReport r = orchestrator.run(body);
            if (i == 0) continue;  // warm-up
            std::int64_t sum = 0;
            for (std::size_t k = 0; k < std::size(kPhases); ++k) {
                const std::int64_t ns = r.orchestrator.*kPhases[k].ns;
                sum += ns;
                phases[k].push_back(per_task(static_cast<double>(ns), r.kernel_tasks));
            }
            phases.back().push_back(per_task(static_cast<double>(r.orchestration_ns - sum), r.kernel_tasks));
        }
        nlohmann::json ns = nlohmann::json::object();
        for (std::size_t k = 0; k < std::size(kPhases); ++k)
            ns[kPhases[k].name] = summarize(phases[k]).to_json();
        ns["other"] = summarize(phases.back()).to_json();
        out["orchestrator_ns_per_task"] = std::move(ns);
    }
    {
        concurrent.profile_orchestrator = true;
        Runtime rt(concurrent);
        workload.register_kernels(rt);
        Orchestrator orchestrator(rt);
        SchedulerStats total;
        std::uint64_t tasks = 0;
        for (std::uint32_t i = 0; i < runs; ++i) {
            workload.prepare_run();
            const RunReport r = orchestrator.run(body);
            tasks += r.kernel_tasks;
            for (const SchedulerStats& s : r.schedulers) {
                total.loops += s.loops;
                total.busy_loops += s.busy_loops;
                total.tasks_completed += s.tasks_completed;
                total.parks += s.parks;
                total.batch_waits += s.batch_waits;
                total.awake_at_run_start += s.awake_at_run_start;
                total.orchestrator_loops += s.orchestrator_loops;
                total.complete_ns += s.complete_ns;
                total.dispatch_ns += s.dispatch_ns;
                total.idle_ns += s.idle_ns;
            }
        }
        out["schedulers"] = {
            {"threads", concurrent.scheduler_threads},
            {"loops_per_task", per_task(static_cast<double>(total.loops), tasks)},
            {"busy_loop_pct", total.loops == 0 ? 0.0
                                               : 100.0 * static_cast<double>(total.busy_loops) /
                                                     static_cast<double>(total.loops)},
            {"tasks_per_busy_loop", total.tasks_per_busy_loop()},
            {"parks_per_run", runs == 0 ? 0.0 : static_cast<double>(total.parks) / runs},
            {"batch_waits_per_run", runs == 0 ? 0.0 : static_cast<double>(total.batch_waits) / runs},
            {"awake_at_start_pct",
             runs == 0 ? 0.0 : 100.0 * static_cast<double>(total.awake_at_run_start) / runs},
            {"orchestrator_loop_pct",
             total.loops == 0
                 ? 0.0
                 : 100.0 * static_cast<double>(total.orchestrator_loops) / static_cast<double>(total.loops)},
            {"complete_ns_per_task", per_task(static_cast<double>(total.complete_ns), tasks)},
            {"dispatch_ns_per_task", per_task(static_cast<double>(total.dispatch_ns), tasks)},
            {"idle_ns_per_task", per_task(static_cast<double>(total.idle_ns), tasks)}};
    }
    return out;
}

void print_profile_table(std::ostream& out, const nlohmann::json& report) {
    bool any = false;
    for (const nlohmann::json& r : report.at("results"))
        any |= r.contains("profile");
    if (!any) return;
    const auto cell = [](const nlohmann::json& v, int width, int decimals) {
        char buffer[48];
        if (v.is_number())
            std::snprintf(buffer, sizeof buffer, "%*.*f", width, decimals, v.get<double>());
        else
            std::snprintf(buffer, sizeof buffer, "%*s", width, "-");
        return std::string(buffer);
    };
    out << "\norchestrator phases (ns per launch, median of the profiled runs) and scheduler loops\n";
    char header[256];
    std::snprintf(header, sizeof header,
                  "%-16s  %-17s  %-9s  %7s  %7s  %7s  %7s  %7s  %7s  %7s  %10s  %6s  %9s  %9s  %9s  %7s  %6s",
                  "case", "mode", "tier", "copy", "ring", "lookup", "insert", "fanin", "scope", "other",
                  "loops/task", "busy%", "tasks/bl", "parks/run", "waits/run", "awake%", "orch%");
    out << header << '\n';
    for (const nlohmann::json& r : report.at("results")) {
        if (!r.contains("profile")) continue;
        const nlohmann::json& p = r.at("profile");
        const nlohmann::json& ns = p.at("orchestrator_ns_per_task");
        const nlohmann::json& sched = p.at("schedulers");
        char identity[64];
        std::snprintf(identity, sizeof identity, "%-16s  %-17s  %-9s", r.value("case", "").c_str(),
                      r.value("mode", "").c_str(),
                      r.at("tier").is_string() ? r.at("tier").get<std::string>().c_str() : "-");
        out << identity;
        for (const char* phase :
             {"arg_copy", "ring_alloc", "dep_lookup", "insert", "fanin", "scope_end", "other"})
            out << "  " << cell(ns.at(phase).at("median"), 7, 1);
        out << "  " << cell(sched.at("loops_per_task"), 10, 2) << "  "
            << cell(sched.at("busy_loop_pct"), 6, 1) << "  " << cell(sched.at("tasks_per_busy_loop"), 9, 2)
            << "  " << cell(sched.at("parks_per_run"), 9, 1) << "  "
            << cell(sched.at("batch_waits_per_run"), 9, 1) << "  "
            << cell(sched.at("awake_at_start_pct"), 7, 1) << "  "
            << cell(sched.at("orchestrator_loop_pct"), 6, 1) << '\n';
    }
}

}  // namespace pto::bench
