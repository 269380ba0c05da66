// A bench program's command line: the options of docs/bench.md, parsed and checked before anything is
// measured, then the sweep over the selected scenarios, the table on stdout and the report files.
#include "command_line.h"

#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base_data.h"
#include "base_data_cli.h"
#include "catalog.h"
#include "core_handoff.h"
#include "cpu_pair.h"
#include "cpu_pin.h"
#include "cpu_sharing.h"
#include "cpu_speed.h"
#include "cost_fit.h"
#include "fit.h"
#include "html_report.h"
#include "measure.h"
#include "output_paths.h"
#include "plot.h"
#include "profile.h"
#include "progress.h"
#include "pto/runtime/error.h"
#include "report.h"
#include "runner.h"

namespace pto::bench::detail {
namespace {

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

/// joined: "a, b, c", or "a, b and c" with `last` = " and ".
std::string joined(const std::vector<std::string>& items, const std::string& last = ", ") {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i == 0 ? "" : i + 1 == items.size() ? last : ", ") + items[i];
    return out;
}

std::vector<std::string> names_of(const std::vector<WorkloadSpec>& workloads, bool default_sweep_only) {
    std::vector<std::string> names;
    for (const WorkloadSpec& w : workloads)
        if (!default_sweep_only || w.in_default_sweep) names.push_back(w.name);
    return names;
}

/// parse_selection: turns the option strings into a Selection; throws CLI::ValidationError naming the
/// bad value.
Selection parse_selection(const CommandLine& cl, const std::vector<WorkloadSpec>& workloads) {
    Selection s;
    for (const std::string& c : cl.cases) {
        if (c == "all") {
            s.cases.clear();
            break;
        }
        const WorkloadSpec* found = nullptr;
        for (const WorkloadSpec& w : workloads)
            if (same_case_name(w.name, c)) found = &w;
        if (!found)
            throw CLI::ValidationError(
                "--case", "unknown case '" + c + "' (" + joined(names_of(workloads, false)) + ", all)");
        s.cases.push_back(found->name);
    }
    for (const std::string& m : cl.modes) {
        if (m == "all") {
            s.modes.clear();
            break;
        }
        const auto scheme = parse_scheme(m);
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
        const auto tier = parse_tier(t);
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

void add_options(CLI::App& app, CommandLine& cl, const std::vector<WorkloadSpec>& workloads) {
    app.add_option("--case", cl.cases,
                   joined(names_of(workloads, false)) +
                       " or all (default: " + joined(names_of(workloads, true), " and ") + ")")
        ->delimiter(',');
    app.add_option("--mode", cl.modes, "manual, tensormap, static-manual, static-tensormap (or A-D), or all")
        ->delimiter(',');
    std::vector<std::string> tiered;
    for (const WorkloadSpec& w : workloads)
        if (w.tiered) tiered.push_back(w.name);
    const std::string tier_of =
        tiered.empty() ? "SPMD tier (no workload here is tiered)" : "SPMD tier of " + joined(tiered, " and ");
    app.add_option("--tier", cl.tiers, tier_of + ": 0-4 or its name, or all (default all)")->delimiter(',');
    for (const char* flag : {"non-spmd", "spmd-2", "spmd-4", "spmd-8", "all-spmd"}) {
        const std::string name = flag;
        app.add_flag_callback(
            "--" + name, [&cl, name] { cl.tiers.push_back(name); }, "SPMD tier " + name);
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
    app.add_option(
        "--warmup", cl.bench.warmup,
        "unmeasured runs before them (default 10; spread over the rounds, at least one per block)");
    app.add_option(
           "--rounds", cl.bench.rounds,
           "measure in this many rounds across the sweep's scenarios, each a block of runs on a fresh "
           "runtime (default 20, at most --reps)")
        ->check(CLI::PositiveNumber);
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
}

/// warn_missing_schemes: a --mode the selected workloads do not all build is named, workload by workload,
/// rather than silently dropped.
void warn_missing_schemes(const Bench& bench, const Selection& selection) {
    for (const WorkloadSpec& w : bench.workloads()) {
        const bool selected =
            selection.cases.empty()
                ? w.in_default_sweep
                : std::find(selection.cases.begin(), selection.cases.end(), w.name) != selection.cases.end();
        if (!selected) continue;
        for (Scheme mode : selection.modes)
            if (std::find(w.schemes.begin(), w.schemes.end(), mode) == w.schemes.end())
                std::cerr << bench.program() << ": skipping " << w.name << "/" << to_string(mode)
                          << ": the workload has no such scheme\n";
    }
}

/// sweep_steps: what the progress line counts: each scenario's probe, its serial rounds, its end-to-end
/// rounds and its finish.
std::size_t sweep_steps(std::size_t scenarios, const BenchOptions& options) {
    return scenarios * (std::size_t{effective_rounds(options)} + end_to_end_rounds(options) + 2);
}

/// pin_serial_round: pins the calling thread for one serial round to the faster of the first two CPUs it
/// may use (cpu_speed.h), or where it runs when they cannot be measured; records the choice.
void pin_serial_round(std::optional<CpuPin>& pin, std::vector<SerialCpuRound>& rounds) {
    pin.reset();  // back to the whole mask, so the probe can use both CPUs
    const std::optional<CpuSpeeds> speeds = measure_cpu_speeds();
    if (speeds)
        pin.emplace(speeds->faster(current_cpu()));
    else
        pin.emplace();
    rounds.push_back(SerialCpuRound{pin->cpu(), speeds});
}

/// sweep: every scenario's results, in order, with the progress line; nullopt after a scenario failed
/// (reported on stderr). Four passes: every scenario's probe; the serial rounds (round 1 of every scenario,
/// then round 2, ..., each round pinned to one CPU, the faster of two by pin_serial_round, recorded in
/// `serial_cpus`); the end-to-end rounds likewise, unpinned (with --peers, each block followed by the
/// peers' blocks); then each scenario's exports, model and results.
std::optional<nlohmann::json> sweep(const Bench& bench, const std::vector<Scenario>& scenarios,
                                    const BenchOptions& options, Progress& progress,
                                    std::vector<SerialCpuRound>& serial_cpus) {
    std::size_t step = 0;
    std::size_t current = 0;  // the scenario a failure is reported for
    // One instance per workload for the whole sweep: its scenarios' rounds alternate, and a
    // compute-executor instance holds real tensors.
    std::map<const WorkloadSpec*, std::unique_ptr<Workload>> workloads;
    std::vector<std::unique_ptr<ScenarioMeasurement>> measurements;
    nlohmann::json results = nlohmann::json::array();
    // in_rounds: `rounds` rounds of one block of every scenario, in sweep order, each on the progress line;
    // start_round runs before each round's first block.
    const auto in_rounds = [&](const char* what, std::uint32_t rounds, const auto& start_round,
                               const auto& measure_block) {
        for (std::uint32_t round = 0; round < rounds; ++round) {
            start_round();
            for (current = 0; current < scenarios.size(); ++current) {
                progress.update(step++, scenarios[current].id + " (" + what + " round " +
                                            std::to_string(round + 1) + "/" + std::to_string(rounds) + ")");
                measure_block(*measurements[current], round);
            }
        }
    };
    try {
        for (current = 0; current < scenarios.size(); ++current) {
            progress.update(step++, scenarios[current].id + " (probe)");
            const WorkloadSpec* spec = scenarios[current].workload;
            std::unique_ptr<Workload>& workload = workloads[spec];
            if (!workload) workload = make_workload(*spec, options.executor);
            measurements.push_back(
                std::make_unique<ScenarioMeasurement>(scenarios[current], options, *workload));
        }
        {
            std::optional<CpuPin> pin;
            in_rounds(
                "serial", effective_rounds(options), [&] { pin_serial_round(pin, serial_cpus); },
                [&](ScenarioMeasurement& m, std::uint32_t round) {
                    m.measure_serial_round(round, pin->cpu());
                });
        }
        in_rounds(
            "end-to-end", end_to_end_rounds(options), [] {},
            [](ScenarioMeasurement& m, std::uint32_t round) { m.measure_end_to_end_round(round); });
        for (current = 0; current < scenarios.size(); ++current) {
            progress.update(step++, scenarios[current].id);
            for (nlohmann::json& r : measurements[current]->finish())
                results.push_back(std::move(r));
            measurements[current].reset();  // its recorded graph is no longer needed
        }
    } catch (const Error& e) {
        progress.clear();
        std::cerr << bench.program() << ": " << scenarios[current].id << ": " << e.what() << '\n';
        return std::nullopt;
    }
    progress.clear();
    return results;
}

}  // namespace

bool same_case_name(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const auto unify = [](char c) { return c == '-' ? '_' : c; };
        if (unify(a[i]) != unify(b[i])) return false;
    }
    return true;
}

int run_command_line(const Bench& bench, int argc, char** argv, Stop stop) {
    const std::string& program = bench.program();
    CommandLine cl;
    cl.bench.program = program;
    CLI::App app{program + ": orchestration cost per task, per graph, dependency scheme and SPMD tier"};
    add_options(app, cl, bench.workloads());

    Selection selection;
    try {
        app.parse(argc, argv);
        selection = parse_selection(cl, bench.workloads());
        cl.bench.executor = executor_named(cl.executor);
        cl.bench.sim = resolve_sim_settings(cl.sim_profile, cl.sim_costs, cl.pending_slots);
        if (!cl.fit_out_path.empty() && cl.fit_path.empty())
            throw CLI::ValidationError("--fit-out", "needs --fit MEASURED.json");
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << program << ": " << e.what() << "\n\n" << app.help();
        return 2;
    } catch (const Error& e) {
        std::cerr << program << ": " << e.message() << "\n\n" << app.help();
        return 2;
    }
    const std::vector<Scenario> all = catalog(bench.workloads());
    if (!cl.fit_path.empty()) {
        if (stop == Stop::AfterParsing) return 0;
        return run_fit_command(all, cl.fit_path, cl.fit_out_path, std::cout, std::cerr);
    }
    cl.bench.simulate = !cl.no_sim;

    warn_missing_schemes(bench, selection);
    const std::vector<Scenario> scenarios = select(all, selection);
    if (cl.list) {
        for (const Scenario& s : scenarios)
            std::cout << s.id << ": " << s.measures << '\n';
        return 0;
    }
    if (scenarios.empty()) {
        std::cerr << program << ": no scenario matches the selection\n\n" << app.help();
        return 2;
    }
    if (stop == Stop::AfterParsing) return 0;
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
            std::cerr << program << ": " << p << '\n';
        return 2;
    }

    Progress progress(sweep_steps(scenarios.size(), cl.bench));
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
            std::cerr << program << ": cannot write " << path << " (" << what << "): " << error << '\n';
            output_failed = true;
        }
    };

    // Before and after: both can change while the sweep runs (docs/bench.md).
    const std::optional<CoreHandoff> handoff_before = measure_core_handoff();
    const std::optional<CpuSharing> sharing_before = measure_cpu_sharing();
    std::vector<SerialCpuRound> serial_cpus;
    std::optional<nlohmann::json> results = sweep(bench, scenarios, cl.bench, progress, serial_cpus);
    if (!results) return 1;
    const std::optional<CoreHandoff> handoff_after = measure_core_handoff();
    const std::optional<CpuSharing> sharing_after = measure_cpu_sharing();

    nlohmann::json machine = machine_description();
    machine["core_to_core_ns"] = core_handoff_json(handoff_before, handoff_after);
    machine["cpu_sharing"] = cpu_sharing_json(sharing_before, sharing_after);
    machine["serial_cpus"] = serial_cpus_json(serial_cpus);
    nlohmann::json report = make_report(std::move(machine), std::move(*results));
    report["run"] = {{"command_line", std::vector<std::string>(argv, argv + argc)},
                     {"warmup", cl.bench.warmup},
                     {"reps", cl.bench.reps},
                     {"rounds", effective_rounds(cl.bench)},
                     {"executor", cl.executor},
                     {"profile", cl.bench.profile}};
    for (const std::string& warning : run_base_data(report, cl.base_data))
        std::cerr << program << ": warning: " << warning << '\n';
    std::ostringstream tables;
    add_cost_fit(report);
    print_table(tables, report);
    print_cost_fit(tables, report);
    print_profile_table(tables, report);
    std::cout << tables.str();
    print_core_handoff(std::cout, report.at("machine").at("core_to_core_ns"));
    print_cpu_sharing(std::cout, report.at("machine").at("cpu_sharing"));
    print_serial_cpus(std::cout, report.at("machine").at("serial_cpus"));
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

}  // namespace pto::bench::detail
