// Resolving --sim-profile / --sim-cost / --pending-slots, and the model's settings and extra figures in the
// result JSON.
#include "sim_options.h"

#include <charconv>
#include <cmath>
#include <fstream>

#include "pto/runtime/detail/throw.h"

namespace pto::bench {
namespace {

[[noreturn]] void bad(const std::string& message) {
    detail::throw_error(ErrorCode::InvalidArgument, message);
}

double parse_number(const std::string& key, const std::string& text) {
    double v = 0.0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc{} || ptr != end || !std::isfinite(v) || v < 0.0)
        bad("--sim-cost " + key + "=" + text + ": the value must be a finite number >= 0");
    return v;
}

std::string known_keys() {
    std::string keys;
    for (const CostParameter& p : cost_parameters())
        keys += std::string(keys.empty() ? "" : ", ") + p.name;
    return keys + ", host_frequency_scale";
}

std::string known_profiles() {
    std::string names;
    for (const SimProfile& p : sim_profiles())
        names += p.name + ", ";
    return names + "host, host:<profile>, or a profile JSON file";
}

}  // namespace

SimProfile load_profile_file(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        bad("--sim-profile " + path + ": no built-in profile of that name (" + known_profiles() +
            ") and no readable file");
    nlohmann::json j;
    try {
        in >> j;
    } catch (const nlohmann::json::exception& e) {
        bad("profile file " + path + ": not JSON (" + e.what() + ")");
    }
    if (!j.is_object() || !j.contains("costs") || !j.at("costs").is_object())
        bad("profile file " + path + ": expected an object with a \"costs\" object");
    SimProfile p;
    p.name = j.value("name", path);
    p.source = j.value("source", "profile file " + path);
    for (const auto& [key, value] : j.at("costs").items()) {
        const CostParameter* param = find_cost_parameter(key);
        if (param == nullptr)
            bad("profile file " + path + ": unknown cost '" + key + "' (" + known_keys() + ")");
        if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0.0)
            bad("profile file " + path + ": cost '" + key + "' must be a number >= 0");
        p.cost.*param->field = value.get<double>();
    }
    return p;
}

SimSettings resolve_sim_settings(const std::string& profile, const std::vector<std::string>& costs,
                                 const std::string& pending_slots) {
    SimSettings s;
    s.profile = profile.empty() ? "proxy-a2a3" : profile;
    std::string base = s.profile;
    if (s.profile == "host" || s.profile.rfind("host:", 0) == 0) {
        s.host = true;
        base = s.profile == "host" ? "proxy-a2a3" : s.profile.substr(5);
        if (sim_profile(base) == nullptr)
            bad("--sim-profile " + s.profile + ": the host profile's base must be a built-in profile (" +
                known_profiles() + ")");
    }
    if (const SimProfile* builtin = sim_profile(base)) {
        s.cost = builtin->cost;
        s.source = builtin->source;
    } else {
        const SimProfile file = load_profile_file(base);
        s.cost = file.cost;
        s.source = file.source;
    }
    if (s.host)
        s.source = "orchestration measured on this host x host_frequency_scale; scheduler costs of " + base;
    for (const std::string& kv : costs) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos) bad("--sim-cost " + kv + ": expected key=value (" + known_keys() + ")");
        const std::string key = kv.substr(0, eq);
        const double value = parse_number(key, kv.substr(eq + 1));
        if (key == "host_frequency_scale") {
            if (value <= 0.0) bad("--sim-cost host_frequency_scale must be > 0");
            s.host_frequency_scale = value;
        } else if (const CostParameter* p = find_cost_parameter(key)) {
            s.cost.*p->field = value;
        } else {
            bad("--sim-cost " + kv + ": unknown cost '" + key + "' (" + known_keys() + ")");
        }
        s.overridden.push_back(key);
    }
    if (pending_slots.empty() || pending_slots == "on") {
        s.use_pending_slots = true;
    } else if (pending_slots == "off") {
        s.use_pending_slots = false;
    } else {
        bad("--pending-slots " + pending_slots + ": expected on or off");
    }
    return s;
}

SimConfig sim_config_for(const SimSettings& settings, const GraphRecord& graph,
                         const OrchestratorStats& stats, double host_orch_ns_per_kernel_task) {
    SimConfig c;
    c.cost = settings.cost;
    c.use_pending_slots = settings.use_pending_slots;
    c.tensormap_lookups = stats.tensormap_lookups;
    c.tensormap_inserts = stats.tensormap_inserts;
    if (settings.host) {
        std::uint64_t kernels = 0;
        for (const RecordedTask& t : graph.tasks)
            kernels += t.kind == TaskKind::Kernel ? 1 : 0;
        // The host figure is per kernel task; the model charges every submit, so spread the same total
        // over all of them.
        const double total_ns = host_orch_ns_per_kernel_task * static_cast<double>(kernels);
        const double per_submit_ns =
            graph.tasks.empty() ? 0.0 : total_ns / static_cast<double>(graph.tasks.size());
        c.cost.submit_us = CostModel::host_submit_us(per_submit_ns, settings.host_frequency_scale);
        c.cost.submit_edge_us = 0.0;
        c.cost.tensormap_lookup_us = 0.0;
        c.cost.tensormap_insert_us = 0.0;
    }
    return c;
}

nlohmann::json sim_settings_json(const SimSettings& settings, const SimConfig& config) {
    nlohmann::json costs = nlohmann::json::object();
    for (const CostParameter& p : cost_parameters())
        costs[p.name] = config.cost.*p.field;
    nlohmann::json j = {{"profile", settings.profile},
                        {"profile_source", settings.source},
                        {"pending_slots", config.use_pending_slots},
                        {"costs", costs},
                        {"cost_overrides", settings.overridden},
                        {"tensormap_lookups", config.tensormap_lookups},
                        {"tensormap_inserts", config.tensormap_inserts}};
    if (settings.host) j["host_frequency_scale"] = settings.host_frequency_scale;
    return j;
}

nlohmann::json sim_extra_json(const SimReport& report, const DeviceOrchestrationCost& device) {
    nlohmann::json head_tail = nlohmann::json::array();
    for (const KernelHeadTail& k : report.head_tail)
        head_tail.push_back({{"kernel", k.name},
                             {"subtasks", k.subtasks},
                             {"head_mean_us", k.head_mean_us},
                             {"head_p90_us", k.head_p90_us},
                             {"tail_mean_us", k.tail_mean_us},
                             {"tail_p90_us", k.tail_p90_us}});
    return {{"capacity_overhead_pct",
             {{"aic", 100.0 * report.overhead.capacity_aic}, {"aiv", 100.0 * report.overhead.capacity_aiv}}},
            {"head_tail", head_tail},
            {"zero_cost_makespan_us", device.zero_cost_makespan_us},
            {"device_orch_cost_us", device.cost_us},
            {"device_orch_cost_ns_per_launch", device.ns_per_launch}};
}

}  // namespace pto::bench
