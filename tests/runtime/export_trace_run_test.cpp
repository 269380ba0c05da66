// Traces of real runs: a compute kernel's slice starts when its body starts (not when it was handed to the
// worker pool), the AICPU lanes match the model's layout, every dependency is one flow arrow, and an
// instant-executor trace says that its kernel slices are empty. All checks are orderings, never durations.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "pto/runtime/export.h"
#include "pto/runtime/runtime.h"
#include "pto/runtime/simulate.h"
#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

std::int64_t steady_now() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// SelfStamps: a kernel that reads the steady clock first and last thing in its body and keeps the reads
/// per (task, block).
struct SelfStamps {
    std::mutex mutex;
    std::map<std::pair<std::uint64_t, std::uint32_t>, std::pair<std::int64_t, std::int64_t>> reads;

    static int kernel(const KernelContext& ctx) {
        const std::int64_t first = steady_now();
        volatile std::uint64_t sink = 0;
        for (std::uint64_t i = 0; i < 20000; ++i)
            sink = sink + i * ctx.block_idx;
        auto* self = static_cast<SelfStamps*>(ctx.user);
        const std::int64_t last = steady_now();
        std::lock_guard lock(self->mutex);
        self->reads[{ctx.task.value, ctx.block_idx}] = {first, last};
        return 0;
    }
};

nlohmann::json trace_of(const Runtime& rt, const RuntimeConfig& config) {
    std::ostringstream out;
    write_perfetto_trace(out, rt.graph(), rt.subtasks(), config,
                         run_trace_extras(rt.graph(), rt.aicpu_records(), config));
    return nlohmann::json::parse(out.str());
}

}  // namespace

TEST_CASE("a compute-executor slice lies between the hand-off and the kernel body's own clock reads",
          "[export][trace][compute]") {
    RuntimeConfig config;
    config.executor = Executor::Compute;
    config.compute_threads = 1;  // one worker: bodies cannot overlap, hand-offs do
    config.scheduler_threads = 2;
    config.record_graph = true;
    config.record_subtasks = true;
    SelfStamps stamps;
    Runtime rt(config);
    rt.register_kernel(FuncId{0}, KernelInfo{"self", 5.0, &SelfStamps::kernel, &stamps});
    const RunReport report = pto::run(rt, [&] {
        for (int i = 0; i < 12; ++i)
            submit_aiv(FuncId{0}, Args().block_num(3));
    });
    REQUIRE(report.ok());
    std::vector<SubtaskRecord> records(rt.subtasks().begin(), rt.subtasks().end());
    REQUIRE(records.size() == 36);
    REQUIRE(stamps.reads.size() == 36);
    const std::int64_t base = report.start_steady_ns;
    for (const SubtaskRecord& r : records) {
        const auto [first, last] = stamps.reads.at({r.task.value, r.block_idx});
        INFO("task " << r.task.value << " block " << r.block_idx);
        CHECK(r.dispatch_ns <= r.handoff_ns);
        CHECK(r.handoff_ns <= r.start_ns);
        CHECK(r.start_ns <= first - base);
        CHECK(last - base <= r.end_ns);
        CHECK(r.end_ns <= r.finish_ns);
    }
    // One worker runs one body at a time, so the slices, ordered by start, never overlap.
    std::sort(records.begin(), records.end(),
              [](const SubtaskRecord& a, const SubtaskRecord& b) { return a.start_ns < b.start_ns; });
    for (std::size_t i = 1; i < records.size(); ++i)
        CHECK(records[i - 1].end_ns <= records[i].start_ns);
}

TEST_CASE("a real run's trace has one flow arrow per dependency edge, and no other", "[export][trace]") {
    RuntimeConfig config;
    config.executor = Executor::Timed;
    config.timed_scale = 0.01;
    config.record_graph = true;
    config.record_subtasks = true;
    Runtime rt(config);
    rt.register_kernel(FuncId{0}, KernelInfo{"k", 5.0, nullptr, nullptr});
    //   a ─┬─ b ──┬─ d ── e
    //      └─ c ──┘      (e also waits for a)
    pto::run(rt, [&] {
        const TaskId a = submit_aic(FuncId{0}, Args().block_num(2)).task_id();
        const TaskId b = submit_aiv(FuncId{0}, Args().set_dependencies(&a, 1).block_num(3)).task_id();
        const TaskId c = submit_aic(FuncId{0}, Args().set_dependencies(&a, 1)).task_id();
        const TaskId bc[] = {b, c};
        const TaskId d = submit_aiv(FuncId{0}, Args().set_dependencies(bc, 2)).task_id();
        const TaskId da[] = {d, a};
        submit_aic(FuncId{0}, Args().set_dependencies(da, 2));
    });
    const nlohmann::json trace = trace_of(rt, config);

    std::set<std::pair<std::uint64_t, std::uint64_t>> expected;
    for (const RecordedTask& t : rt.graph().tasks)
        for (TaskId p : rt.graph().producers_of(t))
            expected.emplace(p.value, t.id.value);
    REQUIRE(expected.size() == 6);

    // A flow end names (pid, tid, ts): the kernel slice there is the task it attaches to.
    std::map<std::tuple<int, int, double>, std::uint64_t> task_at;
    for (const auto& ev : trace.at("traceEvents"))
        if (ev.at("ph") == "X" && ev.at("pid").get<int>() <= 2)
            task_at[{ev.at("pid").get<int>(), ev.at("tid").get<int>(), ev.at("ts").get<double>()}] =
                ev.at("args").at("task").get<std::uint64_t>();
    std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> flows;
    std::size_t starts = 0;
    std::size_t finishes = 0;
    for (const auto& ev : trace.at("traceEvents")) {
        const std::string ph = ev.at("ph");
        if (ph != "s" && ph != "f") continue;
        const auto key =
            std::make_tuple(ev.at("pid").get<int>(), ev.at("tid").get<int>(), ev.at("ts").get<double>());
        REQUIRE(task_at.count(key) == 1);
        auto& flow = flows[ev.at("id").get<std::uint64_t>()];
        if (ph == "s") {
            ++starts;
            flow.first = task_at.at(key);
        } else {
            ++finishes;
            CHECK(ev.at("bp") == "e");
            flow.second = task_at.at(key);
        }
    }
    CHECK(starts == expected.size());
    CHECK(finishes == expected.size());
    std::set<std::pair<std::uint64_t, std::uint64_t>> drawn;
    for (const auto& [id, edge] : flows)
        drawn.insert(edge);
    CHECK(drawn == expected);
    CHECK(trace.at("otherData").at("dependency_arrows") == "6 drawn");
}

