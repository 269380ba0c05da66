// Chart building (report JSON -> ChartSpec) and drawing (ChartSpec -> SVG). See charts.h.
#include "charts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace pto::bench {
namespace {

constexpr std::array<const char*, 5> kTiers = {"non-spmd", "spmd-2", "spmd-4", "spmd-8", "all-spmd"};
constexpr std::array<const char*, 4> kModes = {"manual", "tensormap", "static-manual", "static-tensormap"};
constexpr std::array<const char*, 6> kColours = {"#1f77b4", "#d62728", "#2ca02c",
                                                 "#9467bd", "#ff7f0e", "#8c564b"};

std::string number(double v) {
    char buffer[32];
    const double a = std::fabs(v);
    std::snprintf(buffer, sizeof buffer,
                  a >= 100 || a == 0 ? "%.0f"
                  : a >= 10          ? "%.1f"
                  : a >= 1           ? "%.2f"
                                     : "%.3g",
                  v);
    return buffer;
}

/// coordinate: an SVG coordinate with one decimal.
std::string at(double v) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", v);
    return buffer;
}

const nlohmann::json& field(const nlohmann::json& object, const char* key) {
    static const nlohmann::json null;
    return object.is_object() && object.contains(key) ? object.at(key) : null;
}

/// spread: a Value from a summary object {"median", "min", "max"}, or nothing if it has no median.
std::optional<Value> spread(const nlohmann::json& summary) {
    const nlohmann::json& median = field(summary, "median");
    if (!median.is_number()) return std::nullopt;
    Value v{median.get<double>(), std::nullopt, std::nullopt, std::nullopt};
    if (field(summary, "min").is_number()) v.low = field(summary, "min").get<double>();
    if (field(summary, "max").is_number()) v.high = field(summary, "max").get<double>();
    if (field(summary, "p90").is_number()) v.p90 = field(summary, "p90").get<double>();
    return v;
}

std::optional<Value> plain(const nlohmann::json& value) {
    if (!value.is_number()) return std::nullopt;
    return Value{value.get<double>(), std::nullopt, std::nullopt, std::nullopt};
}

std::string text_of(const nlohmann::json& v) {
    return v.is_string() ? v.get<std::string>() : std::string();
}

std::string scenario_label(const nlohmann::json& r) {
    std::string label = text_of(field(r, "case")) + " " + text_of(field(r, "mode"));
    if (field(r, "tier").is_string()) label += " " + text_of(field(r, "tier"));
    return label;
}

}  // namespace

double chart_height(const ChartSpec& spec, double width, double base_height) {
    std::size_t shown = 0;
    std::size_t longest = 0;
    for (std::size_t c = 0; c < spec.categories.size(); ++c)
        for (const Series& s : spec.series)
            if (c < s.values.size() && s.values[c]) {
                ++shown;
                longest = std::max(longest, spec.categories[c].size());
                break;
            }
    const double slot = (width - 16 - 72) / static_cast<double>(std::max<std::size_t>(shown, 1));
    const bool slanted = 6.5 * static_cast<double>(longest) > slot - 6;
    return base_height + (slanted ? 4.8 * static_cast<double>(longest) : 0.0);
}

