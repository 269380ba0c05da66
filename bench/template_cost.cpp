// pto-bench-templates: per-task orchestration cost of the same loop bodies submitted dynamically (MANUAL
// scope, explicit deps; AUTO scope, discovered deps) and as static-template instances (manual boundaries;
// tensormap boundaries), docs/design/static-graph.md and docs/design/targets.md (target: templates <= 0.5x
// manual). Serial mode, instant executor, window sized to hold the graph; timed = wall time of the
// orchestration function / tasks.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "pto/scope/orchestration.h"
#include "pto/static_graph/instance.h"
#include "pto/static_graph/template.h"

namespace {

using Clock = std::chrono::steady_clock;
using pto::CoreType;
using pto::FuncId;

// ---- Bodies -----------------------------------------------------------------------------------------------
// A node writes a fresh output per iteration, reads the outputs of its internal producers and of its
// carry producers in the previous iteration, and one untracked weight. So the explicit edges of the manual
// modes and the edges the tensormap discovers are the same set (checked by a recorded run).

struct BodyNode {
    CoreType core;
    std::uint32_t block_num;
    std::vector<std::uint32_t> inputs;  // internal producers (earlier nodes of the same iteration)
    std::vector<std::uint32_t> carry;   // producers in the previous iteration
};

struct Body {
    const char* name;
    const char* what;
    std::vector<BodyNode> nodes;
    std::uint32_t iterations;
};

//   0 ─► 1 ─► 2 ─► 3 ─► (next) 0
Body chain4() {
    Body b{"chain4", "4-node chain, 1 boundary edge", {}, 400};
    b.nodes.push_back({CoreType::AIV, 1, {}, {3}});
    b.nodes.push_back({CoreType::AIC, 4, {0}, {}});
    b.nodes.push_back({CoreType::AIV, 4, {1}, {}});
    b.nodes.push_back({CoreType::AIC, 1, {2}, {}});
    return b;
}

//        ┌─► 1 ─► 5 ─┐
//   0 ───┼─► 2 ─► 6 ─┼─► 9 ─► (next) 0
//        ├─► 3 ─► 7 ─┤
//        └─► 4 ─► 8 ─┘
Body diamond10() {
    Body b{"diamond10", "10-node diamond (4 parallel 2-chains), 1 boundary edge", {}, 160};
    b.nodes.push_back({CoreType::AIV, 1, {}, {9}});
    for (std::uint32_t i = 1; i <= 4; ++i)
        b.nodes.push_back({CoreType::AIC, 2, {0}, {}});
    for (std::uint32_t i = 5; i <= 8; ++i)
        b.nodes.push_back({CoreType::AIV, 2, {i - 4}, {}});
    b.nodes.push_back({CoreType::AIV, 1, {5, 6, 7, 8}, {}});
    return b;
}

// Qwen3 Scope3-like tile (docs/design/reference-graphs.md at width 14/12/20): out_proj_residual x3 (MIX) ─►
// post_rmsnorm ─► gate x3, up x3 ─► silu x3 (same index) ─► down x2 (all silu) ─► down_residual x2
// (same-index down + the out_proj launches covering its chunks). Each out_proj waits for both down_residuals
// of the previous tile.
Body qwen3_scope3() {
    Body b{"qwen3_s3", "17-node Qwen3 Scope3-like tile, 6 boundary edges", {}, 96};
    for (std::uint32_t i = 0; i < 3; ++i)
        b.nodes.push_back({CoreType::MIX, i < 2 ? 14u : 12u, {}, {15, 16}});
    b.nodes.push_back({CoreType::AIV, 1, {0, 1, 2}, {}});  // 3 post_rmsnorm
    for (std::uint32_t i = 0; i < 3; ++i) {
        b.nodes.push_back({CoreType::AIC, i < 2 ? 12u : 10u, {3}, {}});  // 4, 7, 10 gate
        b.nodes.push_back({CoreType::AIC, i < 2 ? 12u : 10u, {3}, {}});  // 5, 8, 11 up
        const std::uint32_t gate = 4 + 3 * i;
        b.nodes.push_back({CoreType::AIV, i < 2 ? 12u : 10u, {gate, gate + 1}, {}});  // 6, 9, 12 silu
    }
    b.nodes.push_back({CoreType::AIC, 20, {6, 9, 12}, {}});  // 13 down (chunks 0-19)
    b.nodes.push_back({CoreType::AIV, 20, {13, 0, 1}, {}});  // 14 down_residual 0-19
    b.nodes.push_back({CoreType::AIC, 20, {6, 9, 12}, {}});  // 15 down (chunks 20-39)
    b.nodes.push_back({CoreType::AIV, 20, {15, 1, 2}, {}});  // 16 down_residual 20-39
    b.nodes[0].carry = b.nodes[1].carry = b.nodes[2].carry = {14, 16};
    return b;
}

FuncId func_of(std::uint32_t node) {
    return FuncId{static_cast<std::uint16_t>(node % 8)};
}

std::uint32_t internal_edges(const Body& body) {
    std::uint32_t n = 0;
    for (const BodyNode& node : body.nodes)
        n += static_cast<std::uint32_t>(node.inputs.size());
    return n;
}

/// Views: every buffer of a run, built before timing so each mode pays only for passing views around.
struct Views {
    std::vector<float> arena;
    std::vector<pto::TensorView> out;     // (iteration + 1) * nodes + k; iteration -1 is never written
    std::vector<pto::TensorView> weight;  // per node, untracked

