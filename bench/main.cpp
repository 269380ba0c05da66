// pto-bench: measures what orchestration costs per task for each graph, dependency scheme and SPMD tier,
// predicts the device timeline with the virtual-time model, and writes bench-results.json (docs/bench.md).
#include <cstdio>
#include <functional>
#include <sstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base_data.h"
#include "base_data_cli.h"
#include "catalog.h"
#include "cost_fit.h"
#include "fit.h"
#include "measure.h"
#include "pto/runtime/error.h"
#include "html_report.h"
#include "output_paths.h"
#include "plot.h"
#include "profile.h"
#include "progress.h"
#include "report.h"
#include "runner.h"

namespace {

using namespace pto;
using namespace pto::bench;

struct CommandLine {
    std::vector<std::string> cases;
    std::vector<std::string> modes;
    std::vector<std::string> tiers;
    std::string executor = "instant";
    std::string json_path = "bench-results.json";
    std::string plot_path;
    std::string report_path;
    bool list = false;
    bool no_sim = false;
    std::string sim_profile;
    std::vector<std::string> sim_costs;
    std::string pending_slots;
    std::string fit_path;
    std::string fit_out_path;
    BenchOptions bench;
    BaseDataOptions base_data;
};

/// parse_selection: turns the option strings into a Selection; throws CLI::ValidationError naming the
/// bad value.
Selection parse_selection(const CommandLine& cl) {
    Selection s;
    for (const std::string& c : cl.cases) {
        if (c == "all") {
            s.cases.clear();
            break;
        }
        if (c == "qwen3")
            s.cases.push_back(CaseKind::Qwen3);
        else if (c == "paged_attention" || c == "paged-attention")
            s.cases.push_back(CaseKind::PagedAttention);
        else if (c == "chain")
            s.cases.push_back(CaseKind::Chain);
        else if (c == "fanin")
            s.cases.push_back(CaseKind::FanIn);
        else if (c == "moe")
            s.cases.push_back(CaseKind::Moe);
        else
            throw CLI::ValidationError(
                "--case", "unknown case '" + c + "' (qwen3, paged_attention, chain, fanin, moe, all)");
    }
    for (const std::string& m : cl.modes) {
        if (m == "all") {
            s.modes.clear();
            break;
        }
        const auto scheme = examples::parse_scheme(m);
        if (!scheme)
            throw CLI::ValidationError(
                "--mode",
                "unknown mode '" + m + "' (manual, tensormap, static-manual, static-tensormap, A-D, all)");
        s.modes.push_back(*scheme);
    }
    for (const std::string& t : cl.tiers) {
        if (t == "all") {
            s.tiers.clear();
            break;
        }
        const auto tier = examples::parse_tier(t);
        if (!tier)
            throw CLI::ValidationError("--tier",
                                       "unknown tier '" + t + "' (0-4, non-spmd ... all-spmd, all)");
        s.tiers.push_back(*tier);
    }
    return s;
}

Executor executor_named(const std::string& e) {
    if (const auto executor = pto::parse_executor(e)) return *executor;
    throw CLI::ValidationError("--executor", "unknown executor '" + e + "' (instant, timed, compute)");
}

}  // namespace