TEST_CASE("a real run's AICPU lanes are the model's: orchestrator submits and scheduler passes",
          "[export][trace]") {
    RuntimeConfig config;
    config.executor = Executor::Timed;
    config.timed_scale = 0.01;
    config.scheduler_threads = 2;
    config.cluster_count = 4;
    config.record_graph = true;
    config.record_subtasks = true;
    Runtime rt(config);
    rt.register_kernel(FuncId{0}, KernelInfo{"mm", 5.0, nullptr, nullptr});
    pto::run(rt, [&] {
        TaskId previous = submit_aic(FuncId{0}, Args().block_num(2)).task_id();
        for (int i = 0; i < 5; ++i)
            previous = submit_aiv(FuncId{0}, Args().set_dependencies(&previous, 1).block_num(2)).task_id();
    });
    const nlohmann::json trace = trace_of(rt, config);

    const auto aicpu_threads = [](const nlohmann::json& t) {
        std::map<int, std::string> names;
        for (const auto& ev : t.at("traceEvents"))
            if (ev.at("ph") == "M" && ev.at("pid") == 3 && ev.at("name") == "thread_name")
                names[ev.at("tid").get<int>()] = ev.at("args").at("name");
        return names;
    };
    SimConfig sim;
    sim.machine = config;
    sim.record_trace = true;
    const SimReport model = simulate(rt.graph(), sim);
    std::ostringstream model_out;
    write_perfetto_trace(model_out, rt.graph(), model.timeline, sim.machine, model.trace);
    const auto lanes = aicpu_threads(trace);
    CHECK(lanes == aicpu_threads(nlohmann::json::parse(model_out.str())));
    CHECK(lanes == std::map<int, std::string>{{0, "orchestrator"}, {1, "scheduler 0"}, {2, "scheduler 1"}});

    std::set<std::uint64_t> submitted;
    std::set<std::string> scheduler_slices;
    double last_submit_end = 0;
    for (const auto& ev : trace.at("traceEvents")) {
        if (ev.at("ph") != "X" || ev.at("pid") != 3) continue;
        CHECK(ev.at("dur").get<double>() >= 0.0);
        if (ev.at("tid") == 0) {
            CHECK(ev.at("name") == "mm");
            submitted.insert(ev.at("args").at("task").get<std::uint64_t>());
            // Submits are one thread's consecutive calls: each starts after the previous ended.
            CHECK(ev.at("ts").get<double>() >= last_submit_end);
            last_submit_end = ev.at("ts").get<double>() + ev.at("dur").get<double>();
        } else {
            scheduler_slices.insert(ev.at("name").get<std::string>());
        }
    }
    CHECK(submitted.size() == 6);
    CHECK(scheduler_slices == std::set<std::string>{"complete", "dispatch"});
    std::uint64_t completed = 0;
    for (const AicpuRecord& r : rt.aicpu_records())
        if (r.what == AicpuActivity::Complete) completed += r.count;
    CHECK(completed == rt.subtasks().size());
    CHECK(trace.at("otherData").at("executor") == "timed");
    CHECK_FALSE(trace.at("otherData").contains("warning"));
}

TEST_CASE("an instant-executor trace says its kernel slices are empty and suggests timed or compute",
          "[export][trace]") {
    RuntimeConfig config;
    config.record_graph = true;
    config.record_subtasks = true;
    Runtime rt(config);
    rt.register_kernel(FuncId{0}, KernelInfo{"k", 5.0, nullptr, nullptr});
    pto::run(rt, [&] { submit_aic(FuncId{0}, Args()); });
    const nlohmann::json trace = trace_of(rt, config);
    const std::string warning = trace.at("otherData").at("warning");
    CHECK_THAT(warning, Catch::Contains("0 us") && Catch::Contains("timed") && Catch::Contains("compute"));
}

TEST_CASE("the per-kernel counters count the kernel's running subtasks", "[export][trace]") {
    RuntimeConfig config;
    config.executor = Executor::Timed;
    config.timed_scale = 0.01;
    config.record_graph = true;
    config.record_subtasks = true;
    Runtime rt(config);
    rt.register_kernel(FuncId{0}, KernelInfo{"wide", 5.0, nullptr, nullptr});
    pto::run(rt, [&] { submit_aiv(FuncId{0}, Args().block_num(4)); });
    const nlohmann::json trace = trace_of(rt, config);
    int peak = 0;
    int last = -1;
    for (const auto& ev : trace.at("traceEvents")) {
        if (ev.at("ph") != "C" || ev.at("name") != "running wide") continue;
        last = ev.at("args").at("value").get<int>();
        peak = std::max(peak, last);
    }
    CHECK(peak >= 1);
    CHECK(peak <= 4);
    CHECK(last == 0);
}
