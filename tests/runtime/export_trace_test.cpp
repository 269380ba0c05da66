// docs/architecture.md observability, conformance: the Perfetto / Chrome-trace writer on simulated and real
// timelines, and the graph writers (JSON parsed back, DOT with every edge).
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>
#include <string>

#include "pto/runtime/error.h"
#include "pto/runtime/export.h"
#include "pto/runtime/runtime.h"
#include "pto/runtime/simulate.h"
#include "pto/scope/orchestration.h"
#include "sim_test_graph.h"
#include "support/catch_printers.h"

using namespace pto;
using pto::test::GraphBuilder;

namespace {

//   a (AIC x2) ──┬── b (AIV x3) ──┬── m (MIX) ── d (dep-only) ── e (AIV)
//                └── c (AIC)    ──┘
struct SmallGraph {
    GraphBuilder b;
    TaskId a, bb, c, m, d, e;
    SmallGraph() {
        const FuncId mm = b.kernel("matmul", 12.0);
        const FuncId vec = b.kernel("vector \"op\"", 4.0);
        a = b.task(CoreType::AIC, mm, 2);
        bb = b.task(CoreType::AIV, vec, 3, {a});
        c = b.task(CoreType::AIC, mm, 1, {a});
        m = b.mix(mm, vec, vec, 1, {bb, c});
        d = b.dependency_only({m});
        e = b.task(CoreType::AIV, vec, 1, {d});
    }
};

std::map<std::string, int> count_phases(const nlohmann::json& trace) {
    std::map<std::string, int> n;
    for (const auto& ev : trace.at("traceEvents"))
        ++n[ev.at("ph").get<std::string>()];
    return n;
}

}  // namespace

TEST_CASE("a simulated timeline exports as Chrome-trace JSON with one track per core and AICPU extras",
          "[export][trace]") {
    SmallGraph s;
    SimConfig cfg;
    cfg.machine.cluster_count = 2;
    cfg.machine.scheduler_threads = 2;
    const SimReport r = simulate(s.b.graph(), cfg);
    std::ostringstream out;
    write_perfetto_trace(out, s.b.graph(), r.timeline, cfg.machine, r.trace);
    const nlohmann::json trace = nlohmann::json::parse(out.str());
    REQUIRE(trace.contains("traceEvents"));
    CHECK(trace.at("displayTimeUnit") == "ns");

    std::size_t samples = 0;
    for (const CounterSeries& c : r.trace.counters)
        samples += c.samples.size();
    const auto n = count_phases(trace);
    CHECK(n.at("X") == static_cast<int>(r.timeline.size() + r.trace.slices.size()));
    CHECK(n.at("C") == static_cast<int>(samples));
    // process_name + process_sort_index for 4 processes; thread_name + thread_sort_index per core (2 AIC,
    // 4 AIV) and per AICPU track (orchestrator + 2 schedulers).
    CHECK(n.at("M") == 2 * 4 + 2 * (6 + 3));
    CHECK(r.timeline.size() == 2 + 3 + 1 + 3 + 1);

    std::set<std::string> processes;
    std::map<std::string, int> kernels;
    for (const auto& ev : trace.at("traceEvents")) {
        if (ev.at("ph") == "M" && ev.at("name") == "process_name") processes.insert(ev.at("args").at("name"));
        if (ev.at("ph") != "X" || ev.at("pid") == 3) continue;
        ++kernels[ev.at("name").get<std::string>()];
        CHECK(ev.at("args").contains("task"));
        CHECK(ev.at("args").contains("block"));
        CHECK(ev.at("args").contains("lane"));
        CHECK(ev.at("dur").get<double>() > 0.0);
    }
    CHECK(processes == std::set<std::string>{"AICore AIC", "AICore AIV", "AICPU", "Overhead"});
    CHECK(kernels.at("matmul") == 2 + 1 + 1);         // a's blocks, c, m's AIC lane
    CHECK(kernels.at("vector \"op\"") == 3 + 2 + 1);  // b's blocks, m's AIV lanes, e

    // Timestamps are microseconds with three decimals: the first event of a starts where the record does.
    const SubtaskRecord& first = r.timeline.front();
    bool found = false;
    for (const auto& ev : trace.at("traceEvents")) {
        if (ev.at("ph") != "X" || ev.at("pid") == 3) continue;
        if (ev.at("args").at("task") == first.task.value && ev.at("args").at("block") == first.block_idx &&
            ev.at("args").at("lane") == first.lane) {
            CHECK(ev.at("ts").get<double>() == Approx(static_cast<double>(first.start_ns) / 1000.0));
            found = true;
        }
    }
    CHECK(found);
}