int main(int argc, char** argv) {
    CommandLine cl;
    CLI::App app{"pto-bench: orchestration cost per task, per graph, dependency scheme and SPMD tier"};
    app.add_option("--case", cl.cases,
                   "qwen3, paged_attention, chain, fanin, moe or all (default: qwen3 and paged_attention)")
        ->delimiter(',');
    app.add_option("--mode", cl.modes, "manual, tensormap, static-manual, static-tensormap (or A-D), or all")
        ->delimiter(',');
    app.add_option("--tier", cl.tiers, "Qwen3 SPMD tier: 0-4 or its name, or all (default all)")
        ->delimiter(',');
    for (const char* flag : {"non-spmd", "spmd-2", "spmd-4", "spmd-8", "all-spmd"}) {
        const std::string name = flag;
        app.add_flag_callback(
            "--" + name, [&cl, name] { cl.tiers.push_back(name); }, "Qwen3 tier " + name);
    }
    app.add_option("--executor", cl.executor, "instant (default), timed or compute, for the end-to-end runs");
    app.add_option("--schedulers", cl.bench.scheduler_threads,
                   "scheduler threads for the end-to-end runs (default 3, the a2a3 AICPU)")
        ->check(CLI::Range(1, 24));
    app.add_option("--timed-scale", cl.bench.timed_scale,
                   "timed executor: wall time = kernel duration x this (default 1)")
        ->check(CLI::PositiveNumber);
    app.add_option(
           "--jitter", cl.bench.jitter,
           "timed executor: durations vary by up to this fraction; compute: random start delays (default 0)")
        ->check(CLI::Range(0.0, 1.0));
    app.add_option("--reps", cl.bench.reps, "measured repetitions per figure (default 200)")
        ->check(CLI::PositiveNumber);
    app.add_option("--warmup", cl.bench.warmup, "unmeasured runs before them (default 10)");
    app.add_option("--json", cl.json_path, "where to write the report (default bench-results.json)");
    app.add_option("--trace", cl.bench.trace_path, "write a Perfetto / Chrome trace of a run to FILE");
    app.add_option("--sim-trace", cl.bench.sim_trace_path,
                   "write a Perfetto / Chrome trace of the simulated device timeline to FILE");
    app.add_option("--dot", cl.bench.dot_path,
                   "write the task graph as Graphviz DOT to FILE, clustered by scope and template instance "
                   "(graphs of at most 2000 tasks; use --dot-summary beyond)");
    app.add_flag("--kernel-stats", cl.bench.kernel_stats,
                 "print per-kernel timing statistics (instances, total, mean, min, max, median, P90, P99) of "
                 "the simulated "
                 "timeline, "
                 "and of the recorded run when --trace is given");
    app.add_option(
        "--plot", cl.plot_path,
        "write the report's charts (orchestration ns/task, makespan and lower bound, peers, paged attention, "
        "baseline) as one SVG to FILE");
    app.add_option("--report", cl.report_path,
                   "write a self-contained HTML report (identity, table, charts) to FILE.html");
    app.add_option(
        "--dot-summary", cl.bench.dot_summary_path,
        "write the kernel-level graph (one node per kernel and core type) as Graphviz DOT to FILE");
    app.add_flag("--profile", cl.bench.profile,
                 "also measure the orchestrator's phases and the schedulers' loops in extra profiled runs");
    app.add_flag("--no-sim", cl.no_sim, "skip the virtual-time model");
    app.add_option(
        "--sim-profile", cl.sim_profile,
        "the model's costs: proxy-a2a3 (default), simpler-a2a3, host[:<profile>] or a profile JSON "
        "file");
    app.add_option(
        "--sim-cost", cl.sim_costs,
        "override one model cost, key=value (repeatable; keys: the CostModel fields, e.g. dispatch_us, "
        "and host_frequency_scale)");
    app.add_option("--pending-slots", cl.pending_slots,
                   "the model's pending slot per core: on (default) or off");
    app.add_option(
        "--fit", cl.fit_path,
        "fit model costs to the device measurements in FILE (bench/profiles/*.measured.json) and exit");
    app.add_option("--fit-out", cl.fit_out_path, "with --fit: write the fitted profile JSON to FILE");
    app.add_flag("--peers", cl.bench.peers, "also run the graphs on oneTBB flow_graph and OpenMP tasks");
    app.add_flag("--list", cl.list, "list the scenarios and exit");
    add_base_data_options(app, cl.base_data);

    Selection selection;
    try {
        app.parse(argc, argv);
        selection = parse_selection(cl);
        cl.bench.executor = executor_named(cl.executor);
        cl.bench.sim = resolve_sim_settings(cl.sim_profile, cl.sim_costs, cl.pending_slots);
        if (!cl.fit_out_path.empty() && cl.fit_path.empty())
            throw CLI::ValidationError("--fit-out", "needs --fit MEASURED.json");
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "pto-bench: " << e.what() << "\n\n" << app.help();
        return 2;
    } catch (const Error& e) {
        std::cerr << "pto-bench: " << e.message() << "\n\n" << app.help();
        return 2;
    }
    if (!cl.fit_path.empty()) return run_fit_command(cl.fit_path, cl.fit_out_path, std::cout, std::cerr);
    cl.bench.simulate = !cl.no_sim;

    std::vector<Scenario> scenarios;
    for (const Scenario& s : select(selection)) {
        if (supports(s.kind, s.mode))
            scenarios.push_back(s);
        else
            std::cerr << "pto-bench: skipping " << s.id << ": this build has no such scheme for the case\n";
    }
    if (cl.list) {
        for (const Scenario& s : scenarios)
            std::cout << s.id << ": " << s.measures << '\n';
        return 0;
    }
    if (scenarios.empty()) {
        std::cerr << "pto-bench: no scenario matches the selection\n\n" << app.help();
        return 2;
    }
#ifdef PTO_BENCH_PARSE_ONLY
    return 0;  // the command-line fuzz target (tests/fuzz/fuzz_bench_cli.cpp): parsed and checked, not run
#endif
    cl.bench.several_scenarios = scenarios.size() > 1;

    // Every file is checked before anything is measured: a bad path costs seconds, not a sweep.
    const std::vector<std::string> problems =
        check_outputs({{"--json", cl.json_path},
                       {"--trace", cl.bench.trace_path},
                       {"--sim-trace", cl.bench.sim_trace_path},
                       {"--dot", cl.bench.dot_path},
                       {"--dot-summary", cl.bench.dot_summary_path},
                       {"--plot", cl.plot_path},
                       {"--report", cl.report_path},
                       {"--emit-baseline", cl.base_data.emit_baseline_path.value_or("")}});
    if (!problems.empty()) {
        for (const std::string& p : problems)
            std::cerr << "pto-bench: " << p << '\n';
        return 2;
    }

    Progress progress(scenarios.size());
    bool output_failed = false;
    // Files are written atomically and announced; a file that fails is reported and the run goes on, so
    // the measurements still reach the JSON.
    cl.bench.write_output = [&](const std::string& path, const std::string& what,
                                const std::function<void(std::ostream&)>& write) {
        const std::string error = write_atomically(path, write);
        progress.clear();
        if (error.empty()) {
            std::cout << "wrote " << path << " (" << what << ")\n" << std::flush;
        } else {
            std::cerr << "pto-bench: cannot write " << path << " (" << what << "): " << error << '\n';
            output_failed = true;
        }
    };

    nlohmann::json results = nlohmann::json::array();
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
        progress.update(i, scenarios[i].id);
        try {
            for (nlohmann::json& r : run_scenario(scenarios[i], cl.bench))
                results.push_back(std::move(r));
        } catch (const Error& e) {
            progress.clear();
            std::cerr << "pto-bench: " << scenarios[i].id << ": " << e.what() << '\n';
            return 1;
        }
    }
    progress.clear();

    nlohmann::json report = make_report(machine_description(), std::move(results));
    report["run"] = {{"command_line", std::vector<std::string>(argv, argv + argc)},
                     {"warmup", cl.bench.warmup},
                     {"reps", cl.bench.reps},
                     {"executor", cl.executor},
                     {"profile", cl.bench.profile}};
    for (const std::string& warning : run_base_data(report, cl.base_data))
        std::cerr << "pto-bench: warning: " << warning << '\n';
    std::ostringstream tables;
    add_cost_fit(report);
    print_table(tables, report);
    print_cost_fit(tables, report);
    print_profile_table(tables, report);
    std::cout << tables.str();
    std::cout << "peak RSS " << peak_rss_bytes() / (1024 * 1024) << " MiB\n";

    // The JSON first: whatever happens to the optional files, the measurements are kept.
    // Replace, not throw: a string from the command line or a baseline file may hold invalid UTF-8.
    const std::string dump = report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    cl.bench.write_output(cl.json_path, "report", [&](std::ostream& out) { out << dump << '\n'; });
    if (!cl.plot_path.empty())
        cl.bench.write_output(cl.plot_path, "charts", [&](std::ostream& out) { write_plot(out, report); });
    if (!cl.report_path.empty())
        cl.bench.write_output(cl.report_path, "HTML report",
                              [&](std::ostream& out) { write_html_report(out, report, tables.str()); });
    if (output_failed) return 1;
    return 0;
}
