// The charts of a pto-bench report, drawn as SVG: shared by --plot (one standalone SVG) and --report (inline
// in the HTML page). Each chart is built from the report JSON alone, so a saved report can be redrawn.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pto::bench {

/// AxisScale: a value axis from 0 to `top` with a tick every `step`.
struct AxisScale {
    double top = 1.0;
    double step = 0.2;
};

/// nice_axis: the smallest axis over [0, max_value] whose step is 1, 2, 2.5 or 5 times a power of ten and
/// that has at most 8 steps: the data fills at least 80% of it (515 -> 600 by 100, 9805 -> 10000 by 2000).
[[nodiscard]] AxisScale nice_axis(double max_value);

/// Value: one point of a series: the median, and the whisker (min-max) when known. The axis is scaled to
/// `p90` when known rather than to `high`: one slow repetition on a busy machine would otherwise squash
/// every median to the bottom of the chart. A whisker above the axis is cut at its top and labelled with
/// its value.
struct Value {
    double median = 0.0;
    std::optional<double> low;
    std::optional<double> high;
    std::optional<double> p90;
};

/// Series: one named line or bar group; a category without a value is simply not drawn.
struct Series {
    std::string name;
    std::string colour;
    bool dashed = false;
    std::vector<std::optional<Value>> values;  ///< one per category
};

enum class ChartKind { Lines, Bars };

/// ChartSpec: what one chart shows. `id` names it in the SVG (data-chart) and in the report.
struct ChartSpec {
    std::string id;
    std::string title;
    std::string unit;
    ChartKind kind = ChartKind::Lines;
    std::vector<std::string> categories;
    std::vector<Series> series;
    std::optional<double> reference;  ///< a horizontal reference line (e.g. 1.0 for ratios)
    std::string note;                 ///< one line under the chart
};

/// Chart: a chart of the report, or why it was not drawn (empty `svg`, `missing` says why).
struct Chart {
    std::string id;
    std::string title;
    std::string svg;
    std::string missing;
    double width = 0;   ///< of the drawn svg
    double height = 0;  ///< of the drawn svg
};

/// draw_chart: `spec` as an <svg> element of the given size with data-chart="<id>"; each series is a
/// <g data-series="<name>" data-points="<n>"> of its drawn points. Categories without any value are left
/// out of the x axis.
[[nodiscard]] std::string draw_chart(const ChartSpec& spec, double width, double height);
/// chart_height: the height draw_chart gives `spec` at `width`: `base_height`, plus room below the plot
/// when category labels are too long for their slot and are drawn slanted.
[[nodiscard]] double chart_height(const ChartSpec& spec, double width, double base_height);

/// report_charts: the report's charts, in order: "orchestration" (Qwen3 orchestration ns per launch per
/// tier and scheme, min-max whiskers), "makespan" (Qwen3 predicted makespan and its lower bound per tier
/// and scheme), "peers" (end-to-end ns per launch against the peers, per scenario), "paged_attention"
/// (orchestration and end-to-end ns per launch per scheme, whiskers), "base_data" (compared speedup per
/// matched result), and only when the report has results of other workloads (chain, fan-in, a program's
/// own), "workloads" (their orchestration and end-to-end ns per launch per scenario, whiskers). A chart
/// without data comes back with `missing` set.
[[nodiscard]] std::vector<Chart> report_charts(const nlohmann::json& report);

/// escape_xml: text for SVG / HTML content and attribute values.
[[nodiscard]] std::string escape_xml(const std::string& text);

}  // namespace pto::bench
