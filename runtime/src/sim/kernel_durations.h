// KernelDurations: each subtask lane's kernel duration under the cost model, drawn from a counter-based
// hash of (seed, task, block, lane), so a duration does not depend on the order the model asks for it.
#pragma once

#include <cstdint>
#include <vector>

#include "pto/runtime/graph.h"
#include "pto/runtime/simulate.h"

namespace pto::detail::sim {

class KernelDurations {
  public:
    /// Resolves every kernel of graph.kernels, then applies cost.kernels (by func, or by name when the func
    /// is none). Does not check that the graph's tasks are covered: see has().
    KernelDurations(const GraphRecord& graph, const CostModel& cost, std::uint64_t seed);

    /// has: whether kernel `f` has a duration.
    [[nodiscard]] bool has(FuncId f) const { return f.value < params_.size() && params_[f.value].known; }
    /// duration_ns: lane `lane` of block `block` of the task at graph index `task`, running kernel `f`.
    [[nodiscard]] std::int64_t duration_ns(FuncId f, std::uint32_t task, std::uint32_t block,
                                           std::uint32_t lane) const;

  private:
    struct Params {
        bool known = false;
        bool has_quantiles = false;
        double mean_us = 0.0;
        double q_us[5] = {};   // min, median, P90, P99, max
        double q_scale = 1.0;  // mean / mean of the piecewise-linear inverse CDF: keeps the kernel's mean
        double log_mu = 0.0;   // lognormal parameters matching mean and cv
        double log_sigma = 0.0;
    };
    void set(FuncId f, const KernelCost& k);

    std::vector<Params> params_;  // indexed by FuncId
    DurationModel model_;
    double cv_;
    std::uint64_t seed_;
};

}  // namespace pto::detail::sim
