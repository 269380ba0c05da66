// CostModel defaults per dependency mode, host-measurement scaling, and validation (simulate.h lists every
// parameter with its default and source; docs/design/virtual-time-model.md explains the choices).
#include <cmath>
#include <string>

#include "pto/runtime/detail/throw.h"
#include "pto/runtime/simulate.h"

namespace pto {
namespace {

// The published AICPU cost of one tensormap submit (SPEC §7), about half of it lookup and dependency
// building.
constexpr double kPublishedTensormapSubmitUs = 0.874;

void check_cost(const char* field, double value) {
    if (!std::isfinite(value) || value < 0.0) [[unlikely]]
        detail::throw_error(ErrorCode::InvalidArgument, std::string("CostModel::") + field + " = " +
                                                            std::to_string(value) +
                                                            ": must be a finite number of microseconds >= 0");
}

}  // namespace

double CostModel::default_submit_us(DependencyMode mode) {
    switch (mode) {
        case DependencyMode::Tensormap:
            return kPublishedTensormapSubmitUs;
        case DependencyMode::Manual:
            return kPublishedTensormapSubmitUs / 2.0;
        case DependencyMode::StaticManual:
            return kPublishedTensormapSubmitUs / 4.0;
        case DependencyMode::StaticTensormap:
            return kPublishedTensormapSubmitUs / 2.0;
    }
    return kPublishedTensormapSubmitUs;
}

CostModel CostModel::for_mode(DependencyMode mode) {
    CostModel c;
    c.submit_us = default_submit_us(mode);
    return c;
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
    check_cost("duration_cv", duration_cv);
    check_cost("submit_us", submit_us);
    check_cost("submit_edge_us", submit_edge_us);
    check_cost("dispatch_us", dispatch_us);
    check_cost("completion_us", completion_us);
    check_cost("fanout_edge_us", fanout_edge_us);
    check_cost("core_pickup_us", core_pickup_us);
    check_cost("poll_us", poll_us);
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
