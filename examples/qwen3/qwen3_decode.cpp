// qwen3_decode: builds the Qwen3-14B decode layer (docs/design/reference-graphs.md) per SPMD tier and scheme
// (A-D), runs it on the chosen executor and prints launches, framework tasks, subtasks, edges, orchestration
// time per launch and, in compute mode, the golden verdict. Full shapes at fake addresses for instant/timed;
// reduced shapes in memory for compute.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pto/examples/qwen3.h"
#include "pto/scope/orchestration.h"

namespace q3 = pto::examples::qwen3;
using pto::examples::Scheme;
using pto::examples::SpmdTier;

namespace {

struct Options {
    bool tier_flags[5] = {};
    std::string mode = "all";
    std::string executor = "instant";
    bool concurrent = false;
    double jitter = 0.0;
    std::uint64_t seed = 1;
    std::uint32_t reps = 1;
    std::uint32_t warmup = 1;
};

int usage_error(const CLI::App& app, const std::string& message) {
    std::cerr << "qwen3_decode: " << message << "\n\n" << app.help();
    return 2;
}

std::string shapes_line(const q3::Shapes& s, bool memory) {
    return "batch " + std::to_string(s.batch) + " in " + std::to_string(s.tiles()) + " tiles of " +
           std::to_string(s.tile_rows) + ", hidden " + std::to_string(s.hidden()) + ", " +
           std::to_string(s.q_heads) + "/" + std::to_string(s.kv_heads) + " heads x " +
           std::to_string(s.head_dim) + ", intermediate " + std::to_string(s.intermediate) +
           ", context <= " + std::to_string(s.max_context) + (memory ? ", real memory" : ", fake addresses");
}

/// same_tasks: the same task kinds, cores, block_nums and kernels in the same submission order.
bool same_tasks(const std::vector<pto::RecordedTask>& a, const std::vector<pto::RecordedTask>& b) {
    return std::equal(
        a.begin(), a.end(), b.begin(), b.end(), [](const pto::RecordedTask& x, const pto::RecordedTask& y) {
            return x.kind == y.kind && x.core == y.core && x.block_num == y.block_num &&
                   x.funcs[0] == y.funcs[0] && x.funcs[1] == y.funcs[1] && x.funcs[2] == y.funcs[2];
        });
}

double median(std::vector<std::int64_t> v) {
    std::sort(v.begin(), v.end());
    return static_cast<double>(v[v.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Qwen3-14B decode layer: schemes A (manual), B (tensormap), C (static-manual) and D "
        "(static-tensormap) at five SPMD tiers"};
    Options opt;
    app.add_flag("--non-spmd", opt.tier_flags[0], "tier 0: one launch per chunk");
    app.add_flag("--spmd-2", opt.tier_flags[1], "tier 1: SPMD width 2");
    app.add_flag("--spmd-4", opt.tier_flags[2], "tier 2: SPMD width 4");
    app.add_flag("--spmd-8", opt.tier_flags[3], "tier 3: SPMD width 8");
    app.add_flag("--all-spmd", opt.tier_flags[4], "tier 4: one launch per operator (no tier flag: all five)");
    app.add_option("--mode", opt.mode,
                   "manual|tensormap|static-manual|static-tensormap|A|B|C|D, a comma-separated list, or all");
    app.add_option("--executor", opt.executor, "instant|timed|compute");
    app.add_flag(
        "--concurrent", opt.concurrent,
        "schedule while submitting (default: serial, so tensormap edges to finished tasks are kept)");
    app.add_option("--jitter", opt.jitter, "compute/timed executor: random delay / duration factor 0..1");
    app.add_option("--seed", opt.seed, "input data and jitter seed");
    app.add_option("--reps", opt.reps, "runs per tier and scheme; times are the median (default 1)")
        ->check(CLI::Range(1u, 100000u));
    app.add_option("--warmup", opt.warmup,
                   "unmeasured runs before them (default 1; 0 times a cold first run, several times slower)")
        ->check(CLI::Range(0u, 100000u));
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return 0;
    } catch (const CLI::ParseError& e) {
        return usage_error(app, e.what());
    }

    const auto parsed_schemes = pto::examples::parse_schemes(opt.mode);
    if (!parsed_schemes)
        return usage_error(app,
                           "--mode must be manual, tensormap, static-manual, static-tensormap, A, B, C, D, a "
                           "comma-separated list of them, or all, not '" +
                               opt.mode + "'");
    const std::vector<Scheme> schemes = *parsed_schemes;
    pto::RuntimeConfig cfg;
    if (const auto executor = pto::parse_executor(opt.executor))
        cfg.executor = *executor;
    else
        return usage_error(app, "--executor must be instant, timed or compute, not '" + opt.executor + "'");
    if (!(opt.jitter >= 0.0 && opt.jitter <= 1.0)) return usage_error(app, "--jitter must be in 0..1");
    std::vector<SpmdTier> tiers;
    for (int i = 0; i < 5; ++i)
        if (opt.tier_flags[i]) tiers.push_back(static_cast<SpmdTier>(i));
    if (tiers.empty()) tiers.assign(std::begin(pto::examples::kAllTiers), std::end(pto::examples::kAllTiers));

    const bool compute = cfg.executor == pto::Executor::Compute;
    cfg.orchestration = opt.concurrent ? pto::OrchestrationMode::Concurrent : pto::OrchestrationMode::Serial;
    cfg.record_graph = true;
    cfg.timed_jitter = opt.jitter;
    cfg.seed = opt.seed;

    try {
        q3::Problem problem = compute ? q3::Problem::with_memory(q3::Shapes::reduced(), opt.seed)
                                      : q3::Problem::with_fake_addresses(q3::Shapes::full());
        std::optional<q3::Golden> golden;
        if (compute) golden = q3::reference(problem);
        pto::Runtime rt(cfg);
        q3::register_kernels(rt);
        // One orchestrator for every run: it owns the tensormap, so runs after the first allocate nothing.
        pto::Orchestrator orchestrator(rt);

        std::printf("Qwen3-14B decode layer: %s\nexecutor %s, %s orchestration\n",
                    shapes_line(problem.shapes(), compute).c_str(), opt.executor.c_str(),
                    opt.concurrent ? "concurrent" : "serial");
        std::printf("times: median of %u run(s) after %u warm-up run(s)%s\n\n", opt.reps, opt.warmup,
                    opt.warmup == 0 ? " -- a cold run: it includes first-touch and allocation costs" : "");
        std::printf("%-9s %-6s %-24s %9s %8s %12s %15s %8s %9s %8s%s\n", "tier", "scheme",
                    "launches (S1/S2/S3)", "framework", "subtasks", "kernel-edges", "framework-edges",
                    "orch-ms", "e2e-ms", "ns/task", compute ? "  golden" : "");
        bool all_ok = true;
        for (SpmdTier tier : tiers) {
            q3::DecodeGraph graph(problem, tier);
            std::optional<std::vector<std::pair<std::uint32_t, std::uint32_t>>> first_edges;
            std::optional<std::vector<pto::RecordedTask>> first_tasks;
            char first_letter = 'A';
            for (Scheme scheme : schemes) {
                // Each repetition is a whole run; the last one's graph and outputs are checked.
                std::vector<std::int64_t> orch_ns, e2e_ns;
                for (std::uint32_t r = 0; r < opt.warmup + opt.reps; ++r) {
                    problem.reset();
                    const pto::RunReport report = orchestrator.run([&] { graph.submit(scheme); });
                    if (r < opt.warmup) continue;
                    orch_ns.push_back(report.orchestration_ns);
                    e2e_ns.push_back(report.end_to_end_ns);
                }
                const q3::GraphCounts c = q3::count_graph(rt.graph());
                const std::string launches =
                    std::to_string(c.kernel_tasks) + " (" + std::to_string(c.scope_launches[0]) + "/" +
                    std::to_string(c.scope_launches[1]) + "/" + std::to_string(c.scope_launches[2]) + ")";
                std::string verdict;
                if (compute) {
                    const std::string label = std::string(pto::examples::to_string(scheme)) + "_" +
                                              std::string(pto::examples::to_string(tier));
                    const q3::GoldenReport g = q3::check_golden(problem, *golden, label);
                    verdict = g.summary();
                    all_ok = all_ok && g.ok;
                }
                // Serial runs keep every discovered edge, so all four schemes must agree exactly
                // (docs/design/reference-graphs.md): the same launches in the same order and the same kernel
                // edges.
                const auto edges = q3::kernel_edges(rt.graph());
                if (!first_edges) {
                    first_edges = edges;
                    first_tasks = rt.graph().tasks;
                    first_letter = pto::examples::letter(scheme);
                } else if (!opt.concurrent) {
                    const bool same = edges == *first_edges && same_tasks(rt.graph().tasks, *first_tasks);
                    verdict += std::string(verdict.empty() ? "" : "; ") +
                               (same ? "graph == " : "GRAPH DIFFERS FROM ") + first_letter;
                    all_ok = all_ok && same;
                }
                std::printf("%-9s %-6c %-24s %9llu %8llu %12llu %15llu %8.2f %9.2f %8.1f%s%s\n",
                            std::string(pto::examples::to_string(tier)).c_str(),
                            pto::examples::letter(scheme), launches.c_str(),
                            static_cast<unsigned long long>(c.framework_tasks),
                            static_cast<unsigned long long>(c.subtasks),
                            static_cast<unsigned long long>(c.kernel_edges),
                            static_cast<unsigned long long>(c.framework_edges), median(orch_ns) / 1e6,
                            median(e2e_ns) / 1e6, median(orch_ns) / static_cast<double>(c.kernel_tasks),
                            verdict.empty() ? "" : "  ", verdict.c_str());
            }
        }
        return all_ok ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "qwen3_decode: " << e.what() << "\n";
        return 1;
    }
}
