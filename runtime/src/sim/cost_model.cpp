// CostModel's parameter table, host-measurement scaling, the zero-cost variant and validation (simulate.h
// lists every parameter; docs/design/virtual-time-model.md explains them).
#include <array>
#include <cmath>
#include <string>

#include "pto/runtime/detail/throw.h"
#include "pto/runtime/simulate.h"

namespace pto {
namespace {

constexpr std::array<CostParameter, 11> kParameters = {{
    {"submit_us", &CostModel::submit_us},
    {"submit_edge_us", &CostModel::submit_edge_us},
    {"tensormap_lookup_us", &CostModel::tensormap_lookup_us},
    {"tensormap_insert_us", &CostModel::tensormap_insert_us},
    {"dispatch_us", &CostModel::dispatch_us},
    {"completion_us", &CostModel::completion_us},
    {"fanout_edge_us", &CostModel::fanout_edge_us},
    {"start_latency_us", &CostModel::start_latency_us},
    {"core_pickup_us", &CostModel::core_pickup_us},
    {"poll_us", &CostModel::poll_us},
    {"duration_cv", &CostModel::duration_cv},
}};

void check_cost(const char* field, double value) {
    if (!std::isfinite(value) || value < 0.0) [[unlikely]]
        detail::throw_error(ErrorCode::InvalidArgument, std::string("CostModel::") + field + " = " +
                                                            std::to_string(value) +
                                                            ": must be a finite number of microseconds >= 0");
}

}  // namespace

std::span<const CostParameter> cost_parameters() {
    // duration_cv is a shape parameter, not an AICPU cost: the table lists it last so callers that want
    // only the costs take the first size() - 1 entries.
    return {kParameters.data(), kParameters.size()};
}

const CostParameter* find_cost_parameter(std::string_view name) {
    for (const CostParameter& p : kParameters)
        if (name == p.name) return &p;
    return nullptr;
}

CostModel without_aicpu_costs(CostModel cost) {
    for (const CostParameter& p : kParameters)
        if (p.field != &CostModel::duration_cv) cost.*p.field = 0.0;
    return cost;
}

double CostModel::host_submit_us(double host_ns_per_submit, double frequency_scale) {
    if (!std::isfinite(host_ns_per_submit) || host_ns_per_submit < 0.0 || !std::isfinite(frequency_scale) ||
        frequency_scale <= 0.0) [[unlikely]]
        detail::throw_error(ErrorCode::InvalidArgument,
                            "CostModel::host_submit_us(" + std::to_string(host_ns_per_submit) + ", " +
                                std::to_string(frequency_scale) +
                                "): the host cost must be >= 0 ns and the frequency scale > 0");
    return host_ns_per_submit * frequency_scale / 1000.0;
}

void CostModel::validate() const {
    for (const CostParameter& p : kParameters)
        check_cost(p.name, this->*p.field);
    for (const KernelCost& k : kernels) {
        const std::string who =
            k.func.is_none() ? "'" + k.name + "'" : "func " + std::to_string(k.func.value);
        if (k.func.is_none() && k.name.empty()) [[unlikely]]
            detail::throw_error(ErrorCode::InvalidArgument,
                                "CostModel::kernels: an entry has neither a func nor a name to match");
        const double values[6] = {k.mean_us, k.min_us, k.median_us, k.p90_us, k.p99_us, k.max_us};
        for (double v : values)
            if (!std::isfinite(v) || v < 0.0) [[unlikely]]
                detail::throw_error(ErrorCode::InvalidArgument, "CostModel::kernels: kernel " + who +
                                                                    " has a negative or non-finite duration");
        const double q[5] = {k.min_us, k.median_us, k.p90_us, k.p99_us, k.max_us};
        double last = 0.0;
        for (double v : q) {
            if (v == 0.0) continue;  // unknown
            if (v < last) [[unlikely]]
                detail::throw_error(
                    ErrorCode::InvalidArgument,
                    "CostModel::kernels: kernel " + who +
                        " has decreasing quantiles (min <= median <= P90 <= P99 <= max required)");
            last = v;
        }
    }
}

}  // namespace pto
