// SVG drawing of the --plot chart: two panels sharing the tier axis, log-free linear scales from zero,
// one polyline and point markers per scheme, a legend, and the machine line as a caption.
#include "plot.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace pto::bench {
namespace {

constexpr std::array<const char*, 5> kTiers = {"non-spmd", "spmd-2", "spmd-4", "spmd-8", "all-spmd"};
constexpr std::array<const char*, 4> kModes = {"manual", "tensormap", "static-manual", "static-tensormap"};
constexpr std::array<const char*, 4> kColours = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};

struct Panel {
    double x, y, width, height;
    std::string title, unit;
};

std::string number(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v);
    return buffer;
}

std::string escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '&')
            out += "&amp;";
        else if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else
            out += c;
    }
    return out;
}

/// nice_max: a round axis maximum at or above v.
double nice_max(double v) {
    if (v <= 0) return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(v)));
    for (double step : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (step * magnitude >= v) return step * magnitude;
    return 10 * magnitude;
}

void draw_panel(std::ostream& out, const Panel& p,
                const std::map<std::string, std::array<double, 5>>& series) {
    double top = 0;
    for (const auto& [mode, values] : series)
        for (double v : values)
            if (v > 0) top = std::max(top, v);
    top = nice_max(top * 1.05);
    const auto x_of = [&](std::size_t tier) {
        return p.x + 50 + (p.width - 70) * static_cast<double>(tier) / 4.0;
    };
    const auto y_of = [&](double v) { return p.y + p.height - 40 - (p.height - 70) * v / top; };

    out << "<text x='" << p.x + p.width / 2 << "' y='" << p.y + 16 << "' text-anchor='middle' font-size='14' "
        << "font-weight='bold'>" << escape(p.title) << "</text>\n";
    for (int i = 0; i <= 5; ++i) {
        const double v = top * i / 5.0;
        const double y = y_of(v);
        out << "<line x1='" << p.x + 50 << "' y1='" << y << "' x2='" << p.x + p.width - 20 << "' y2='" << y
            << "' stroke='#ddd'/>\n<text x='" << p.x + 45 << "' y='" << y + 4
            << "' text-anchor='end' font-size='11'>" << number(v) << "</text>\n";
    }
    out << "<text x='" << p.x + 12 << "' y='" << p.y + p.height / 2
        << "' font-size='11' transform='rotate(-90 " << p.x + 12 << ' ' << p.y + p.height / 2
        << ")' text-anchor='middle'>" << escape(p.unit) << "</text>\n";
    for (std::size_t t = 0; t < kTiers.size(); ++t)
        out << "<text x='" << x_of(t) << "' y='" << p.y + p.height - 22
            << "' text-anchor='middle' font-size='11'>" << kTiers[t] << "</text>\n";
    for (std::size_t m = 0; m < kModes.size(); ++m) {
        const auto it = series.find(kModes[m]);
        if (it == series.end()) continue;
        std::string points;
        for (std::size_t t = 0; t < kTiers.size(); ++t) {
            if (it->second[t] <= 0) continue;
            points += number(x_of(t)) + "," + number(y_of(it->second[t])) + " ";
            out << "<circle cx='" << x_of(t) << "' cy='" << y_of(it->second[t]) << "' r='3' fill='"
                << kColours[m] << "'><title>" << kModes[m] << " " << kTiers[t] << ": "
                << number(it->second[t]) << ' ' << escape(p.unit) << "</title></circle>\n";
        }
        out << "<polyline fill='none' stroke-width='2' stroke='" << kColours[m] << "' points='" << points
            << "'/>\n";
    }
}

}  // namespace

void write_plot(std::ostream& out, const nlohmann::json& report) {
    std::map<std::string, std::array<double, 5>> orchestration;
    std::map<std::string, std::array<double, 5>> makespan;
    for (const nlohmann::json& r : report.at("results")) {
        if (r.value("case", "") != "qwen3" || !r.at("peer").is_null() || !r.at("tier").is_string()) continue;
        const auto tier = std::find(kTiers.begin(), kTiers.end(), r.at("tier").get<std::string>());
        if (tier == kTiers.end()) continue;
        const std::size_t t = static_cast<std::size_t>(tier - kTiers.begin());
        const std::string mode = r.at("mode").get<std::string>();
        orchestration.try_emplace(mode, std::array<double, 5>{}).first->second[t] =
            r.at("orch_ns_per_task").at("median").get<double>();
        if (r.contains("sim"))
            makespan.try_emplace(mode, std::array<double, 5>{}).first->second[t] =
                r.at("sim").at("makespan_us").get<double>();
    }
    const double width = 1000;
    const double height = 460;
    out << "<?xml version='1.0' encoding='UTF-8'?>\n<svg xmlns='http://www.w3.org/2000/svg' width='" << width
        << "' height='" << height << "' viewBox='0 0 " << width << ' ' << height
        << "' font-family='sans-serif'>\n<rect width='100%' height='100%' fill='white'/>\n";
    if (orchestration.empty()) {
        out << "<text x='" << width / 2 << "' y='" << height / 2
            << "' text-anchor='middle' font-size='16'>No Qwen3 results in this report (run pto-bench --case "
               "qwen3)"
            << "</text>\n</svg>\n";
        return;
    }
    draw_panel(out,
               Panel{0, 10, width / 2, height - 70, "Qwen3 orchestration cost per kernel launch",
                     "ns per task (median)"},
               orchestration);
    if (!makespan.empty())
        draw_panel(out,
                   Panel{width / 2, 10, width / 2, height - 70,
                         "Predicted a2a3 makespan (virtual-time model)", "us"},
                   makespan);
    double x = 60;
    for (std::size_t m = 0; m < kModes.size(); ++m) {
        if (!orchestration.count(kModes[m])) continue;
        out << "<rect x='" << x << "' y='" << height - 52 << "' width='14' height='4' fill='" << kColours[m]
            << "'/>\n<text x='" << x + 20 << "' y='" << height - 46 << "' font-size='12'>" << kModes[m]
            << "</text>\n";
        x += 160;
    }
    const nlohmann::json& machine = report.at("machine");
    out << "<text x='" << width / 2 << "' y='" << height - 18
        << "' text-anchor='middle' font-size='11' fill='#555'>"
        << escape("pto-bench " + machine.value("date", std::string()) + ", " +
                  machine.value("cpu", std::string()) + ", " + std::to_string(machine.value("cores", 0)) +
                  " cores, git " + machine.value("git_sha", std::string()))
        << "</text>\n</svg>\n";
}

}  // namespace pto::bench