    explicit Views(const Body& body)
        : arena((body.iterations + 1) * body.nodes.size() * 16 + body.nodes.size() * 16) {
        const std::size_t n = body.nodes.size();
        for (std::size_t i = 0; i < (body.iterations + 1) * n; ++i)
            out.push_back(pto::TensorView::contiguous(&arena[i * 16], pto::DataType::F32, {4, 4}));
        for (std::size_t k = 0; k < n; ++k)
            weight.push_back(pto::TensorView::contiguous(&arena[((body.iterations + 1) * n + k) * 16],
                                                         pto::DataType::F32, {16})
                                 .untracked());
    }
    [[nodiscard]] const pto::TensorView& output(std::int64_t it, std::uint32_t k, std::size_t n) const {
        return out[static_cast<std::size_t>(it + 1) * n + k];
    }
};

// ---- The four orchestration functions ---------------------------------------------------------------------

enum class Mode { Manual, StaticManual, Auto, StaticTensormap };
constexpr Mode kModes[] = {Mode::Manual, Mode::StaticManual, Mode::Auto, Mode::StaticTensormap};
const char* name_of(Mode m) {
    switch (m) {
        case Mode::Manual:
            return "manual";
        case Mode::StaticManual:
            return "static-manual";
        case Mode::Auto:
            return "tensormap";
        case Mode::StaticTensormap:
            return "static-tensormap";
    }
    return "?";
}

pto::TaskHandle submit_node(const BodyNode& node, FuncId f, pto::Args& args) {
    switch (node.core) {
        case CoreType::AIC:
            return pto::submit_aic(f, args);
        case CoreType::MIX:
            return pto::submit_mix(f, f, f, args);
        default:
            return pto::submit_aiv(f, args);
    }
}

/// args_of: the node's arguments, identical in every mode: output, inputs, carry inputs, weight, scalars.
void add_args(pto::Args& a, const Body& body, const Views& v, std::int64_t it, std::uint32_t k) {
    const std::size_t n = body.nodes.size();
    const BodyNode& node = body.nodes[k];
    a.output(v.output(it, k, n));
    for (std::uint32_t p : node.inputs)
        a.input(v.output(it, p, n));
    for (std::uint32_t p : node.carry)
        a.input(v.output(it - 1, p, n));
    a.input(v.weight[k]).scalar(static_cast<std::uint64_t>(it)).scalar(k).block_num(node.block_num);
}

std::uint64_t run_dynamic(const Body& body, const Views& v, bool manual, std::vector<pto::TaskId>& ids) {
    const auto n = static_cast<std::uint32_t>(body.nodes.size());
    std::uint64_t checksum = 0;
    for (std::uint32_t it = 0; it < body.iterations; ++it) {
        pto::ScopeGuard scope(manual ? pto::ScopeMode::Manual : pto::ScopeMode::Auto);
        for (std::uint32_t k = 0; k < n; ++k) {
            const BodyNode& node = body.nodes[k];
            pto::Args a;
            add_args(a, body, v, it, k);
            pto::TaskId deps[8];
            std::uint32_t count = 0;
            if (manual) {
                for (std::uint32_t p : node.inputs)
                    deps[count++] = ids[it * n + p];
                if (it > 0)
                    for (std::uint32_t p : node.carry)
                        deps[count++] = ids[(it - 1) * n + p];
                a.set_dependencies(deps, count);
            }
            const pto::TaskId id = submit_node(node, func_of(k), a).task_id();
            ids[it * n + k] = id;
            checksum += id.value;
        }
    }
    return checksum;
}

struct StaticBody {
    pto::Template tpl;
    std::vector<pto::TensorSlot> out;    // per node
    std::vector<pto::TensorSlot> carry;  // per (node, carry producer), in node order
    pto::ScalarSlot iteration;
};

StaticBody build_template(const Body& body, const Views& v, pto::BoundaryMode mode) {
    StaticBody s;
    pto::TemplateBuilder b(
        std::string(body.name) + (mode == pto::BoundaryMode::Manual ? "_manual" : "_tensormap"), mode);
    const auto n = static_cast<std::uint32_t>(body.nodes.size());
    s.iteration = b.scalar_slot("iteration");
    for (std::uint32_t k = 0; k < n; ++k)
        s.out.push_back(b.tensor_slot("out" + std::to_string(k)));
    for (std::uint32_t k = 0; k < n; ++k) {
        const BodyNode& node = body.nodes[k];
        pto::NodeArgs a;
        a.output(s.out[k]);
        for (std::uint32_t p : node.inputs)
            a.input(s.out[p]);
        std::uint32_t arg = 1 + static_cast<std::uint32_t>(node.inputs.size());
        for (std::uint32_t p : node.carry) {
            s.carry.push_back(b.tensor_slot("carry" + std::to_string(k) + "_" + std::to_string(p)));
            a.input(s.carry.back());
            if (mode == pto::BoundaryMode::Tensormap) b.boundary_input(k, arg);
            ++arg;
        }
        if (!node.carry.empty() && mode == pto::BoundaryMode::Manual) b.boundary_input(k);
        a.input(v.weight[k]).scalar(s.iteration).scalar_value(k).block_num(node.block_num);
        const FuncId f = func_of(k);
        if (node.core == CoreType::AIC)
            b.add_aic(f, a);
        else if (node.core == CoreType::MIX)
            b.add_mix(f, f, f, a);
        else
            b.add_aiv(f, a);
        for (std::uint32_t p : node.inputs)
            b.edge(p, k);
    }
    if (mode == pto::BoundaryMode::Tensormap) {
        std::set<std::uint32_t> carried;
        for (const BodyNode& node : body.nodes)
            carried.insert(node.carry.begin(), node.carry.end());
        for (std::uint32_t p : carried)
            b.boundary_output(p, 0);
    }
    s.tpl = b.finalize();
    return s;
}

std::uint64_t run_static(const Body& body, const Views& v, const StaticBody& s, pto::Bindings& b) {
    const auto n = static_cast<std::uint32_t>(body.nodes.size());
    const bool manual = s.tpl.mode() == pto::BoundaryMode::Manual;
    std::uint64_t checksum = 0;
    pto::Instance prev;
    for (std::uint32_t it = 0; it < body.iterations; ++it) {
        pto::ScopeGuard scope(manual ? pto::ScopeMode::Manual : pto::ScopeMode::Auto);
        b.scalar(s.iteration, it);
        std::uint32_t c = 0;
        for (std::uint32_t k = 0; k < n; ++k) {
            b.tensor(s.out[k], v.output(it, k, n));
            for (std::uint32_t p : body.nodes[k].carry) {
                b.tensor(s.carry[c++], v.output(std::int64_t{it} - 1, p, n));
                if (manual && it > 0) b.depend(k, prev.node(p));
            }
        }
        prev = pto::instantiate(b);
        checksum += prev.base().value;
    }
    return checksum;
}

// ---- Measurement ------------------------------------------------------------------------------------------

struct Options {
    int reps = 201;
    int warmup = 20;
    bool is_profiling = false;
    std::string only;       ///< --body: one body
    std::string only_mode;  ///< --mode: one mode (for perf record)
};

struct Summary {
    double median = 0, min = 0, max = 0;
};

Summary summarise(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return {v[v.size() / 2], v.front(), v.back()};
}

struct Row {
    std::string body;
    Mode mode;
    std::uint64_t tasks;
    std::uint64_t edges;
    Summary ns_per_task;
    pto::OrchestratorStats stats;
};

std::uint64_t g_checksum = 0;

Row measure(const Body& body, Mode mode, const Options& opts) {
    const std::uint64_t tasks = body.nodes.size() * std::uint64_t{body.iterations};
    const Views views(body);
    std::vector<pto::TaskId> ids(tasks);
    StaticBody s;
    if (mode == Mode::StaticManual) s = build_template(body, views, pto::BoundaryMode::Manual);
    if (mode == Mode::StaticTensormap) s = build_template(body, views, pto::BoundaryMode::Tensormap);
    std::unique_ptr<pto::Bindings> bindings;
    if (s.tpl.is_valid()) bindings = std::make_unique<pto::Bindings>(s.tpl);

    auto orchestrate = [&]() -> std::int64_t {
        const auto t0 = Clock::now();
        switch (mode) {
            case Mode::Manual:
                g_checksum += run_dynamic(body, views, true, ids);
                break;
            case Mode::Auto:
                g_checksum += run_dynamic(body, views, false, ids);
                break;
            default:
                g_checksum += run_static(body, views, s, *bindings);
                break;
        }
        return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
    };

    pto::RuntimeConfig c;
    c.orchestration = pto::OrchestrationMode::Serial;
    c.window_tasks = 1;
    while (c.window_tasks < tasks + 1)
        c.window_tasks *= 2;
    c.window_tasks = std::max<std::uint32_t>(c.window_tasks, 8);
    c.edge_capacity = 1u << 16;
    c.tensormap_entries = 1u << 14;
    c.profile_orchestrator = opts.is_profiling;

    Row row{body.name, mode, tasks, 0, {}, {}};
    {
        // One recorded run: the edge set each mode builds (they must agree).
        pto::RuntimeConfig rc = c;
        rc.record_graph = true;
        pto::Runtime rt(rc);
        pto::Orchestrator orch(rt);
        orch.run([&] { orchestrate(); });
        const pto::GraphCounts counts = pto::count_graph(rt.graph());
        row.edges = counts.kernel_edges + counts.framework_edges;
    }
    pto::Runtime rt(c);
    pto::Orchestrator orch(rt);
    std::vector<double> per_task;
    per_task.reserve(static_cast<std::size_t>(opts.reps));
    for (int r = 0; r < opts.warmup + opts.reps; ++r) {
        std::int64_t ns = 0;
        const pto::RunReport report = orch.run([&] { ns = orchestrate(); });
        if (report.kernel_tasks != tasks) {
            std::fprintf(stderr, "%s %s: %llu tasks, expected %llu\n", body.name, name_of(mode),
                         static_cast<unsigned long long>(report.kernel_tasks),
                         static_cast<unsigned long long>(tasks));
            std::exit(1);
        }
        if (r >= opts.warmup) per_task.push_back(static_cast<double>(ns) / static_cast<double>(tasks));
        if (r == opts.warmup) row.stats = report.orchestrator;
    }
    row.ns_per_task = summarise(per_task);
    return row;
}

}  // namespace

