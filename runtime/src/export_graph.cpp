// write_graph_json / write_graph_dot: the recorded task graph for tools (JSON) and for eyes (graphviz DOT).
// One task per line in both, so diffs of two graphs stay readable. See export.h.
#include "pto/runtime/export.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
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

const char* core_fill(CoreType core) {
    if (core == CoreType::AIC) return "#9ecae1";
    if (core == CoreType::AIV) return "#a1d99b";
    return "#ffcc80";  // MIX
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

namespace {

/// Cluster: a scope or template-instance range of the record, as a DOT subgraph.
struct Cluster {
    std::uint64_t first = 0;
    std::uint64_t end = 0;
    bool instance = false;
};

/// clusters_of: the graph's scope and instance ranges, outer before inner at equal starts (a scope before
/// an instance of the same range), without empty ranges.
std::vector<Cluster> clusters_of(const GraphRecord& graph) {
    std::vector<Cluster> c;
    for (const RecordedRange& r : graph.scopes)
        if (r.count != 0) c.push_back(Cluster{r.first.value, r.first.value + r.count, false});
    for (const RecordedRange& r : graph.instances)
        if (r.count != 0) c.push_back(Cluster{r.first.value, r.first.value + r.count, true});
    std::sort(c.begin(), c.end(), [](const Cluster& a, const Cluster& b) {
        if (a.first != b.first) return a.first < b.first;
        if (a.end != b.end) return a.end > b.end;
        return !a.instance && b.instance;
    });
    return c;
}

void write_task_node(std::ostream& out, const RecordedTask& t, const detail::KernelNames& name_of,
                     std::size_t depth) {
    out << std::string(2 + 2 * depth, ' ') << 't' << t.id.value << " [";
    if (t.kind != TaskKind::Kernel) {
        out << "label=\"" << (t.kind == TaskKind::Alloc ? "alloc" : "dep-only") << "\\n#" << t.id.value
            << "\", shape=ellipse, style=\"dashed,filled\", fillcolor=\"#e0e0e0\", fontcolor=\"#555555\"";
    } else {
        std::string label = name_of(t.funcs[0]);
        if (t.core == CoreType::MIX) label += " | " + name_of(t.funcs[1]) + " | " + name_of(t.funcs[2]);
        out << "label=\"" << dot_escape(label) << "\\n#" << t.id.value << " " << to_string(t.core) << " x"
            << t.block_num << "\", fillcolor=\"" << core_fill(t.core) << "\"";
    }
    out << "];\n";
}

}  // namespace

void write_graph_dot(std::ostream& out, const GraphRecord& graph) {
    const detail::KernelNames name_of(graph);
    out << "digraph pto {\n"
           "  rankdir=TB;\n"
           "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n"
           "  edge [color=\"#555555\"];\n";
    // Tasks are emitted in id order inside nested subgraphs: a range opens before its first task and closes
    // after its last. A range that overlaps another without nesting in it is not drawn.
    const std::vector<Cluster> clusters = clusters_of(graph);
    std::vector<Cluster> open;
    std::size_t next = 0;
    std::size_t serial = 0;
    for (const RecordedTask& t : graph.tasks) {
        const std::uint64_t id = t.id.value;
        while (!open.empty() && open.back().end <= id) {
            open.pop_back();
            out << std::string(2 + 2 * open.size(), ' ') << "}\n";
        }
        for (; next < clusters.size() && clusters[next].first <= id; ++next) {
            const Cluster& c = clusters[next];
            if (c.end <= id || (!open.empty() && c.end > open.back().end)) continue;
            const std::string indent(2 + 2 * open.size(), ' ');
            out << indent << "subgraph cluster_" << serial++ << " {\n"
                << indent << "  label=\"" << (c.instance ? "template instance" : "scope") << " #" << c.first
                << "-#" << c.end - 1 << "\";\n"
                << indent
                << "  style=" << (c.instance ? "\"rounded,filled\", fillcolor=\"#fff8e1\"" : "dashed")
                << ";\n";
            open.push_back(c);
        }
        write_task_node(out, t, name_of, open.size());
    }
    while (!open.empty()) {
        open.pop_back();
        out << std::string(2 + 2 * open.size(), ' ') << "}\n";
    }
    for (const RecordedTask& t : graph.tasks)
        for (TaskId p : graph.producers_of(t))
            out << "  t" << p.value << " -> t" << t.id.value << ";\n";
    out << "}\n";
}

void write_graph_dot_summary(std::ostream& out, const GraphRecord& graph) {
    const detail::KernelNames name_of(graph);
    // Node key: kernel (MIX: its AIC lane's kernel) and core type; framework tasks by kind.
    const auto label_of = [&](const RecordedTask& t) {
        if (t.kind == TaskKind::Alloc) return std::string("alloc");
        if (t.kind == TaskKind::DependencyOnly) return std::string("dep-only");
        std::string label = name_of(t.funcs[0]);
        if (t.core == CoreType::MIX) label += " | " + name_of(t.funcs[1]) + " | " + name_of(t.funcs[2]);
        return label + " (" + std::string(to_string(t.core)) + ")";
    };
    struct Node {
        std::size_t index;
        const RecordedTask* example;
        std::uint64_t tasks = 0;
        std::uint64_t blocks = 0;
    };
    std::map<std::string, Node> nodes;
    std::vector<const Node*> node_of_task(graph.tasks.size());
    for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
        const RecordedTask& t = graph.tasks[i];
        auto [it, added] = nodes.try_emplace(label_of(t), Node{nodes.size(), &t});
        ++it->second.tasks;
        it->second.blocks += t.kind == TaskKind::Kernel ? t.block_num : 0;
        node_of_task[i] = &it->second;
    }
    std::map<std::pair<std::size_t, std::size_t>, std::uint64_t> edges;
    std::uint64_t outside = 0;
    for (std::size_t i = 0; i < graph.tasks.size(); ++i)
        for (TaskId p : graph.producers_of(graph.tasks[i])) {
            const std::int64_t pi = graph.index_of(p);
            if (pi < 0) {
                ++outside;
                continue;
            }
            ++edges[{node_of_task[static_cast<std::size_t>(pi)]->index, node_of_task[i]->index}];
        }
    std::uint64_t heaviest = 1;
    for (const auto& [key, n] : edges)
        heaviest = std::max(heaviest, n);
    out << "digraph pto_kernels {\n"
           "  rankdir=TB;\n"
           "  label=\"kernel-level graph: "
        << graph.tasks.size() << " tasks, " << graph.producers.size() << " edges"
        << (outside != 0 ? " (" + std::to_string(outside) + " to tasks of earlier runs not drawn)"
                         : std::string())
        << "\";\n"
           "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n"
           "  edge [color=\"#555555\", fontname=\"Helvetica\", fontsize=9];\n";
    for (const auto& [label, n] : nodes) {
        const RecordedTask& t = *n.example;
        out << "  k" << n.index << " [label=\"" << dot_escape(label) << "\\n" << n.tasks << " tasks";
        if (t.kind == TaskKind::Kernel) out << ", " << n.blocks << " blocks";
        out << "\", fillcolor=\"" << (t.kind == TaskKind::Kernel ? core_fill(t.core) : "#e0e0e0") << "\"";
        if (t.kind != TaskKind::Kernel) out << ", shape=ellipse, style=\"dashed,filled\"";
        out << "];\n";
    }
    for (const auto& [key, n] : edges)
        out << "  k" << key.first << " -> k" << key.second << " [label=\"" << n << "\", weight=" << n
            << ", penwidth=" << 1.0 + 4.0 * static_cast<double>(n) / static_cast<double>(heaviest) << "];\n";
    out << "}\n";
}

}  // namespace pto
