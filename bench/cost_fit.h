// Fitting orchestration cost to the graph: over the SPMD tiers of one case and mode, ns per launch =
// per_task + per_edge x edges per launch, by least squares. The fixed cost per task is the figure the
// per-edge work cannot explain away.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pto::bench {

/// LineFit: one straight line through the tiers.
struct LineFit {
    double per_task_ns = 0.0;      ///< intercept: cost of a launch with no edge
    double per_edge_ns = 0.0;      ///< slope: cost of one more edge
    double max_residual_ns = 0.0;  ///< largest |measured - fitted| ns per launch over the tiers
};

/// CostFit: the lines through one case and mode's tiers: through each tier's median, and through each
/// tier's min. On a quiet machine the two agree; on a noisy one the medians of different tiers may sit on
/// different levels of the machine's speed, and the min line is the one to read.
struct CostFit {
    std::string case_name;
    std::string mode;
    std::uint32_t tiers = 0;  ///< results the fit used
    LineFit median;
    std::optional<LineFit> min;  ///< absent when a tier has no min
};

/// fit_line: least squares of y = a + b x; false (a, b untouched) with fewer than two distinct x.
bool fit_line(const std::vector<double>& x, const std::vector<double>& y, double& a, double& b);

/// fit_costs: one CostFit per (case, mode) of `results` (pto-bench result objects, ours only: peers are
/// skipped) that has at least two tiers with distinct edges per launch, fitted to the median
/// orch_ns_per_task of each tier, and to the min where every tier has one. In the order the pairs first
/// appear.
[[nodiscard]] std::vector<CostFit> fit_costs(const nlohmann::json& results);

/// to_json: {"case", "mode", "tiers", "per_task_ns", "per_edge_ns", "max_residual_ns"} from the medians,
/// and "min": {"per_task_ns", "per_edge_ns", "max_residual_ns"} when the mins were fitted.
[[nodiscard]] nlohmann::json to_json(const CostFit& fit);

/// add_cost_fit: sets report["cost_fit"] to the fits of report["results"] (absent when nothing fits).
void add_cost_fit(nlohmann::json& report);

/// print_cost_fit: one line per fit of report["cost_fit"], after the table.
void print_cost_fit(std::ostream& out, const nlohmann::json& report);

}  // namespace pto::bench
