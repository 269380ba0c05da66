// Fitting the model's costs to device measurements: the deterministic search (fit_costs, usable on any
// graphs) and the `pto-bench --fit` command that reads a measurement file, replays the matching recorded
// graphs and writes a profile (docs/design/virtual-time-model.md, "Fitting a profile").
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog.h"
#include "pto/runtime/graph.h"
#include "pto/runtime/simulate.h"

namespace pto::bench {

/// FitParameter: a cost the search may move, within [lo, hi] (both > 0: the search works on log-costs).
struct FitParameter {
    std::string name;  ///< a cost_parameters() name
    double lo = 0.0;
    double hi = 0.0;
};

/// FitCase: one graph replayed on one configuration (its cost is replaced by each candidate).
struct FitCase {
    const GraphRecord* graph = nullptr;
    SimConfig config;
};

/// FitTarget: a measured span of case `numerator`, or (with a denominator) the ratio of two spans.
struct FitTarget {
    std::string id;
    std::size_t numerator = 0;
    std::optional<std::size_t> denominator;
    double measured = 0.0;
};

/// FitTie: a cost that moves with a free one (follower = leader), when the data cannot tell them apart.
struct FitTie {
    std::string follower;
    std::string leader;
};

struct FitProblem {
    std::vector<FitCase> cases;
    std::vector<FitTarget> targets;
    CostModel base;  ///< the costs that are not free
    std::vector<FitParameter> free;
    std::vector<FitTie> tied;
};

struct FitResult {
    CostModel cost;
    std::vector<double> predicted;  ///< per target
    double objective = 0.0;         ///< sum over targets of ln(predicted / measured)^2
    std::uint32_t evaluations = 0;
};

/// span_us: last kernel end - first kernel start of the simulated timeline (how the device figures are
/// taken), in microseconds.
[[nodiscard]] double span_us(const GraphRecord& graph, const SimConfig& config);

/// case_spans: each case's span_us under `cost`.
[[nodiscard]] std::vector<double> case_spans(const FitProblem& problem, const CostModel& cost);
/// predict: each target's predicted value under `cost`.
[[nodiscard]] std::vector<double> predict(const FitProblem& problem, const CostModel& cost);

/// fit_costs: Nelder-Mead on the free parameters' log-costs, each mapped to [0, 1] over [ln lo, ln hi] and
/// clamped there, from three fixed starts (the middle of the box, a quarter and three quarters along every
/// axis), each restarted once from its best point with a fresh simplex; the best point wins. No randomness:
/// equal problems give equal results. Throws pto::Error{InvalidArgument} for a bad parameter or target.
[[nodiscard]] FitResult fit_costs(const FitProblem& problem);

/// without_alloc_tasks: `graph` without its alloc tasks and their edges, ids renumbered (for devices whose
/// scratch allocations are not tasks).
[[nodiscard]] GraphRecord without_alloc_tasks(const GraphRecord& graph);

/// evaluate_measurements: predictions of a measurement file's targets under `cost` (no fitting): a JSON
/// array of {id, measured, predicted, error_pct}. The file's rows name scenarios of `catalog`, whose graphs
/// are recorded. Throws pto::Error for a bad file.
[[nodiscard]] nlohmann::json evaluate_measurements(const std::vector<Scenario>& catalog,
                                                   const std::string& measured_path, const CostModel& cost);

/// run_fit_command: pto-bench --fit MEASURED [--fit-out PROFILE]: fits, prints measured / predicted / error
/// and writes the profile JSON; rows name scenarios of `catalog`. Returns the exit code (0, or 1 after
/// printing the error).
int run_fit_command(const std::vector<Scenario>& catalog, const std::string& measured_path,
                    const std::string& out_path, std::ostream& out, std::ostream& err);

}  // namespace pto::bench
