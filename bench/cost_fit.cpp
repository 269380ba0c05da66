// Least-squares fit of orchestration cost over the tiers of a sweep.
#include "cost_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

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

namespace {

/// fit_series: the line through (x, y) and its largest residual; nullopt with fewer than two distinct x.
std::optional<LineFit> fit_series(const std::vector<double>& x, const std::vector<double>& y) {
    LineFit f;
    if (!fit_line(x, y, f.per_task_ns, f.per_edge_ns)) return std::nullopt;
    for (std::size_t i = 0; i < y.size(); ++i)
        f.max_residual_ns =
            std::max(f.max_residual_ns, std::abs(y[i] - (f.per_task_ns + f.per_edge_ns * x[i])));
    return f;
}

bool has_number(const nlohmann::json& object, const char* key) {
    return object.contains(key) && object[key].is_number();
}

nlohmann::json line_json(const LineFit& f) {
    return {{"per_task_ns", f.per_task_ns},
            {"per_edge_ns", f.per_edge_ns},
            {"max_residual_ns", f.max_residual_ns}};
}

}  // namespace

std::vector<CostFit> fit_costs(const nlohmann::json& results) {
    struct Series {
        std::string case_name, mode;
        std::vector<double> edges_per_launch, median_ns, min_ns;
        bool every_min = true;
    };
    std::vector<Series> series;
    for (const nlohmann::json& r : results) {
        if (!r.is_object() || (r.contains("peer") && !r["peer"].is_null())) continue;
        if (!r.contains("tier") || r["tier"].is_null() || !r.contains("orch_ns_per_task")) continue;
        const auto& orch = r["orch_ns_per_task"];
        if (!orch.is_object() || !has_number(orch, "median")) continue;
        const double launches = r.value("tasks", 0.0);
        if (!(launches > 0.0)) continue;
        const std::string case_name = r.value("case", ""), mode = r.value("mode", "");
        auto it = std::find_if(series.begin(), series.end(),
                               [&](const Series& s) { return s.case_name == case_name && s.mode == mode; });
        if (it == series.end()) it = series.insert(series.end(), Series{case_name, mode, {}, {}, {}, true});
        it->edges_per_launch.push_back(r.value("edges", 0.0) / launches);
        it->median_ns.push_back(orch["median"].get<double>());
        if (has_number(orch, "min"))
            it->min_ns.push_back(orch["min"].get<double>());
        else
            it->every_min = false;
    }
    std::vector<CostFit> fits;
    for (const Series& s : series) {
        const std::optional<LineFit> median = fit_series(s.edges_per_launch, s.median_ns);
        if (!median) continue;
        CostFit f;
        f.case_name = s.case_name;
        f.mode = s.mode;
        f.tiers = static_cast<std::uint32_t>(s.median_ns.size());
        f.median = *median;
        if (s.every_min) f.min = fit_series(s.edges_per_launch, s.min_ns);
        fits.push_back(f);
    }
    return fits;
}

nlohmann::json to_json(const CostFit& f) {
    nlohmann::json j = {{"case", f.case_name}, {"mode", f.mode}, {"tiers", f.tiers}};
    j.update(line_json(f.median));
    if (f.min) j["min"] = line_json(*f.min);
    return j;
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
           "launch), through each tier's min and through each tier's median:\n";
    for (const nlohmann::json& f : report["cost_fit"]) {
        char line[256];
        const int used = std::snprintf(line, sizeof line, "  %-16s %-18s", f.value("case", "").c_str(),
                                       f.value("mode", "").c_str());
        std::string text(line, static_cast<std::size_t>(std::max(used, 0)));
        if (f.contains("min")) {
            const nlohmann::json& m = f["min"];
            std::snprintf(line, sizeof line, " min %6.1f + %5.2f (residual %.1f);",
                          m.value("per_task_ns", 0.0), m.value("per_edge_ns", 0.0),
                          m.value("max_residual_ns", 0.0));
            text += line;
        }
        std::snprintf(line, sizeof line, " median %6.1f + %5.2f (residual %.1f); %u tiers\n",
                      f.value("per_task_ns", 0.0), f.value("per_edge_ns", 0.0),
                      f.value("max_residual_ns", 0.0), f.value("tiers", 0u));
        out << text << line;
    }
}

}  // namespace pto::bench
