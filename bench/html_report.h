// --report: one self-contained HTML page (no network, no scripts) a person reads after a run: who ran what
// where, the table as printed, and the charts of charts.h drawn inline as SVG, with a sentence for each
// chart that has no data.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace pto::bench {

/// write_html_report: the page for `report` (with its optional "run" object: command line, warm-up,
/// repetitions). `tables` is the text printed on stdout (shown preformatted). Every chart panel is a
/// <section class="panel" data-panel="<chart id>">, holding the chart's <svg data-chart="<id>"> or a
/// <p class="missing"> that says why it was not drawn.
void write_html_report(std::ostream& out, const nlohmann::json& report, const std::string& tables);

}  // namespace pto::bench
