// --plot: the charts of charts.cpp as nested <svg> elements of one document.
#include "plot.h"

#include <algorithm>
#include <string>
#include <vector>

#include "charts.h"
#include "pto/runtime/detail/throw.h"

namespace pto::bench {

void write_plot(std::ostream& out, const nlohmann::json& report) {
    const std::vector<Chart> charts = report_charts(report);
    std::vector<const Chart*> drawn;
    std::string left_out;
    for (const Chart& c : charts) {
        if (!c.svg.empty())
            drawn.push_back(&c);
        else
            left_out += (left_out.empty() ? "" : "; ") + c.id + ": " + c.missing;
    }
    if (drawn.empty())
        detail::throw_error(ErrorCode::InvalidArgument, "--plot: no chart has data (" + left_out + ")");
    double width = 0;
    double height = 50;  // the captions
    for (const Chart* c : drawn) {
        width = std::max(width, c->width);
        height += c->height;
    }
    out << "<?xml version='1.0' encoding='UTF-8'?>\n<svg xmlns='http://www.w3.org/2000/svg' width='" << width
        << "' height='" << height << "' viewBox='0 0 " << width << ' ' << height
        << "' font-family='sans-serif'>\n<rect width='100%' height='100%' fill='white'/>\n";
    double y = 0;
    for (const Chart* c : drawn) {
        // A nested <svg> is positioned by x / y: insert them into the chart's own opening tag.
        std::string svg = c->svg;
        svg.insert(4, " x='0' y='" + std::to_string(static_cast<int>(y)) + "'");
        out << svg;
        y += c->height;
    }
    const nlohmann::json& machine = report.at("machine");
    out << "<text x='" << width / 2 << "' y='" << height - 30
        << "' text-anchor='middle' font-size='11' fill='#555'>"
        << escape_xml("pto-bench " + machine.value("date", std::string()) + ", " +
                      machine.value("cpu", std::string()) + ", " + std::to_string(machine.value("cores", 0)) +
                      " cores, git " + machine.value("git_sha", std::string()))
        << "</text>\n";
    if (!left_out.empty())
        out << "<text x='" << width / 2 << "' y='" << height - 12
            << "' text-anchor='middle' font-size='10' fill='#777'>not drawn: " << escape_xml(left_out)
            << "</text>\n";
    out << "</svg>\n";
}

}  // namespace pto::bench
