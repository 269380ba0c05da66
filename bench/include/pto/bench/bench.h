// pto::bench: pto-bench's measurements for any graph. A program registers its workloads (a graph it can
// orchestrate in one or more dependency schemes, with its kernels) and hands its command line to
// Bench::run, which then behaves as pto-bench does with those workloads as its cases: orchestration cost in
// serial mode, end-to-end cost in concurrent mode, the virtual-time model, peers, traces, DOT, charts,
// --base-data and the JSON report (docs/bench.md, "Benchmarking your own graph").
//
//     pto::bench::Bench bench("diamond-bench");
//     bench.add({.name = "diamond",
//                .description = "64 diamonds of four kernels",
//                .make = [](pto::Executor) { return std::make_unique<Diamond>(); }});
//     return bench.run(argc, argv);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pto/runtime/config.h"
#include "pto/runtime/runtime.h"

namespace pto::bench {

/// Scheme: how a workload states its dependencies in one run (the `--mode` values and the JSON `mode`).
enum class Scheme : std::uint8_t {
    Manual,           ///< dynamic submission in PTO2_SCOPE(MANUAL), explicit edges
    Tensormap,        ///< dynamic submission in PTO2_SCOPE(), edges discovered from the tensors
    StaticManual,     ///< static templates, boundary edges given by hand
    StaticTensormap,  ///< static templates, boundary edges discovered from the tensors
};
inline constexpr Scheme kAllSchemes[] = {Scheme::Manual, Scheme::Tensormap, Scheme::StaticManual,
                                         Scheme::StaticTensormap};

/// Tier: the SPMD width a tiered workload aims its launches at: 1, 2, 4, 8 blocks, or one launch per
/// operator (the `--tier` values and the JSON `tier`).
enum class Tier : std::uint8_t { NonSpmd, Spmd2, Spmd4, Spmd8, AllSpmd };
inline constexpr Tier kAllTiers[] = {Tier::NonSpmd, Tier::Spmd2, Tier::Spmd4, Tier::Spmd8, Tier::AllSpmd};

/// to_string: "manual", "tensormap", "static-manual", "static-tensormap".
[[nodiscard]] std::string_view to_string(Scheme scheme);
/// to_string: "non-spmd", "spmd-2", "spmd-4", "spmd-8", "all-spmd".
[[nodiscard]] std::string_view to_string(Tier tier);
/// target_width: the blocks per launch the tier aims at: 1, 2, 4, 8, or UINT32_MAX for all-spmd.
[[nodiscard]] std::uint32_t target_width(Tier tier);

/// Sizes: the shape parameters that identify a workload's graph, as (name, value) pairs; each result
/// reports them as its "sizes" object, and --base-data matches results on them.
using Sizes = std::vector<std::pair<std::string, std::int64_t>>;

/// Workload: one instance of a graph, built for one executor. The bench calls register_kernels on every
/// Runtime it makes, then for each run prepare_run (outside the timed region) and orchestrate (inside it).
/// All calls come from one thread. A sweep makes one instance per workload and measures every selected
/// scheme and tier on it, their runs interleaved (BenchOptions::rounds).
class Workload {
  public:
    virtual ~Workload() = default;

    /// register_kernels: every kernel the graph launches: its name, its mean device duration in us (the
    /// model and the timed executor use it) and its CPU function (the compute executor runs it).
    virtual void register_kernels(Runtime& runtime) = 0;
    /// orchestrate: the orchestration function of one run: submits the whole graph in `scheme` (one of
    /// the spec's schemes). `tier` is set when the spec is tiered, else empty.
    virtual void orchestrate(Scheme scheme, std::optional<Tier> tier) = 0;
    /// prepare_run: before each run, outside the timed region (e.g. poisoning outputs).
    virtual void prepare_run() {}
    /// verify: after the compute executor's runs, why the outputs are wrong, or an empty string when they
    /// match (or when the workload has no golden check). Reported as the result's "golden".
    [[nodiscard]] virtual std::string verify() { return {}; }
    /// sizes: the shape parameters of this instance.
    [[nodiscard]] virtual Sizes sizes() const { return {}; }
};

/// WorkloadSpec: a named workload as the command line sees it.
struct WorkloadSpec {
    /// name: the --case value and the JSON "case" ('-' and '_' are interchangeable on the command line).
    std::string name;
    /// description: what the graph is, for --list ("64 diamonds of four kernels"); the tier and the
    /// scheme are appended.
    std::string description;
    /// schemes: the schemes orchestrate() builds, in sweep order.
    std::vector<Scheme> schemes{Scheme::Manual, Scheme::Tensormap};
    /// tiered: whether the graph is measured once per SPMD tier (else orchestrate gets no tier).
    bool tiered = false;
    /// in_default_sweep: whether it runs when the command line names no --case.
    bool in_default_sweep = true;
    /// make: an instance for `executor` (one per sweep): the compute executor runs the kernels on real
    /// memory; the instant and timed executors never touch it, so full-size graphs may use fake addresses
    /// there.
    std::function<std::unique_ptr<Workload>(Executor executor)> make;
};

/// Bench: the registered workloads and the command-line entry point.
class Bench {
  public:
    /// `program` prefixes messages and heads the usage text.
    explicit Bench(std::string program = "pto-bench");

    /// add: registers a workload; the sweep runs them in the order added. Throws pto::Error
    /// {InvalidArgument} for an empty or repeated name, the name "all", a name with a comma, a slash or a
    /// space, no scheme, a repeated scheme or no `make`.
    Bench& add(WorkloadSpec spec);

    /// run: parses the command line (every pto-bench option; --help lists them), measures the selected
    /// scenarios, prints the table and writes the report. Returns the exit status: 0, 1 when a scenario or
    /// an output file failed, 2 for a usage error.
    [[nodiscard]] int run(int argc, char** argv) const;

    [[nodiscard]] const std::string& program() const { return program_; }
    [[nodiscard]] const std::vector<WorkloadSpec>& workloads() const { return workloads_; }

  private:
    std::string program_;
    std::vector<WorkloadSpec> workloads_;
};

}  // namespace pto::bench
