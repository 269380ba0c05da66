// --plot: a self-contained SVG chart of a report: Qwen3 orchestration ns per kernel launch against SPMD
// tier (one line per scheme) beside the model's predicted makespan per tier. Readable in any browser.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

namespace pto::bench {

void write_plot(std::ostream& out, const nlohmann::json& report);

}  // namespace pto::bench
