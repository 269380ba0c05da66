// The DOT writers on a recorded run: tasks clustered by scope and by static-template instance (nested as
// the scopes were), and the kernel-level summary with one node per kernel and core type and edges weighted
// by how many task edges they stand for.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "pto/runtime/export.h"
#include "pto/runtime/runtime.h"

using namespace pto;

namespace {

TaskSpec spec(CoreType core, FuncId f) {
    TaskSpec s;
    s.core = core;
    s.funcs[0] = s.funcs[1] = s.funcs[2] = f;
    return s;
}

/// cluster_of: for each task node "t<id>", the label of the innermost cluster it is written in ("" if
/// none), read back from the DOT text by tracking subgraph nesting.
std::map<std::uint64_t, std::string> cluster_of(const std::string& dot) {
    std::map<std::uint64_t, std::string> out;
    std::vector<std::string> open;
    std::istringstream in(dot);
    std::string line;
    const std::regex node(R"(^\s*t(\d+) \[)");
    const std::regex label(R"re(^\s*label="([^"]*)";)re");
    std::smatch m;
    while (std::getline(in, line)) {
        if (line.find("subgraph cluster_") != std::string::npos) {
            open.emplace_back();
        } else if (!open.empty() && open.back().empty() && std::regex_search(line, m, label)) {
            open.back() = m[1];
        } else if (std::regex_search(line, m, node)) {
            out[std::stoull(m[1])] = open.empty() ? "" : open.back();
        } else if (line.find_first_not_of(' ') != std::string::npos &&
                   line.substr(line.find_first_not_of(' ')) == "}" && !open.empty()) {
            open.pop_back();
        }
    }
    return out;
}

}  // namespace

TEST_CASE("the DOT graph clusters tasks by scope and by template instance, nested as they ran",
          "[export][graph][dot]") {
    RuntimeConfig config;
    config.record_graph = true;
    config.orchestration = OrchestrationMode::Serial;
    Runtime rt(config);
    rt.register_kernel(FuncId{0}, KernelInfo{"mm", 5.0, nullptr, nullptr});
    rt.register_kernel(FuncId{1}, KernelInfo{"vec", 2.0, nullptr, nullptr});
    pto::detail::TaskPort(rt).begin_run();
    // outer scope: t0, inner scope { t1, instance { t2 -> t3 } }, t4; then t5 outside any scope.
    const TaskId t0 = pto::detail::TaskPort(rt).submit(spec(CoreType::AIC, FuncId{0}), {}, true);
    const TaskId t1 =
        pto::detail::TaskPort(rt).submit(spec(CoreType::AIV, FuncId{1}), std::vector<TaskId>{t0}, true);
    const std::uint32_t feeds[] = {1};
    const std::uint32_t waits[] = {1};
    InstanceNode nodes[2] = {{spec(CoreType::AIC, FuncId{0}), feeds, {}, {}},
                             {spec(CoreType::AIV, FuncId{1}), {}, waits, {}}};
    nodes[0].external_producers = std::span<const TaskId>(&t1, 1);
    const TaskId t2 = pto::detail::TaskPort(rt).submit_instance(nodes, true);
    pto::detail::TaskPort(rt).release_scope(t1, pto::detail::TaskPort(rt).next_task_id());
    const TaskId t4 = pto::detail::TaskPort(rt).submit(spec(CoreType::AIV, FuncId{1}),
                                                       std::vector<TaskId>{t2.plus(1)}, true);
    pto::detail::TaskPort(rt).release_scope(t0, pto::detail::TaskPort(rt).next_task_id());
    const TaskId t5 =
        pto::detail::TaskPort(rt).submit(spec(CoreType::AIV, FuncId{1}), std::vector<TaskId>{t4}, false);
    REQUIRE(pto::detail::TaskPort(rt).end_run().ok());

    const GraphRecord& g = rt.graph();
    REQUIRE(g.scopes.size() == 2);
    REQUIRE(g.instances.size() == 1);
    CHECK(g.instances[0].first == t2);
    CHECK(g.instances[0].count == 2);

    std::ostringstream out;
    write_graph_dot(out, g);
    const std::string dot = out.str();
    const auto where = cluster_of(dot);
    const std::string outer = "scope #" + std::to_string(t0.value) + "-#" + std::to_string(t4.value);
    const std::string inner = "scope #" + std::to_string(t1.value) + "-#" + std::to_string(t2.value + 1);
    const std::string instance =
        "template instance #" + std::to_string(t2.value) + "-#" + std::to_string(t2.value + 1);
    CHECK(where.at(t0.value) == outer);
    CHECK(where.at(t1.value) == inner);
    CHECK(where.at(t2.value) == instance);
    CHECK(where.at(t2.value + 1) == instance);
    CHECK(where.at(t4.value) == outer);
    CHECK(where.at(t5.value).empty());
    // Three clusters, each opened once and closed once: the file is balanced.
    std::size_t opened = 0;
    for (std::size_t pos = dot.find("subgraph cluster_"); pos != std::string::npos;
         pos = dot.find("subgraph cluster_", pos + 1))
        ++opened;
    CHECK(opened == 3);
    CHECK(std::count(dot.begin(), dot.end(), '{') == std::count(dot.begin(), dot.end(), '}'));
}

TEST_CASE("the kernel-level DOT has a node per kernel and core type and edges weighted by count",
          "[export][graph][dot]") {
    RuntimeConfig config;
    config.record_graph = true;
    config.orchestration = OrchestrationMode::Serial;
    Runtime rt(config);
    rt.register_kernel(FuncId{0}, KernelInfo{"mm", 5.0, nullptr, nullptr});
    rt.register_kernel(FuncId{1}, KernelInfo{"vec", 2.0, nullptr, nullptr});
    pto::detail::TaskPort(rt).begin_run();
    // Three chains mm(AIC) -> vec(AIV) -> vec(AIV), plus one vec on AIC fed by each chain's mm.
    for (int i = 0; i < 3; ++i) {
        const TaskId a = pto::detail::TaskPort(rt).submit(spec(CoreType::AIC, FuncId{0}), {}, false);
        const TaskId b =
            pto::detail::TaskPort(rt).submit(spec(CoreType::AIV, FuncId{1}), std::vector<TaskId>{a}, false);
        TaskSpec wide = spec(CoreType::AIV, FuncId{1});
        wide.block_num = 4;
        pto::detail::TaskPort(rt).submit(wide, std::vector<TaskId>{b}, false);
        pto::detail::TaskPort(rt).submit(spec(CoreType::AIC, FuncId{1}), std::vector<TaskId>{a}, false);
    }
    REQUIRE(pto::detail::TaskPort(rt).end_run().ok());
    std::ostringstream out;
    write_graph_dot_summary(out, rt.graph());
    const std::string dot = out.str();

    std::map<std::string, std::string> node_of;  // label -> "k<n>"
    const std::regex node(R"re(^\s*(k\d+) \[label="([^"\\]*)\\n([^"]*)")re");
    const std::regex edge(R"re(^\s*(k\d+) -> (k\d+) \[label="(\d+)")re");
    std::map<std::pair<std::string, std::string>, int> edges;
    std::map<std::string, std::string> counts;
    std::istringstream in(dot);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, node)) {
            node_of[m[2]] = m[1];
            counts[m[2]] = m[3];
        } else if (std::regex_search(line, m, edge)) {
            edges[{m[1], m[2]}] = std::stoi(m[3]);
        }
    }
    REQUIRE(node_of.size() == 3);  // mm (AIC), vec (AIV), vec (AIC)
    CHECK(counts.at("mm (AIC)") == "3 tasks, 3 blocks");
    CHECK(counts.at("vec (AIV)") == "6 tasks, 15 blocks");
    CHECK(counts.at("vec (AIC)") == "3 tasks, 3 blocks");
    const std::string mm = node_of.at("mm (AIC)");
    const std::string vec = node_of.at("vec (AIV)");
    const std::string vec_aic = node_of.at("vec (AIC)");
    CHECK(edges == std::map<std::pair<std::string, std::string>, int>{
                       {{mm, vec}, 3}, {{vec, vec}, 3}, {{mm, vec_aic}, 3}});
}