namespace {

bool has_values(const ChartSpec& spec) {
    for (const Series& s : spec.series)
        for (const auto& v : s.values)
            if (v) return true;
    return false;
}

/// add_point: sets series `name`'s value at `category`, creating either as needed (in first-seen order).
void add_point(ChartSpec& spec, const std::string& name, const std::string& category,
               std::optional<Value> value, bool dashed = false, const std::string& colour = {}) {
    if (!value) return;
    auto c = std::find(spec.categories.begin(), spec.categories.end(), category);
    if (c == spec.categories.end()) {
        spec.categories.push_back(category);
        for (Series& s : spec.series)
            s.values.emplace_back();
        c = spec.categories.end() - 1;
    }
    auto s =
        std::find_if(spec.series.begin(), spec.series.end(), [&](const Series& x) { return x.name == name; });
    if (s == spec.series.end()) {
        spec.series.push_back(Series{name,
                                     colour.empty() ? kColours[spec.series.size() % kColours.size()] : colour,
                                     dashed, std::vector<std::optional<Value>>(spec.categories.size())});
        s = spec.series.end() - 1;
    }
    s->values[static_cast<std::size_t>(c - spec.categories.begin())] = value;
}

std::string mode_colour(const std::string& mode) {
    const auto m = std::find(kModes.begin(), kModes.end(), mode);
    return m == kModes.end() ? kColours[4] : kColours[static_cast<std::size_t>(m - kModes.begin())];
}

/// sort_by: reorders categories to follow `order` (unknown ones last, in their order).
template <std::size_t N>
void sort_categories(ChartSpec& spec, const std::array<const char*, N>& order) {
    std::vector<std::size_t> index(spec.categories.size());
    for (std::size_t i = 0; i < index.size(); ++i)
        index[i] = i;
    const auto rank = [&](std::size_t i) {
        const auto it = std::find(order.begin(), order.end(), spec.categories[i]);
        return static_cast<std::size_t>(it - order.begin());
    };
    std::stable_sort(index.begin(), index.end(),
                     [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
    std::vector<std::string> categories;
    for (std::size_t i : index)
        categories.push_back(spec.categories[i]);
    spec.categories = std::move(categories);
    for (Series& s : spec.series) {
        std::vector<std::optional<Value>> values;
        for (std::size_t i : index)
            values.push_back(s.values[i]);
        s.values = std::move(values);
    }
}

Chart finish(const ChartSpec& spec, const std::string& missing) {
    Chart c{spec.id, spec.title, {}, {}, 0, 0};
    if (!has_values(spec)) {
        c.missing = missing;
        return c;
    }
    // Wide enough for every bar group (or point) to keep a readable slot, up to a page's width.
    std::size_t shown = 0;
    for (std::size_t i = 0; i < spec.categories.size(); ++i)
        for (const Series& series : spec.series)
            if (i < series.values.size() && series.values[i]) {
                ++shown;
                break;
            }
    const double per_category =
        spec.kind == ChartKind::Bars ? 14.0 * static_cast<double>(spec.series.size()) + 12 : 60;
    c.width = std::clamp(88 + per_category * static_cast<double>(shown), 760.0, 1100.0);
    c.height = chart_height(spec, c.width, 400);
    c.svg = draw_chart(spec, c.width, 400);
    return c;
}

}  // namespace

std::string escape_xml(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '&')
            out += "&amp;";
        else if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '"')
            out += "&quot;";
        else if (c == '\'')
            out += "&#39;";
        else
            out += c;
    }
    return out;
}

AxisScale nice_axis(double max_value) {
    if (!(max_value > 0) || !std::isfinite(max_value)) return AxisScale{1.0, 0.2};
    for (int k = static_cast<int>(std::floor(std::log10(max_value))) - 2;; ++k) {
        for (double m : {1.0, 2.0, 2.5, 5.0}) {
            const double step = m * std::pow(10.0, k);
            const double steps = std::ceil(max_value / step - 1e-9);
            if (steps <= 8) return AxisScale{std::max(1.0, steps) * step, step};
        }
    }
}

