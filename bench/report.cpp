// Report assembly and the fixed-width table.
#include "report.h"

#include <cstdio>
#include <string>
#include <vector>

#include "base_data.h"

namespace pto::bench {
namespace {

std::string text(const nlohmann::json& v) {
    if (v.is_null()) return "-";
    if (v.is_string()) return v.get<std::string>();
    return v.dump();
}

std::string fixed(const nlohmann::json& v, int decimals) {
    if (!v.is_number()) return "-";
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v.get<double>());
    return buffer;
}

const nlohmann::json& field(const nlohmann::json& object, const char* key) {
    static const nlohmann::json null;
    return object.is_object() && object.contains(key) ? object.at(key) : null;
}

std::string median_of(const nlohmann::json& result, const char* key, int decimals) {
    return fixed(field(field(result, key), "median"), decimals);
}

struct Column {
    const char* title;
    int width;
    bool left;
};

}  // namespace

nlohmann::json make_report(nlohmann::json machine, nlohmann::json results) {
    return {{"schema", kReportSchema}, {"machine", std::move(machine)}, {"results", std::move(results)}};
}

void print_table(std::ostream& out, const nlohmann::json& report) {
    const bool vs_base = has_vs_base_column(report);
    std::vector<Column> columns = {
        {"case", 16, true},           {"mode", 17, true},         {"tier", 9, true},
        {"peer", 15, true},           {"tasks", 6, false},        {"fw", 5, false},
        {"subtasks", 8, false},       {"edges", 6, false},        {"orch ns/task", 12, false},
        {"sched ns/task", 13, false}, {"e2e ns/task", 11, false}, {"Mtask/s", 8, false},
        {"sim us", 9, false},         {"bound us", 9, false},     {"ovh all%", 8, false},
        {"dev orch us", 11, false},   {"ratio", 7, false}};
    if (vs_base) columns.push_back({kVsBaseColumnTitle.data(), 8, false});  // a literal: NUL-terminated

    const auto emit = [&](const std::vector<std::string>& cells) {
        std::string line;
        for (std::size_t i = 0; i < columns.size(); ++i) {
            const Column& c = columns[i];
            std::string cell = cells[i];
            if (static_cast<int>(cell.size()) < c.width) {
                const std::string pad(static_cast<std::size_t>(c.width) - cell.size(), ' ');
                cell = c.left ? cell + pad : pad + cell;
            }
            line += cell;
            if (i + 1 < columns.size()) line += "  ";
        }
        out << line << '\n';
    };

    std::vector<std::string> header;
    for (const Column& c : columns)
        header.emplace_back(c.title);
    emit(header);
    for (const nlohmann::json& r : report.at("results")) {
        const nlohmann::json& sim = field(r, "sim");
        const double tasks_per_s =
            field(r, "tasks_per_s").is_number() ? field(r, "tasks_per_s").get<double>() : -1.0;
        std::vector<std::string> cells = {text(field(r, "case")),
                                          text(field(r, "mode")),
                                          text(field(r, "tier")),
                                          text(field(r, "peer")),
                                          text(field(r, "tasks")),
                                          text(field(r, "framework_tasks")),
                                          text(field(r, "subtasks")),
                                          text(field(r, "edges")),
                                          median_of(r, "orch_ns_per_task", 1),
                                          median_of(r, "sched_ns_per_task", 1),
                                          median_of(r, "e2e_ns_per_task", 1),
                                          tasks_per_s < 0 ? "-" : fixed(tasks_per_s / 1e6, 2),
                                          fixed(field(sim, "makespan_us"), 1),
                                          fixed(field(sim, "lower_bound_us"), 1),
                                          fixed(field(field(sim, "overhead_pct"), "all"), 1),
                                          fixed(field(sim, "device_orch_cost_us"), 1),
                                          fixed(field(r, "ratio"), 2)};
        if (vs_base) cells.push_back(format_vs_base_cell(r));
        emit(cells);
    }
}

}  // namespace pto::bench