TEST_CASE("a real run's subtask records export without extras", "[export][trace]") {
    RuntimeConfig rc;
    rc.executor = Executor::Timed;
    rc.timed_scale = 0.01;
    rc.record_graph = true;
    rc.record_subtasks = true;
    Runtime rt(rc);
    rt.register_kernel(FuncId{0}, KernelInfo{"k", 5.0, nullptr, nullptr});
    pto::run(rt, [&] {
        const TaskId a = submit_aic(FuncId{0}, Args().block_num(4)).task_id();
        submit_mix(FuncId{0}, FuncId{0}, FuncId{0}, Args().set_dependencies(&a, 1).block_num(2));
    });
    std::ostringstream out;
    write_perfetto_trace(out, rt.graph(), rt.subtasks(), rc);
    const nlohmann::json trace = nlohmann::json::parse(out.str());
    const auto n = count_phases(trace);
    CHECK(n.at("X") == 4 + 2 * 3);
    CHECK(n.count("C") == 0);
    CHECK(n.at("M") == 2 * 2 + 2 * (24 + 48));
}

TEST_CASE("the trace writer rejects a record on a core the machine does not have, writing nothing",
          "[export][trace][errors]") {
    SubtaskRecord r;
    r.core = 72;
    r.task = TaskId{5};
    std::ostringstream out;
    try {
        write_perfetto_trace(out, GraphRecord{}, std::span<const SubtaskRecord>(&r, 1), RuntimeConfig{});
        FAIL("no error");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::InvalidArgument);
        CHECK_THAT(std::string(e.what()), Catch::Contains("task 5"));
    }
    CHECK(out.str().empty());
}

TEST_CASE("the graph JSON lists every task with its kind, core, kernels, width and producers",
          "[export][graph]") {
    SmallGraph s;
    const GraphRecord& g = s.b.graph();
    std::ostringstream out;
    write_graph_json(out, g);
    const nlohmann::json j = nlohmann::json::parse(out.str());
    CHECK(j.at("schema") == "pto-graph/1");
    REQUIRE(j.at("tasks").size() == g.tasks.size());
    CHECK(j.at("kernels").size() == 2);
    for (std::size_t i = 0; i < g.tasks.size(); ++i) {
        const RecordedTask& t = g.tasks[i];
        const nlohmann::json& task = j.at("tasks")[i];
        CHECK(task.at("id") == t.id.value);
        CHECK(task.at("block_num") == t.block_num);
        CHECK(task.at("core") == std::string(to_string(t.core)));
        std::vector<std::uint64_t> producers;
        for (TaskId p : g.producers_of(t))
            producers.push_back(p.value);
        CHECK(task.at("producers").get<std::vector<std::uint64_t>>() == producers);
    }
    CHECK(j.at("tasks")[3].at("kernels") == nlohmann::json({"matmul", "vector \"op\"", "vector \"op\""}));
    CHECK(j.at("tasks")[4].at("kind") == "dependency-only");
    CHECK(j.at("tasks")[4].at("kernels").empty());
}

TEST_CASE("the DOT graph has a node per task and an edge per producer", "[export][graph]") {
    SmallGraph s;
    const GraphRecord& g = s.b.graph();
    std::ostringstream out;
    write_graph_dot(out, g);
    const std::string dot = out.str();
    CHECK(dot.rfind("digraph pto {", 0) == 0);
    CHECK(dot.back() == '\n');
    std::size_t edges = 0;
    for (const RecordedTask& t : g.tasks) {
        CHECK(dot.find("  t" + std::to_string(t.id.value) + " [") != std::string::npos);
        for (TaskId p : g.producers_of(t)) {
            CHECK(dot.find("  t" + std::to_string(p.value) + " -> t" + std::to_string(t.id.value) + ";\n") !=
                  std::string::npos);
            ++edges;
        }
    }
    std::size_t arrows = 0;
    for (std::size_t pos = dot.find("->"); pos != std::string::npos; pos = dot.find("->", pos + 2))
        ++arrows;
    CHECK(arrows == edges);
    CHECK(dot.find("vector \\\"op\\\"") != std::string::npos);  // quotes in kernel names are escaped
    CHECK(dot.find("dep-only") != std::string::npos);
    CHECK(dot.find("style=\"dashed,filled\"") != std::string::npos);
}