std::string draw_chart(const ChartSpec& spec, double width, double height) {
    height = chart_height(spec, width, height);
    // Only categories with at least one value get an x position: unmeasured tiers are not drawn.
    std::vector<std::size_t> shown;
    for (std::size_t c = 0; c < spec.categories.size(); ++c)
        for (const Series& s : spec.series)
            if (c < s.values.size() && s.values[c]) {
                shown.push_back(c);
                break;
            }
    double top = spec.reference.value_or(0.0);
    for (const Series& s : spec.series)
        for (std::size_t c : shown)
            if (c < s.values.size() && s.values[c])
                top = std::max(
                    {top, s.values[c]->median, s.values[c]->p90.value_or(s.values[c]->high.value_or(0.0))});
    const AxisScale axis = nice_axis(top);
    const double left = 72;
    const double right = width - 16;
    const double n = static_cast<double>(std::max<std::size_t>(shown.size(), 1));
    const double slot = (right - left) / n;
    // Category labels that do not fit their slot are drawn slanted, with room made below the plot.
    std::size_t longest = 0;
    for (std::size_t c : shown)
        longest = std::max(longest, spec.categories[c].size());
    const bool slanted = 6.5 * static_cast<double>(longest) > slot - 6;
    const double label_room = slanted ? 4.8 * static_cast<double>(longest) : 0.0;
    const double plot_top = 44;
    const double plot_bottom = height - 86 - label_room;
    const auto x_of = [&](std::size_t i) { return left + slot * (static_cast<double>(i) + 0.5); };
    const auto y_of = [&](double v) { return plot_bottom - (plot_bottom - plot_top) * v / axis.top; };

    std::ostringstream o;
    o << "<svg xmlns='http://www.w3.org/2000/svg' class='chart' data-chart='" << escape_xml(spec.id)
      << "' id='chart-" << escape_xml(spec.id) << "' width='" << width << "' height='" << height
      << "' viewBox='0 0 " << width << ' ' << height
      << "' font-family='sans-serif'>\n<rect width='100%' height='100%' fill='white'/>\n";
    o << "<text x='" << at(width / 2) << "' y='20' text-anchor='middle' font-size='15' font-weight='bold'>"
      << escape_xml(spec.title) << "</text>\n";
    const int ticks = static_cast<int>(std::lround(axis.top / axis.step));
    for (int i = 0; i <= ticks; ++i) {
        const double v = axis.step * i;
        o << "<line x1='" << at(left) << "' y1='" << at(y_of(v)) << "' x2='" << at(right) << "' y2='"
          << at(y_of(v)) << "' stroke='" << (i == 0 ? "#888" : "#e3e3e3") << "'/>\n<text class='tick' x='"
          << at(left - 6) << "' y='" << at(y_of(v) + 4) << "' text-anchor='end' font-size='11'>" << number(v)
          << "</text>\n";
    }
    o << "<text x='14' y='" << at((plot_top + plot_bottom) / 2)
      << "' font-size='11' transform='rotate(-90 14 " << at((plot_top + plot_bottom) / 2)
      << ")' text-anchor='middle'>" << escape_xml(spec.unit) << "</text>\n";
    for (std::size_t i = 0; i < shown.size(); ++i) {
        o << "<text class='category' x='" << at(x_of(i)) << "' y='" << at(plot_bottom + 16)
          << "' font-size='11'";
        if (slanted)
            o << " text-anchor='end' transform='rotate(-40 " << at(x_of(i)) << ' ' << at(plot_bottom + 16)
              << ")'";
        else
            o << " text-anchor='middle'";
        o << '>' << escape_xml(spec.categories[shown[i]]) << "</text>\n";
    }
    if (spec.reference)
        o << "<line class='reference' x1='" << at(left) << "' y1='" << at(y_of(*spec.reference)) << "' x2='"
          << at(right) << "' y2='" << at(y_of(*spec.reference))
          << "' stroke='#444' stroke-dasharray='2,3'/>\n";

    const double bar_group = slot * 0.7;
    const double bar_width = bar_group / static_cast<double>(std::max<std::size_t>(spec.series.size(), 1));
    for (std::size_t si = 0; si < spec.series.size(); ++si) {
        const Series& s = spec.series[si];
        std::size_t points = 0;
        std::ostringstream body;
        std::string polyline;
        for (std::size_t i = 0; i < shown.size(); ++i) {
            const std::size_t c = shown[i];
            if (c >= s.values.size() || !s.values[c]) continue;
            const Value& v = *s.values[c];
            ++points;
            double x = x_of(i);
            const std::string tip =
                s.name + ", " + spec.categories[c] + ": " + number(v.median) +
                (v.low && v.high ? " (min " + number(*v.low) + ", max " + number(*v.high) + ")" : "") + " " +
                spec.unit;
            if (spec.kind == ChartKind::Bars) {
                x = x_of(i) - bar_group / 2 + bar_width * (static_cast<double>(si) + 0.5);
                body << "<rect class='point' x='" << at(x - bar_width * 0.45) << "' y='" << at(y_of(v.median))
                     << "' width='" << at(bar_width * 0.9) << "' height='" << at(y_of(0) - y_of(v.median))
                     << "' fill='" << s.colour << "'><title>" << escape_xml(tip) << "</title></rect>\n";
            } else {
                polyline += at(x) + "," + at(y_of(v.median)) + " ";
                body << "<circle class='point' cx='" << at(x) << "' cy='" << at(y_of(v.median))
                     << "' r='3.5' fill='" << s.colour << "'><title>" << escape_xml(tip)
                     << "</title></circle>\n";
            }
            if (v.low && v.high) {
                // Lines: whiskers of the series at one category sit side by side, not on top of each other.
                if (spec.kind == ChartKind::Lines)
                    x += 5.0 * (static_cast<double>(si) - static_cast<double>(spec.series.size() - 1) / 2.0);
                const double cap = 4;
                const bool cut = *v.high > axis.top;
                const double high = cut ? axis.top : *v.high;
                body << "<path class='whisker' d='M" << at(x) << ' ' << at(y_of(*v.low)) << " V"
                     << at(y_of(high)) << " M" << at(x - cap) << ' ' << at(y_of(*v.low)) << " H"
                     << at(x + cap);
                if (!cut) body << " M" << at(x - cap) << ' ' << at(y_of(high)) << " H" << at(x + cap);
                body << "' stroke='" << s.colour << "' fill='none'/>\n";
                if (cut)
                    body << "<text class='cut' x='" << at(x + 3) << "' y='" << at(y_of(high) - 3)
                         << "' font-size='9' fill='" << s.colour << "'>max " << number(*v.high)
                         << "</text>\n";
            }
        }
        o << "<g class='series' data-series='" << escape_xml(s.name) << "' data-points='" << points << "'>\n";
        if (spec.kind == ChartKind::Lines && points > 1)
            o << "<polyline fill='none' stroke-width='2' stroke='" << s.colour << "'"
              << (s.dashed ? " stroke-dasharray='6,4'" : "") << " points='" << polyline << "'/>\n";
        o << body.str() << "</g>\n";
    }
    // Legend: one row under the axis labels, wrapping when full.
    double lx = left;
    double ly = plot_bottom + 40 + label_room;
    for (const Series& s : spec.series) {
        const double item = 34 + 7.0 * static_cast<double>(s.name.size());
        if (lx + item > right) {
            lx = left;
            ly += 16;
        }
        o << "<line x1='" << at(lx) << "' y1='" << at(ly - 4) << "' x2='" << at(lx + 20) << "' y2='"
          << at(ly - 4) << "' stroke-width='3' stroke='" << s.colour << "'"
          << (s.dashed ? " stroke-dasharray='6,4'" : "") << "/>\n<text x='" << at(lx + 26) << "' y='"
          << at(ly) << "' font-size='12'>" << escape_xml(s.name) << "</text>\n";
        lx += item;
    }
    if (!spec.note.empty())
        o << "<text x='" << at(width / 2) << "' y='" << at(height - 8)
          << "' text-anchor='middle' font-size='11' fill='#555'>" << escape_xml(spec.note) << "</text>\n";
    o << "</svg>\n";
    return o.str();
}

