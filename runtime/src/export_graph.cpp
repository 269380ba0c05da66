// write_graph_json / write_graph_dot: the recorded task graph for tools (JSON) and for eyes (graphviz DOT).
// One task per line in both, so diffs of two graphs stay readable. See export.h.
#include "pto/runtime/export.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "kernel_names.h"

namespace pto {
namespace {

std::string_view kind_name(TaskKind k) {
    switch (k) {
        case TaskKind::Kernel:
            return "kernel";
        case TaskKind::DependencyOnly:
            return "dependency-only";
        case TaskKind::Alloc:
            return "alloc";
    }
    return "?";
}

std::string dump(const nlohmann::ordered_json& j) {
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

/// dot_escape: a DOT double-quoted string body (quotes and backslashes escaped; "\n" added by callers).
std::string dot_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        if (c == '"' || c == '\\') out.push_back('\\');
        out.push_back(c);
    }
    return out;
}

}  // namespace

void write_graph_json(std::ostream& out, const GraphRecord& graph) {
    const detail::KernelNames name_of(graph);
    out << "{\"schema\":\"pto-graph/1\",\n\"kernels\":[";
    for (std::size_t i = 0; i < graph.kernels.size(); ++i) {
        const KernelSummary& k = graph.kernels[i];
        nlohmann::ordered_json j = {{"id", k.id.value}, {"name", k.name}, {"duration_us", k.duration_us}};
        out << (i == 0 ? "\n" : ",\n") << dump(j);
    }
    out << "\n],\n\"tasks\":[";
    for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
        const RecordedTask& t = graph.tasks[i];
        nlohmann::ordered_json kernels = nlohmann::ordered_json::array();
        if (t.kind == TaskKind::Kernel) {
            const int lanes = t.core == CoreType::MIX ? 3 : 1;
            for (int l = 0; l < lanes; ++l)
                kernels.push_back(name_of(t.funcs[l]));
        }
        nlohmann::ordered_json producers = nlohmann::ordered_json::array();
        for (TaskId p : graph.producers_of(t))
            producers.push_back(p.value);
        nlohmann::ordered_json j = {{"id", t.id.value},          {"kind", kind_name(t.kind)},
                                    {"core", to_string(t.core)}, {"kernels", std::move(kernels)},
                                    {"block_num", t.block_num},  {"producers", std::move(producers)}};
        out << (i == 0 ? "\n" : ",\n") << dump(j);
    }
    out << "\n]}\n";
}

void write_graph_dot(std::ostream& out, const GraphRecord& graph) {
    const detail::KernelNames name_of(graph);
    out << "digraph pto {\n"
           "  rankdir=TB;\n"
           "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n"
           "  edge [color=\"#555555\"];\n";
    for (const RecordedTask& t : graph.tasks) {
        out << "  t" << t.id.value << " [";
        if (t.kind != TaskKind::Kernel) {
            out << "label=\"" << (t.kind == TaskKind::Alloc ? "alloc" : "dep-only") << "\\n#" << t.id.value
                << "\", shape=ellipse, style=\"dashed,filled\", fillcolor=\"#e0e0e0\", fontcolor=\"#555555\"";
        } else {
            const char* fill = "#ffcc80";  // MIX
            if (t.core == CoreType::AIC) fill = "#9ecae1";
            if (t.core == CoreType::AIV) fill = "#a1d99b";
            std::string label = name_of(t.funcs[0]);
            if (t.core == CoreType::MIX) label += " | " + name_of(t.funcs[1]) + " | " + name_of(t.funcs[2]);
            out << "label=\"" << dot_escape(label) << "\\n#" << t.id.value << " " << to_string(t.core) << " x"
                << t.block_num << "\", fillcolor=\"" << fill << "\"";
        }
        out << "];\n";
    }
    for (const RecordedTask& t : graph.tasks)
        for (TaskId p : graph.producers_of(t))
            out << "  t" << p.value << " -> t" << t.id.value << ";\n";
    out << "}\n";
}

}  // namespace pto
