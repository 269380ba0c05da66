// Workload: one benchmark graph pto-bench can build in every scheme it supports: the reference graphs of
// docs/design/reference-graphs.md and two synthetic shapes (chain, fan-in). Cold code: one virtual call per
// orchestration.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pto/examples/common.h"
#include "pto/runtime/runtime.h"

namespace pto::bench {

enum class CaseKind { Qwen3, PagedAttention, Chain, FanIn, Moe };

[[nodiscard]] std::string_view to_string(CaseKind c);

class Workload {
  public:
    virtual ~Workload() = default;

    /// sizes: the shape parameters that identify this graph (part of a result's identity).
    [[nodiscard]] virtual nlohmann::json sizes() const = 0;
    /// register_kernels: names, mean durations and (compute executor) CPU functions.
    virtual void register_kernels(Runtime& runtime) = 0;
    /// prepare_run: before each run, outside the timed region (e.g. poisoning outputs in compute mode).
    virtual void prepare_run() {}
    /// orchestrate: the orchestration function body; called inside pto::run / Orchestrator::run.
    virtual void orchestrate(examples::Scheme scheme, std::optional<examples::SpmdTier> tier) = 0;
    /// verify: after a compute-executor run, whether the outputs match the golden reference (empty string
    /// when they do or when the workload has no golden check).
    [[nodiscard]] virtual std::string verify() { return {}; }
};

/// supports: whether the workload of `kind` builds `scheme` (answered without building it).
[[nodiscard]] bool supports(CaseKind kind, examples::Scheme scheme);

/// make_workload: the workload of `kind`, at full size for the instant and timed executors (buffers are
/// fake addresses) or reduced and backed by memory for the compute executor.
[[nodiscard]] std::unique_ptr<Workload> make_workload(CaseKind kind, Executor executor);

}  // namespace pto::bench
