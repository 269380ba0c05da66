// Duration draws of the virtual-time model: fixed means, normal, lognormal or the seed's quantiles.
#include "kernel_durations.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace pto::detail::sim {
namespace {

// The cumulative probabilities of min, median, P90, P99 and max.
constexpr double kQuantileLevels[5] = {0.0, 0.5, 0.9, 0.99, 1.0};

std::uint64_t mix64(std::uint64_t z) {
    // splitmix64's finaliser: a bijective avalanche, so nearby keys give unrelated draws.
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// unit: a uniform draw in (0, 1) for the key (never 0, so log() is safe).
double unit(std::uint64_t seed, std::uint32_t task, std::uint32_t block, std::uint32_t lane,
            std::uint32_t salt) {
    std::uint64_t h = mix64(seed + 0x9E3779B97F4A7C15ull);
    h = mix64(h ^ (static_cast<std::uint64_t>(task) << 20) ^ block);
    h = mix64(h ^ (static_cast<std::uint64_t>(lane) << 2) ^ salt);
    return (static_cast<double>(h >> 11) + 0.5) * 0x1.0p-53;
}

/// standard_normal: Box-Muller from two keyed uniforms (written out so every platform draws the same).
double standard_normal(std::uint64_t seed, std::uint32_t task, std::uint32_t block, std::uint32_t lane) {
    const double u1 = unit(seed, task, block, lane, 1);
    const double u2 = unit(seed, task, block, lane, 2);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

std::int64_t to_ns(double us) {
    return std::llround(std::max(0.0, us) * 1000.0);
}

}  // namespace

KernelDurations::KernelDurations(const GraphRecord& graph, const CostModel& cost, std::uint64_t seed)
    : model_(cost.durations), cv_(cost.duration_cv), seed_(seed) {
    for (const KernelSummary& k : graph.kernels) {
        KernelCost c;
        c.func = k.id;
        c.mean_us = k.duration_us;
        set(k.id, c);
    }
    for (const KernelCost& k : cost.kernels) {
        if (!k.func.is_none()) {
            set(k.func, k);
            continue;
        }
        for (const KernelSummary& g : graph.kernels)
            if (g.name == k.name) set(g.id, k);
    }
}

void KernelDurations::set(FuncId f, const KernelCost& k) {
    if (f.is_none()) return;
    if (params_.size() <= f.value) params_.resize(f.value + 1u);
    Params& p = params_[f.value];
    p.known = true;
    p.mean_us = k.mean_us;
    p.has_quantiles = k.min_us > 0.0 && k.median_us > 0.0 && k.p90_us > 0.0 && k.p99_us > 0.0;
    p.q_us[0] = k.min_us;
    p.q_us[1] = k.median_us;
    p.q_us[2] = k.p90_us;
    p.q_us[3] = k.p99_us;
    p.q_us[4] = k.max_us > 0.0 ? k.max_us : k.p99_us;
    // The inverse CDF through the quantiles has its own mean (the trapezoids under it), which is not the
    // kernel's mean: scaling every draw by mean / that keeps the mean the model is given.
    p.q_scale = 1.0;
    if (p.has_quantiles && k.mean_us > 0.0) {
        double curve_mean = 0.0;
        for (int i = 0; i < 4; ++i)
            curve_mean += (kQuantileLevels[i + 1] - kQuantileLevels[i]) * (p.q_us[i] + p.q_us[i + 1]) / 2.0;
        if (curve_mean > 0.0) p.q_scale = k.mean_us / curve_mean;
    }
    // Lognormal with mean m and coefficient of variation cv: sigma^2 = ln(1 + cv^2), mu = ln m - sigma^2 / 2.
    const double s2 = std::log1p(cv_ * cv_);
    p.log_sigma = std::sqrt(s2);
    p.log_mu = k.mean_us > 0.0 ? std::log(k.mean_us) - s2 / 2.0 : 0.0;
}

std::int64_t KernelDurations::duration_ns(FuncId f, std::uint32_t task, std::uint32_t block,
                                          std::uint32_t lane) const {
    if (!has(f)) return 0;
    const Params& p = params_[f.value];
    if (p.mean_us <= 0.0 && !(model_ == DurationModel::Quantiles && p.has_quantiles)) return 0;
    switch (model_) {
        case DurationModel::Fixed:
            return to_ns(p.mean_us);
        case DurationModel::Normal:
            return to_ns(p.mean_us * (1.0 + cv_ * standard_normal(seed_, task, block, lane)));
        case DurationModel::Quantiles:
            if (p.has_quantiles) {
                // Inverse CDF through (0, min), (0.5, median), (0.9, P90), (0.99, P99), (1, max).
                const double u = unit(seed_, task, block, lane, 3);
                int i = 0;
                while (i < 3 && u > kQuantileLevels[i + 1])
                    ++i;
                const double w = (u - kQuantileLevels[i]) / (kQuantileLevels[i + 1] - kQuantileLevels[i]);
                return to_ns(p.q_scale * (p.q_us[i] + w * (p.q_us[i + 1] - p.q_us[i])));
            }
            [[fallthrough]];
        case DurationModel::LogNormal:
            return to_ns(std::exp(p.log_mu + p.log_sigma * standard_normal(seed_, task, block, lane)));
    }
    return to_ns(p.mean_us);
}

}  // namespace pto::detail::sim
