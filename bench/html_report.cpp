// The HTML report page (see html_report.h).
#include "html_report.h"

#include <vector>

#include "charts.h"

namespace pto::bench {
namespace {

constexpr const char* kStyle = R"(body{font-family:sans-serif;margin:24px auto;max-width:1100px;color:#222}
h1{font-size:22px}h2{font-size:17px;margin-top:28px}
table.identity td{padding:2px 12px 2px 0;vertical-align:top}table.identity td:first-child{color:#555}
pre{background:#f6f6f6;padding:10px;overflow-x:auto;font-size:12px}
section.panel{margin:18px 0;border-top:1px solid #ddd;padding-top:6px}
p.missing{color:#a00}code{background:#f0f0f0;padding:0 3px})";

std::string text_of(const nlohmann::json& v) {
    if (v.is_null()) return "-";
    if (v.is_string()) return v.get<std::string>();
    return v.dump();
}

void row(std::ostream& out, const std::string& key, const std::string& value) {
    out << "<tr><td>" << escape_xml(key) << "</td><td>" << escape_xml(value) << "</td></tr>\n";
}

}  // namespace

void write_html_report(std::ostream& out, const nlohmann::json& report, const std::string& tables) {
    const nlohmann::json machine = report.value("machine", nlohmann::json::object());
    const nlohmann::json run = report.value("run", nlohmann::json::object());
    out << "<!DOCTYPE html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n<title>pto-bench report "
        << escape_xml(text_of(machine.value("date", nlohmann::json()))) << " "
        << escape_xml(text_of(machine.value("git_sha", nlohmann::json()))) << "</title>\n<style>" << kStyle
        << "</style>\n</head>\n<body>\n<h1>pto-bench report</h1>\n<table class='identity'>\n";
    if (run.contains("command_line")) {
        std::string command;
        for (const nlohmann::json& a : run.at("command_line"))
            command += (command.empty() ? "" : " ") + text_of(a);
        row(out, "command", command);
    }
    for (const char* key : {"warmup", "reps", "rounds", "executor"})
        if (run.contains(key))
            row(out, key == std::string("reps") ? "repetitions" : key, text_of(run.at(key)));
    for (const char* key : {"date", "git_sha", "cpu", "cores", "compiler", "flags", "locked_rmw_ns"})
        if (machine.contains(key)) row(out, key, text_of(machine.at(key)));
    if (report.contains("results")) row(out, "results", std::to_string(report.at("results").size()));
    out << "</table>\n<h2>Results</h2>\n<pre class='table'>" << escape_xml(tables) << "</pre>\n";
    for (const Chart& c : report_charts(report)) {
        out << "<section class='panel' data-panel='" << escape_xml(c.id) << "'>\n<h2>" << escape_xml(c.title)
            << "</h2>\n";
        if (c.svg.empty())
            out << "<p class='missing'>Not drawn: " << escape_xml(c.missing) << ".</p>\n";
        else
            out << c.svg;
        out << "</section>\n";
    }
    out << "<p style='color:#777;font-size:11px'>Written by pto-bench; field meanings in docs/bench.md.</p>\n"
           "</body>\n</html>\n";
}

}  // namespace pto::bench
