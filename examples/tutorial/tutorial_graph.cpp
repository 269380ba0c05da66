// tutorial_graph: runs the tutorial graph (docs/tutorial.md) in its four forms on the compute executor,
// checks each result against the sequential computation, checks that the four forms build the same edges,
// and writes the graph as DOT and a Perfetto trace of one run. Usage: tutorial_graph [output directory].
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include <pto/runtime/export.h>
#include <pto/scope/orchestration.h>

#include "graph.h"
#include "kernels.h"

namespace {

using tutorial::Problem;

enum class Form { Manual, Auto, StaticManual, StaticTensormap };
constexpr Form kForms[] = {Form::Manual, Form::Auto, Form::StaticManual, Form::StaticTensormap};

const char* name(Form f) {
    switch (f) {
        case Form::Manual:
            return "manual";
        case Form::Auto:
            return "auto";
        case Form::StaticManual:
            return "static-manual";
        case Form::StaticTensormap:
            return "static-tensormap";
    }
    return "?";
}

/// Templates: both templates and their bindings, built once and reused by every run.
struct Templates {
    tutorial::TileTemplate manual = tutorial::build_tile_template(pto::BoundaryMode::Manual);
    tutorial::TileTemplate tensormap = tutorial::build_tile_template(pto::BoundaryMode::Tensormap);
    pto::Bindings manual_bindings{manual.tpl};
    pto::Bindings tensormap_bindings{tensormap.tpl};
};

void orchestrate(Form form, const Problem& p, Templates& templates) {
    switch (form) {
        case Form::Manual:
            tutorial::orchestrate_manual(p);
            break;
        case Form::Auto:
            tutorial::orchestrate_auto(p);
            break;
        case Form::StaticManual:
            tutorial::orchestrate_static(p, templates.manual, templates.manual_bindings);
            break;
        case Form::StaticTensormap:
            tutorial::orchestrate_static(p, templates.tensormap, templates.tensormap_bindings);
            break;
    }
}

// [snippet:edges]
// Edges as (producer, consumer) positions in submission order, so graphs of different runs compare.
std::set<std::pair<std::int64_t, std::int64_t>> edges(const pto::GraphRecord& graph) {
    std::set<std::pair<std::int64_t, std::int64_t>> out;
    for (const pto::RecordedTask& task : graph.tasks)
        for (pto::TaskId producer : graph.producers_of(task))
            out.emplace(graph.index_of(producer), graph.index_of(task.id));
    return out;
}
// [/snippet]

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "tutorial_graph: runs the tutorial graph (docs/tutorial.md) in its four forms on the compute "
        "executor, checks each against the sequential result, and writes tutorial_graph.dot and "
        "tutorial_trace.json to OUT_DIR",
        "tutorial_graph"};
    std::string out_dir = ".";
    app.add_option("OUT_DIR", out_dir,
                   "where the DOT graph and the trace go (default: the current directory)")
        ->check(CLI::ExistingDirectory);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return 0;
    } catch (const CLI::ParseError& e) {
        std::cerr << "tutorial_graph: " << e.what() << "\n\n" << app.help();
        return 2;
    }
    try {
        Problem problem;
        Templates templates;

        // [snippet:run]
        pto::RuntimeConfig config;  // a2a3 machine: 24 clusters x (1 AIC + 2 AIV), 3 schedulers
        config.executor = pto::Executor::Compute;  // run the CPU kernels on a worker pool
        config.compute_start_jitter_us = 200;      // random start delays up to 200 us: a missing edge shows
        config.record_graph = true;                // keep the graph for DOT export
        config.record_subtasks = true;             // keep per-subtask timestamps for the trace
        pto::Runtime rt(config);
        tutorial::register_kernels(rt);

        problem.poison_outputs();
        const pto::RunReport report = pto::run(rt, [&] { tutorial::orchestrate_manual(problem); });
        std::printf("first run (manual): %llu tasks (%llu subtasks) completed, max error %g\n",
                    static_cast<unsigned long long>(report.completed),
                    static_cast<unsigned long long>(report.subtasks), problem.max_error());
        // [/snippet]
        bool ok = report.ok() && problem.max_error() < 1e-5;

        // [snippet:export]
        std::ofstream dot(out_dir + "/tutorial_graph.dot");
        pto::write_graph_dot(dot, rt.graph());  // render with: dot -Tsvg tutorial_graph.dot > graph.svg
        std::ofstream trace(out_dir + "/tutorial_trace.json");
        pto::write_perfetto_trace(trace, rt.graph(), rt.subtasks(), rt.config());  // open in ui.perfetto.dev
        // [/snippet]
        if (!dot || !trace) {
            std::fprintf(stderr, "tutorial_graph: cannot write to %s\n", out_dir.c_str());
            return 1;
        }

        for (Form form : kForms) {
            problem.poison_outputs();
            const pto::RunReport r = pto::run(rt, [&] { orchestrate(form, problem, templates); });
            const double error = problem.max_error();
            std::printf("compute run   %-16s %llu tasks completed, max error %g\n", name(form),
                        static_cast<unsigned long long>(r.completed), error);
            ok = ok && r.ok() && error < 1e-5;
        }

        // [snippet:compare-edges]
        // Serial mode: nothing runs, so nothing retires, until the orchestration function returns. Every
        // producer a tensor names is then still in the tensormap, and discovered edges equal manual ones.
        pto::RuntimeConfig serial;
        serial.orchestration = pto::OrchestrationMode::Serial;
        serial.record_graph = true;
        pto::Runtime recorder(serial);  // instant executor: no kernel runs, only the graph matters
        tutorial::register_kernels(recorder);
        std::set<std::pair<std::int64_t, std::int64_t>> reference;
        for (Form form : kForms) {
            pto::run(recorder, [&] { orchestrate(form, problem, templates); });
            const auto e = edges(recorder.graph());
            if (form == Form::Manual) reference = e;
            std::printf("serial record %-16s %zu tasks, %zu edges%s\n", name(form),
                        recorder.graph().tasks.size(), e.size(),
                        e == reference ? "" : "  DIFFERENT FROM manual");
            ok = ok && e == reference;
        }
        // [/snippet]

        std::printf("%s; wrote %s/tutorial_graph.dot and %s/tutorial_trace.json\n", ok ? "ok" : "FAILED",
                    out_dir.c_str(), out_dir.c_str());
        return ok ? 0 : 1;
    } catch (const pto::Error& e) {  // misuse or a failed kernel: the code and a message naming the task
        std::fprintf(stderr, "tutorial_graph: %s\n", e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "tutorial_graph: %s\n", e.what());
        return 1;
    }
}
