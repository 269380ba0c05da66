// --plot: the report's charts (charts.h) stacked in one self-contained SVG, readable in any browser.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

namespace pto::bench {

/// write_plot: every chart of report_charts() that has data, one under the other, then a caption naming
/// the machine and the charts left out and why. Throws pto::Error{InvalidArgument} (writing nothing) when
/// no chart has data.
void write_plot(std::ostream& out, const nlohmann::json& report);

}  // namespace pto::bench