std::vector<Chart> report_charts(const nlohmann::json& report) {
    ChartSpec orchestration{"orchestration",
                            "Qwen3: orchestration cost per kernel launch",
                            "ns per launch",
                            ChartKind::Lines,
                            {},
                            {},
                            std::nullopt,
                            "median of the measured runs; whiskers: min to max (axis up to P90)"};
    ChartSpec makespan{"makespan",   "Qwen3: predicted makespan and its lower bound (virtual-time model)",
                       "us",         ChartKind::Lines,
                       {},           {},
                       std::nullopt, "dashed: the lower bound of the same scheme"};
    ChartSpec peers{"peers",
                    "End to end against the peers",
                    "ns per launch",
                    ChartKind::Bars,
                    {},
                    {},
                    std::nullopt,
                    "median; whiskers: min to max (axis up to P90)"};
    ChartSpec paged{"paged_attention",
                    "Paged attention: cost per kernel launch",
                    "ns per launch",
                    ChartKind::Bars,
                    {},
                    {},
                    std::nullopt,
                    "median; whiskers: min to max (axis up to P90)"};
    ChartSpec base{"base_data",
                   "Against the baseline (--base-data)",
                   "compared speedup (x)",
                   ChartKind::Bars,
                   {},
                   {},
                   1.0,
                   "above the dotted line: faster than the baseline"};
    // Every other workload (the synthetic ones, a program's own): one bar pair per scenario, drawn only
    // when such results exist.
    ChartSpec workloads{"workloads",
                        "Other workloads: cost per kernel launch",
                        "ns per launch",
                        ChartKind::Bars,
                        {},
                        {},
                        std::nullopt,
                        "median; whiskers: min to max (axis up to P90)"};
    bool qwen3 = false;
    bool any_peer = false;
    const nlohmann::json& results = field(report, "results");
    if (results.is_array()) {
        for (const nlohmann::json& r : results) {
            const std::string kase = text_of(field(r, "case"));
            const std::string mode = text_of(field(r, "mode"));
            const bool ours = field(r, "peer").is_null();
            if (!ours) {
                any_peer = true;
                add_point(peers, text_of(field(r, "peer")), scenario_label(r),
                          spread(field(r, "e2e_ns_per_task")));
                continue;
            }
            if (kase == "qwen3" && field(r, "tier").is_string()) {
                qwen3 = true;
                const std::string tier = text_of(field(r, "tier"));
                add_point(orchestration, mode, tier, spread(field(r, "orch_ns_per_task")), false,
                          mode_colour(mode));
                const nlohmann::json& sim = field(r, "sim");
                add_point(makespan, mode, tier, plain(field(sim, "makespan_us")), false, mode_colour(mode));
                add_point(makespan, mode + " lower bound", tier, plain(field(sim, "lower_bound_us")), true,
                          mode_colour(mode));
            }
            if (kase == "paged_attention") {
                add_point(paged, "orchestration", mode, spread(field(r, "orch_ns_per_task")), false,
                          kColours[0]);
                add_point(paged, "end to end", mode, spread(field(r, "e2e_ns_per_task")), false, kColours[1]);
            } else if (kase != "qwen3") {
                add_point(workloads, "orchestration", scenario_label(r), spread(field(r, "orch_ns_per_task")),
                          false, kColours[0]);
                add_point(workloads, "end to end", scenario_label(r), spread(field(r, "e2e_ns_per_task")),
                          false, kColours[1]);
            }
            const nlohmann::json& vs = field(r, "vs_base");
            if (field(vs, "matched").is_boolean() && field(vs, "matched").get<bool>())
                add_point(base, "compared speedup", scenario_label(r), plain(field(vs, "compared_speedup")));
        }
        // Ours first in the peers chart, for every scenario that has peers.
        for (const nlohmann::json& r : results)
            if (field(r, "peer").is_null() && any_peer) {
                const std::string label = scenario_label(r);
                if (std::find(peers.categories.begin(), peers.categories.end(), label) !=
                    peers.categories.end())
                    add_point(peers, "pto", label, spread(field(r, "e2e_ns_per_task")));
            }
        if (!peers.series.empty())
            std::rotate(peers.series.begin(), peers.series.end() - 1, peers.series.end());
        for (std::size_t i = 0; i < peers.series.size(); ++i)
            peers.series[i].colour = kColours[i % kColours.size()];
    }
    sort_categories(orchestration, kTiers);
    sort_categories(makespan, kTiers);
    sort_categories(paged, kModes);
    const std::string no_qwen3 = "no Qwen3 results in this run (pto-bench --case qwen3)";
    std::vector<Chart> charts;
    charts.push_back(finish(orchestration, no_qwen3));
    charts.push_back(finish(makespan, qwen3 ? "the virtual-time model was not run (--no-sim)" : no_qwen3));
    charts.push_back(finish(peers, "no peer results in this run (pto-bench --peers)"));
    charts.push_back(
        finish(paged, "no paged-attention results in this run (pto-bench --case paged_attention)"));
    charts.push_back(finish(base, field(report, "base_data").is_object()
                                      ? "no result matched the baseline"
                                      : "no baseline given (pto-bench --base-data FILE)"));
    if (has_values(workloads)) charts.push_back(finish(workloads, ""));
    return charts;
}

}  // namespace pto::bench
