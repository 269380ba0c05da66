// The `paged_attention` program: builds the unrolled paged-attention graph (docs/design/reference-graphs.md)
// in schemes A-D, runs it on the chosen executor, and prints per scheme the task and edge counts, the
// orchestration time per kernel launch and, in compute mode, the golden verdict. Exit status: 0 fine, 1 a
// golden mismatch or failed run, 2 bad options.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "pto/examples/paged_attention.h"

namespace pa = pto::examples::paged_attention;
using pto::examples::Scheme;

namespace {

// Compute mode allocates the caches for real; beyond this it is the wrong tool (use instant or timed).
constexpr std::uint64_t kMaxComputeBytes = 1ull << 30;

struct Options {
    std::string mode = "all";
    std::string executor = "instant";
    std::string case_name;  // empty: case1, or compute for the compute executor
    std::optional<std::uint32_t> batch, num_heads, kv_heads, head_dim, block_size, max_model_len, n_unroll,
        context_len;
    std::vector<std::uint32_t> context_lens;
    bool concurrent = false;
    double jitter = 0.0;
    double timed_scale = 1.0;
    std::uint64_t seed = 1;
    std::uint32_t reps = 1;
    std::uint32_t warmup = 1;
    std::string mismatch_dir{pa::kMismatchDir};
};

struct UsageError {
    std::string message;
};

std::vector<Scheme> parse_modes(const std::string& mode) {
    const auto schemes = pto::examples::parse_schemes(mode);
    if (!schemes)
        throw UsageError{
            "--mode: unknown scheme in '" + mode +
            "' (manual|tensormap|static-manual|static-tensormap|A|B|C|D, a comma-separated list, "
            "or all)"};
    return *schemes;
}

pto::Executor parse_executor(const std::string& name) {
    if (const auto e = pto::parse_executor(name)) return *e;
    throw UsageError{"--executor: unknown executor '" + name + "' (instant|timed|compute)"};
}

pa::Shape make_shape(const Options& o, pto::Executor executor) {
    const std::string name =
        o.case_name.empty() ? (executor == pto::Executor::Compute ? "compute" : "case1") : o.case_name;
    pa::Shape s;
    if (name == "case1")
        s = pa::case1();
    else if (name == "compute")
        s = pa::compute_case();
    else
        throw UsageError{"--case: unknown case '" + name + "' (case1|compute)"};
    const std::vector<std::uint32_t> pattern = s.context_lens;
    if (o.num_heads) s.num_heads = *o.num_heads;
    if (o.kv_heads) s.kv_head_num = *o.kv_heads;
    if (o.head_dim) s.head_dim = *o.head_dim;
    if (o.block_size) s.block_size = *o.block_size;
    if (o.max_model_len) s.max_model_len = *o.max_model_len;
    if (o.n_unroll) s.n_unroll = *o.n_unroll;
    if (!o.context_lens.empty()) {
        if (o.batch && *o.batch != o.context_lens.size())
            throw UsageError{"--batch " + std::to_string(*o.batch) + " disagrees with the " +
                             std::to_string(o.context_lens.size()) + " entries of --context-lens"};
        s.batch = static_cast<std::uint32_t>(o.context_lens.size());
        s.context_lens = o.context_lens;
    } else {
        if (o.batch) s.batch = *o.batch;
        s.context_lens.resize(s.batch);
        // A new batch size repeats the case's length pattern.
        for (std::uint32_t b = 0; b < s.batch; ++b)
            s.context_lens[b] = pattern[b % pattern.size()];
        if (o.context_len) s.context_lens.assign(s.batch, *o.context_len);
    }
    if (executor == pto::Executor::Compute) s.dtype = pto::DataType::F32;
    try {
        s.validate();
    } catch (const pto::Error& e) {
        throw UsageError{std::string(e.message())};
    }
    if (executor == pto::Executor::Compute && pa::Problem::bytes(s) > kMaxComputeBytes)
        throw UsageError{"compute mode would allocate " + std::to_string(pa::Problem::bytes(s) >> 20) +
                         " MiB (limit " + std::to_string(kMaxComputeBytes >> 20) +
                         " MiB); reduce the dimensions or use --executor instant|timed"};
    return s;
}

void print_shape(const pa::Shape& s, const pto::RuntimeConfig& cfg) {
    std::uint32_t shortest = s.context_lens[0];
    for (std::uint32_t n : s.context_lens)
        shortest = std::min(shortest, n);
    std::printf(
        "paged attention (unrolled): batch %u, heads %u (kv %u), head_dim %u, block_size %u, context %u..%u, "
        "max_model_len %u, n_unroll %u, %s\n",
        s.batch, s.num_heads, s.kv_head_num, s.head_dim, s.block_size, shortest, s.max_context_len(),
        s.max_model_len, s.n_unroll, s.dtype == pto::DataType::F32 ? "f32" : "bf16");
    std::printf("q_tile %u, %llu scopes, %llu groups; executor %s, %s orchestration\n", s.q_tile(),
                static_cast<unsigned long long>(s.scope_count()),
                static_cast<unsigned long long>(s.group_count()), pto::to_string(cfg.executor).data(),
                cfg.orchestration == pto::OrchestrationMode::Serial ? "serial" : "concurrent");
}

double median_ms(std::vector<std::int64_t> v) {
    std::sort(v.begin(), v.end());
    return static_cast<double>(v[v.size() / 2]) * 1e-6;
}

int run(const Options& o, const std::vector<Scheme>& schemes, pto::Executor executor) {
    const pa::Shape shape = make_shape(o, executor);
    pto::RuntimeConfig cfg;
    cfg.executor = executor;
    cfg.record_graph = true;
    cfg.timed_jitter = o.jitter;
    cfg.timed_scale = o.timed_scale;
    cfg.seed = o.seed;
    // Serial by default: every edge the orchestration states or discovers is recorded (concurrent mode may
    // skip producers that already retired). Either way the pools hold the whole graph, so Case1's 0.8 MiB
    // of scratch per scope never waits for heap space (the buffers of the instant and timed executors are
    // never touched, so the large heap costs address space only).
    if (!o.concurrent) cfg.orchestration = pto::OrchestrationMode::Serial;
    pa::fit_whole_graph(cfg, shape);
    const bool compute = executor == pto::Executor::Compute;
    pa::Problem problem(shape, compute ? pa::Memory::Real : pa::Memory::Virtual, o.seed);
    pto::Runtime rt(cfg);
    pa::register_kernels(rt);
    // One Orchestrator for every run: its tensormap is built once, not per run.
    pto::Orchestrator orchestrator(rt);
    print_shape(shape, cfg);
    std::printf("times: median of %u run(s) after %u warm-up run(s)%s\n\n", o.reps, o.warmup,
                o.warmup == 0 ? " -- a cold run: it includes first-touch and allocation costs" : "");

    std::printf("%-6s %-16s %12s %15s %9s %12s %15s %9s %9s %8s  %s\n", "scheme", "mode", "kernel_tasks",
                "framework_tasks", "subtasks", "kernel_edges", "framework_edges", "orch_ms", "e2e_ms",
                "ns/task", "golden");
    int status = 0;
    for (Scheme scheme : schemes) {
        // Repetitions: the reported times are the medians; counts and golden come from the last run.
        std::vector<std::int64_t> orch_ns, e2e_ns;
        pto::RunReport report;
        for (std::uint32_t rep = 0; rep < o.warmup + o.reps; ++rep) {
            problem.poison_out();
            report = orchestrator.run([&] { pa::build(problem, scheme); });
            if (rep < o.warmup) continue;
            orch_ns.push_back(report.orchestration_ns);
            e2e_ns.push_back(report.end_to_end_ns);
        }
        const pa::GraphCounts c = pto::count_graph(rt.graph());
        std::string verdict = "-";
        std::optional<pa::GoldenResult> golden;
        if (compute) {
            golden = pa::check_golden(problem, "paged_attention_" + std::string(1, letter(scheme)) + "_out",
                                      o.mismatch_dir);
            char buf[128];
            std::snprintf(buf, sizeof buf, "%s (max abs err %.2e, tolerance %.2e)",
                          golden->ok ? "match" : "MISMATCH", golden->max_abs_error, golden->tolerance);
            verdict = buf;
            if (!golden->ok) status = 1;
        }
        std::printf(
            "%-6c %-16s %12llu %15llu %9llu %12llu %15llu %9.3f %9.3f %8.1f  %s\n", letter(scheme),
            std::string(to_string(scheme)).c_str(), static_cast<unsigned long long>(report.kernel_tasks),
            static_cast<unsigned long long>(report.framework_tasks),
            static_cast<unsigned long long>(report.subtasks), static_cast<unsigned long long>(c.kernel_edges),
            static_cast<unsigned long long>(c.framework_edges), median_ms(orch_ns), median_ms(e2e_ns),
            median_ms(orch_ns) * 1e6 / static_cast<double>(report.kernel_tasks), verdict.c_str());
        if (golden && !golden->ok)
            std::printf(
                "       first bad element %lld; golden and actual written to %s.{golden,actual}.txt\n",
                static_cast<long long>(golden->first_bad),
                golden->dump_prefix.empty() ? "(nowhere: write failed)" : golden->dump_prefix.c_str());
        const pa::GraphCounts want = pa::expected_counts(shape, scheme);
        if (!(c == want)) {
            std::fprintf(
                stderr,
                "warning: scheme %c recorded %llu kernel / %llu framework edges, expected %llu / %llu\n",
                letter(scheme), static_cast<unsigned long long>(c.kernel_edges),
                static_cast<unsigned long long>(c.framework_edges),
                static_cast<unsigned long long>(want.kernel_edges),
                static_cast<unsigned long long>(want.framework_edges));
            status = 1;
        }
    }
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Paged attention (unrolled, docs/design/reference-graphs.md): schemes A (manual scope), B "
        "(tensormap), C (static "
        "templates, manual boundaries) and D (static templates, tensormap boundaries)",
        "paged_attention"};
    Options o;
    app.add_option("--mode", o.mode,
                   "manual|tensormap|static-manual|static-tensormap|A|B|C|D, a comma-separated list, or all")
        ->capture_default_str();
    app.add_option("--executor", o.executor, "instant|timed|compute")->capture_default_str();
    app.add_option("--case", o.case_name,
                   "case1 (the full-size Case1) or compute (reduced); default by executor");
    app.add_option("--batch", o.batch, "sequences");
    app.add_option("--num-heads", o.num_heads, "query heads");
    app.add_option("--kv-heads", o.kv_heads, "KV heads");
    app.add_option("--head-dim", o.head_dim, "head dimension");
    app.add_option("--block-size", o.block_size, "tokens per KV page");
    app.add_option("--max-model-len", o.max_model_len, "longest context (block table width)");
    app.add_option("--n-unroll", o.n_unroll, "KV blocks per group");
    CLI::Option* one_len =
        app.add_option("--context-len", o.context_len, "the same context length for every sequence");
    app.add_option("--context-lens", o.context_lens,
                   "per-sequence context lengths, comma-separated (sets batch)")
        ->delimiter(',')
        ->excludes(one_len);
    app.add_flag("--concurrent", o.concurrent, "schedule while submitting (default: serial orchestration)");
    app.add_option("--jitter", o.jitter,
                   "timed: duration jitter; compute: random delay before kernels (0..1)")
        ->check(CLI::Range(0.0, 1.0));
    app.add_option("--timed-scale", o.timed_scale, "timed executor: wall time per kernel microsecond")
        ->check(CLI::PositiveNumber);
    app.add_option("--reps", o.reps, "runs per scheme on one Orchestrator; times are medians")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    app.add_option("--warmup", o.warmup, "unmeasured runs before them (0: time a cold first run)")
        ->capture_default_str();
    app.add_option("--seed", o.seed, "data and jitter seed")->capture_default_str();
    app.add_option("--mismatch-dir", o.mismatch_dir, "where golden mismatches are written")
        ->capture_default_str();
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return 0;
    } catch (const CLI::ParseError& e) {
        std::cerr << "paged_attention: " << e.what() << "\n\n" << app.help();
        return 2;
    }
    try {
        const std::vector<Scheme> schemes = parse_modes(o.mode);
        return run(o, schemes, parse_executor(o.executor));
    } catch (const UsageError& e) {
        std::cerr << "paged_attention: " << e.message << "\n\n" << app.help();
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "paged_attention: " << e.what() << "\n";
        return 1;
    }
}
