// The virtual-time model's settings on pto-bench's command line (--sim-profile, --sim-cost,
// --pending-slots), their resolution into a SimConfig for one scenario, and the JSON that records them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pto/runtime/graph.h"
#include "pto/runtime/simulate.h"
#include "pto/runtime/stats.h"

namespace pto::bench {

/// The AICPU time of the orchestrator's code per unit of this host's time, for the `host` profile:
/// 1.0 assumes the AICPU runs it as fast as the host. An assumption, not a measurement; override with
/// --sim-cost host_frequency_scale=X from your own comparison of the two.
inline constexpr double kDefaultHostFrequencyScale = 1.0;

/// SimSettings: the resolved model settings of one pto-bench run.
struct SimSettings {
    std::string profile = "proxy-a2a3";  ///< a built-in name, "host", "host:<base>" or a file path
    std::string source;                  ///< where the profile's costs come from
    CostModel cost;                      ///< the base costs, overrides applied (host: scheduler costs)
    bool use_pending_slots = true;
    bool host = false;  ///< orchestration costs come from this run's host measurement
    double host_frequency_scale = kDefaultHostFrequencyScale;
    std::vector<std::string> overridden;  ///< keys given with --sim-cost
};

/// resolve_sim_settings: `profile` (a built-in name, "host" = host orchestration with proxy-a2a3's
/// scheduler costs, "host:<built-in>" = with that profile's, or a profile JSON file), then each
/// "key=value" of `costs` (every name of cost_parameters(), plus host_frequency_scale), then
/// `pending_slots` ("on", "off" or empty = on). Throws pto::Error{InvalidArgument} naming the bad value.
[[nodiscard]] SimSettings resolve_sim_settings(const std::string& profile,
                                               const std::vector<std::string>& costs,
                                               const std::string& pending_slots);

/// load_profile_file: the costs of a profile JSON file ("pto-sim-profile/1": {"name", "source",
/// "costs": {key: value}}); keys it does not set keep the proxy-a2a3 value. Throws pto::Error.
[[nodiscard]] SimProfile load_profile_file(const std::string& path);

/// sim_config_for: the SimConfig of one scenario: the settings' costs, the run's tensormap totals, and for
/// the host profile submit_us = the measured orchestration time per submit x the frequency scale (edge
/// and tensormap costs 0: the measurement includes them).
[[nodiscard]] SimConfig sim_config_for(const SimSettings& settings, const GraphRecord& graph,
                                       const OrchestratorStats& stats, double host_orch_ns_per_kernel_task);

/// sim_settings_json: the profile, pending slots and every cost used (the `sim` object's "profile",
/// "pending_slots" and "costs").
[[nodiscard]] nlohmann::json sim_settings_json(const SimSettings& settings, const SimConfig& config);

/// sim_extra_json: the report's fields beyond the basic ones: capacity-weighted overhead, head/tail per
/// kernel, and the device orchestration + scheduling cost.
[[nodiscard]] nlohmann::json sim_extra_json(const SimReport& report, const DeviceOrchestrationCost& device);

}  // namespace pto::bench
