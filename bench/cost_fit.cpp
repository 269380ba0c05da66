// Least-squares fit of orchestration cost over the tiers of a sweep.
#include "cost_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pto::bench {

bool fit_line(const std::vector<double>& x, const std::vector<double>& y, double& a, double& b) {
    const auto n = static_cast<double>(x.size());
    if (x.size() < 2 || x.size() != y.size()) return false;
    double mx = 0.0, my = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i)
        mx += x[i], my += y[i];
    mx /= n;
    my /= n;
    double sxx = 0.0, sxy = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (!(sxx > 1e-12 * (1.0 + mx * mx))) return false;  // every x (nearly) equal: no slope to fit
    b = sxy / sxx;
    a = my - b * mx;
    return true;
}

std::vector<CostFit> fit_costs(const nlohmann::json& results) {
    struct Series {
        std::string case_name, mode;
        std::vector<double> edges_per_launch, ns_per_launch;
    };
    std::vector<Series> series;
    for (const nlohmann::json& r : results) {
        if (!r.is_object() || (r.contains("peer") && !r["peer"].is_null())) continue;
        if (!r.contains("tier") || r["tier"].is_null() || !r.contains("orch_ns_per_task")) continue;
        const auto& orch = r["orch_ns_per_task"];
        if (!orch.is_object() || !orch.contains("median") || !orch["median"].is_number()) continue;
        const double launches = r.value("tasks", 0.0);
        if (!(launches > 0.0)) continue;
        const std::string case_name = r.value("case", ""), mode = r.value("mode", "");
        auto it = std::find_if(series.begin(), series.end(),
                               [&](const Series& s) { return s.case_name == case_name && s.mode == mode; });
        if (it == series.end()) it = series.insert(series.end(), Series{case_name, mode, {}, {}});
        it->edges_per_launch.push_back(r.value("edges", 0.0) / launches);
        it->ns_per_launch.push_back(orch["median"].get<double>());
    }
    std::vector<CostFit> fits;
    for (const Series& s : series) {
        CostFit f;
        if (!fit_line(s.edges_per_launch, s.ns_per_launch, f.per_task_ns, f.per_edge_ns)) continue;
        f.case_name = s.case_name;
        f.mode = s.mode;
        f.tiers = static_cast<std::uint32_t>(s.ns_per_launch.size());
        for (std::size_t i = 0; i < s.ns_per_launch.size(); ++i)
            f.max_residual_ns = std::max(
                f.max_residual_ns,
                std::abs(s.ns_per_launch[i] - (f.per_task_ns + f.per_edge_ns * s.edges_per_launch[i])));
        fits.push_back(f);
    }
    return fits;
}

nlohmann::json to_json(const CostFit& f) {
    return {{"case", f.case_name},
            {"mode", f.mode},
            {"tiers", f.tiers},
            {"per_task_ns", f.per_task_ns},
            {"per_edge_ns", f.per_edge_ns},
            {"max_residual_ns", f.max_residual_ns}};
}

void add_cost_fit(nlohmann::json& report) {
    if (!report.contains("results")) return;
    nlohmann::json fits = nlohmann::json::array();
    for (const CostFit& f : fit_costs(report["results"]))
        fits.push_back(to_json(f));
    if (!fits.empty()) report["cost_fit"] = std::move(fits);
}

void print_cost_fit(std::ostream& out, const nlohmann::json& report) {
    if (!report.contains("cost_fit")) return;
    out << "\norchestration cost fitted over the tiers (ns per launch = per task + per edge x edges per "
           "launch):\n";
    for (const nlohmann::json& f : report["cost_fit"]) {
        char line[160];
        std::snprintf(
            line, sizeof line,
            "  %-16s %-18s %6.1f ns per task + %5.2f ns per edge (%u tiers, max residual %.1f ns)\n",
            f.value("case", "").c_str(), f.value("mode", "").c_str(), f.value("per_task_ns", 0.0),
            f.value("per_edge_ns", 0.0), f.value("tiers", 0u), f.value("max_residual_ns", 0.0));
        out << line;
    }
}

}  // namespace pto::bench
