// One recorded graph through the threaded scheduler (timed executor) and through the virtual-time model
// (same kernel durations, every AICPU cost zero): both run the same scheduler pass, so every core must run
// the same blocks in the same order.
//
// The placement is deterministic on real threads only where no decision depends on how late a pass runs.
// This graph keeps it so:
//   - one scheduler thread (no race between threads for blocks or cores, and no other thread's idle cores);
//   - serial orchestration: every task is published and linked before the first pass, so the roots are
//     queued in submission order and every later task is made ready by the scheduler's own completions;
//   - waves: each wave's tasks depend on one dependency-only barrier that waits for the whole previous
//     wave, so a wave becomes ready all at once (in one pass) on an empty machine; a wave holds at most one
//     task per shape, so the order of one release does not matter;
//   - no jitter, and every block of one kernel has one duration (MIX lanes too): blocks started in one
//     pass end at one instant, which one later poll sees together, however late it runs. Where a wave
//     overflows the idle cores, the rest goes into pending slots in that first pass (wave 1), or waits for
//     whole clusters that all end together (wave 2), so no choice depends on a race between two ends.
// Nothing here compares durations or wall time.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "pto/runtime/runtime.h"
#include "pto/runtime/simulate.h"
#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

constexpr FuncId kCube{0}, kVector{1};

int no_op(const KernelContext&) {
    return 0;
}

/// Placement: (task, block, lane) in the order one core ran them.
using Placement = std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>;
using CoreOrder = std::map<std::uint32_t, std::vector<Placement>>;

/// core_order: per core, the subtasks it ran, by start (records of one core never share a start: every
/// kernel has a non-zero duration).
CoreOrder core_order(std::vector<SubtaskRecord> records) {
    std::sort(records.begin(), records.end(), [](const SubtaskRecord& a, const SubtaskRecord& b) {
        return std::tie(a.core, a.start_ns, a.dispatch_ns) < std::tie(b.core, b.start_ns, b.dispatch_ns);
    });
    CoreOrder order;
    for (const SubtaskRecord& r : records)
        order[r.core].emplace_back(r.task.value, r.block_idx, r.lane);
    return order;
}

/// submit_waves: three waves on a2a3's 24 clusters (24 AIC, 48 AIV cores), each behind a barrier:
///   0: MIX x 8, AIC x 10, AIV x 20     fits the idle cores
///   1: AIC x 30, AIV x 60              fills every core and then 6 AIC and 12 AIV pending slots
///   2: MIX x 30, AIC x 4               24 MIX blocks; the least busy cluster stays free of AIC work while
///                                      MIX waits, the AIC blocks go to pending slots, and the last 6 MIX
///                                      blocks take the clusters that are wholly idle when the first end
void submit_waves() {
    std::vector<TaskId> wave;
    const auto barrier = [&] {
        const TaskId id = submit_dependency_only(Args().set_dependencies(wave)).task_id();
        wave.assign(1, id);
        return id;
    };
    const auto after = [&](const std::vector<TaskId>& deps, std::uint32_t blocks) {
        Args args;
        args.block_num(blocks);
        if (!deps.empty()) args.set_dependencies(deps);
        return args;
    };
    std::vector<TaskId> deps;
    wave = {submit_mix(kCube, kCube, kCube, after(deps, 8)).task_id(),
            submit_aic(kCube, after(deps, 10)).task_id(), submit_aiv(kVector, after(deps, 20)).task_id()};
    deps = {barrier()};
    wave = {submit_aic(kCube, after(deps, 30)).task_id(), submit_aiv(kVector, after(deps, 60)).task_id()};
    deps = {barrier()};
    wave = {submit_mix(kCube, kCube, kCube, after(deps, 30)).task_id(),
            submit_aic(kCube, after(deps, 4)).task_id()};
}

}  // namespace

TEST_CASE("the threaded scheduler and the model place every block on the same core in the same order",
          "[sim][placement]") {
    RuntimeConfig config = RuntimeConfig::a2a3();
    config.executor = Executor::Timed;
    config.scheduler_threads = 1;
    config.orchestration = OrchestrationMode::Serial;
    config.record_graph = true;
    config.record_subtasks = true;
    Runtime rt(config);
    rt.register_kernel(kCube, KernelInfo{"cube", 100.0, &no_op});
    rt.register_kernel(kVector, KernelInfo{"vector", 50.0, &no_op});
    const RunReport report = pto::run(rt, submit_waves);
    REQUIRE(report.ok());
    const std::vector<SubtaskRecord> threaded(rt.subtasks().begin(), rt.subtasks().end());

    SimConfig sim;
    sim.machine = config;
    sim.cost = without_aicpu_costs(sim.cost);
    const SimReport model = simulate(rt.graph(), sim);

    // 8 x 3 + 10 + 20 + 30 + 60 + 30 x 3 + 4 subtask lanes.
    REQUIRE(threaded.size() == 238);
    REQUIRE(model.timeline.size() == threaded.size());
    const CoreOrder threaded_order = core_order(threaded);
    const CoreOrder model_order = core_order(model.timeline);
    for (const auto& [core, placements] : threaded_order) {
        INFO("core " << core);
        REQUIRE(model_order.count(core) == 1);
        CHECK(model_order.at(core) == placements);
    }
    CHECK(model_order.size() == threaded_order.size());
}
