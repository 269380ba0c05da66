// The built-in cost profiles. Their numbers are the output of `pto-bench --fit` on the measurement files
// bench/profiles/<name>.measured.json, copied from bench/profiles/<name>.profile.json (a test checks that
// the two agree); docs/design/virtual-time-model.md gives each profile's source and residuals.
#include <array>

#include "pto/runtime/simulate.h"

namespace pto {
namespace {

/// proxy-a2a3: a lean AICPU runtime on an a2a3 board, busy-wait kernels of the reference mean durations,
/// paged attention with and without pending slots.
SimProfile proxy_a2a3() {
    SimProfile p;
    p.name = "proxy-a2a3";
    p.source = "lean AICPU runtime on an a2a3 board, busy-wait kernels, paged attention Case1 (4 spans)";
    return p;  // the CostModel defaults are this profile
}

/// simpler-a2a3: the PTO2 runtime on an a2a3 board with real kernels, Qwen3 decode layer (2 span ratios).
SimProfile simpler_a2a3() {
    SimProfile p;
    p.name = "simpler-a2a3";
    p.source = "PTO2 runtime on an a2a3 board, real kernels, Qwen3 decode layer (2 span ratios)";
    CostModel& c = p.cost;  // the proxy's costs, with the two it fits replaced
    c.fanout_edge_us = 0.451;
    c.tensormap_lookup_us = 0.894;
    c.tensormap_insert_us = 0.894;
    return p;
}

const std::array<SimProfile, 2>& profiles() {
    static const std::array<SimProfile, 2> all = {proxy_a2a3(), simpler_a2a3()};
    return all;
}

}  // namespace

const SimProfile* sim_profile(std::string_view name) {
    for (const SimProfile& p : profiles())
        if (p.name == name) return &p;
    return nullptr;
}

std::span<const SimProfile> sim_profiles() {
    return {profiles().data(), profiles().size()};
}

}  // namespace pto