int main(int argc, char** argv) {
    Options opts;
    CLI::App app{
        "pto-bench-templates: per-task orchestration cost of the same bodies submitted dynamically (manual, "
        "tensormap) and as static-template instances (static-manual, static-tensormap); serial mode, instant "
        "executor"};
    app.add_option("--reps", opts.reps, "measured runs per figure (default 201)")
        ->check(CLI::Range(1, 100000));
    app.add_option("--warmup", opts.warmup, "unmeasured runs before them (default 20)")
        ->check(CLI::Range(0, 100000));
    app.add_option("--body", opts.only, "only this body")
        ->check(CLI::IsMember(std::vector<std::string>{"chain4", "diamond10", "qwen3_s3"}));
    app.add_option("--mode", opts.only_mode, "only this mode")
        ->check(CLI::IsMember(std::vector<std::string>{name_of(kModes[0]), name_of(kModes[1]),
                                                       name_of(kModes[2]), name_of(kModes[3])}));
    app.add_flag("--profile", opts.is_profiling, "add phase times per task (they perturb the totals)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    const Body bodies[] = {chain4(), diamond10(), qwen3_scope3()};
    std::printf(
        "pto-bench-templates: orchestration ns per task (serial mode, instant executor, %d runs after %d "
        "warm-up)\n\n",
        opts.reps, opts.warmup);
    std::printf("%-10s %-17s %6s %6s %9s %9s %9s %8s\n", "body", "mode", "tasks", "edges", "median", "min",
                "max", "x manual");
    for (const Body& body : bodies) {
        if (!opts.only.empty() && opts.only != body.name) continue;
        double manual_median = 0;
        for (Mode mode : kModes) {
            if (!opts.only_mode.empty() && opts.only_mode != name_of(mode)) continue;
            const Row r = measure(body, mode, opts);
            if (mode == Mode::Manual) manual_median = r.ns_per_task.median;
            std::printf("%-10s %-17s %6llu %6llu %9.1f %9.1f %9.1f %8.2f\n", r.body.c_str(), name_of(mode),
                        static_cast<unsigned long long>(r.tasks), static_cast<unsigned long long>(r.edges),
                        r.ns_per_task.median, r.ns_per_task.min, r.ns_per_task.max,
                        manual_median > 0 ? r.ns_per_task.median / manual_median : 0.0);
            if (opts.is_profiling) {
                const pto::OrchestratorStats& s = r.stats;
                const double t = static_cast<double>(r.tasks);
                std::printf(
                    "    per task: ring_alloc %.1f  arg_copy %.1f  dep_lookup %.1f  insert %.1f  fanin %.1f  "
                    "scope_end %.1f ns; lookups %llu inserts %llu edges_linked %llu\n",
                    static_cast<double>(s.ring_alloc_ns) / t, static_cast<double>(s.arg_copy_ns) / t,
                    static_cast<double>(s.dep_lookup_ns) / t, static_cast<double>(s.insert_ns) / t,
                    static_cast<double>(s.fanin_ns) / t, static_cast<double>(s.scope_end_ns) / t,
                    static_cast<unsigned long long>(s.tensormap_lookups),
                    static_cast<unsigned long long>(s.tensormap_inserts),
                    static_cast<unsigned long long>(s.edges_linked));
            }
        }
        std::printf("%-10s internal edges per iteration: %u; %s\n\n", body.name, internal_edges(body),
                    body.what);
    }
    std::printf("checksum %llu\n", static_cast<unsigned long long>(g_checksum));
    return 0;
}
