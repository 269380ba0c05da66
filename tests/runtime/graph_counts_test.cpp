// pto::count_graph: the docs/bench.md counts of a recorded graph, on a hand-made record and on a recorded
// run.
#include <catch2/catch.hpp>

#include "pto/runtime/graph.h"
#include "pto/runtime/runtime.h"
#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

RecordedTask task(std::uint64_t id, TaskKind kind, std::uint32_t blocks, std::uint32_t first,
                  std::uint32_t count) {
    RecordedTask t;
    t.id = TaskId{id};
    t.kind = kind;
    t.core = kind == TaskKind::Kernel ? CoreType::AIV : CoreType::None;
    t.block_num = blocks;
    t.first_producer = first;
    t.producer_count = count;
    return t;
}

}  // namespace

TEST_CASE("count_graph splits tasks and edges into kernel and framework ones", "[runtime][graph]") {
    // 10: alloc; 11, 12: kernels (4 and 2 blocks); 13: dependency-only join; 14: kernel.
    // Producers: 11 <- 10 (framework), 12 <- 11 (kernel) and 7 (outside the record: framework),
    // 13 <- 11, 12 (framework: the consumer is no kernel), 14 <- 12 (kernel) and 13 (framework).
    GraphRecord g;
    g.producers = {TaskId{10}, TaskId{11}, TaskId{7}, TaskId{11}, TaskId{12}, TaskId{12}, TaskId{13}};
    g.tasks = {task(10, TaskKind::Alloc, 1, 0, 0), task(11, TaskKind::Kernel, 4, 0, 1),
               task(12, TaskKind::Kernel, 2, 1, 2), task(13, TaskKind::DependencyOnly, 1, 3, 2),
               task(14, TaskKind::Kernel, 1, 5, 2)};
    const GraphCounts c = count_graph(g);
    CHECK(c.kernel_tasks == 3);
    CHECK(c.framework_tasks == 2);
    CHECK(c.subtasks == 7);
    CHECK(c.kernel_edges == 2);
    CHECK(c.framework_edges == 5);
    CHECK(count_graph(GraphRecord{}) == GraphCounts{});
}

TEST_CASE("count_graph of a recorded run counts what the orchestration submitted", "[runtime][graph]") {
    RuntimeConfig config;
    config.record_graph = true;
    Runtime rt(config);
    rt.register_kernel(FuncId{0}, KernelInfo{"noop", 1.0, nullptr, nullptr});
    pto::run(rt, [] {
        PTO2_SCOPE(MANUAL) {
            Args a;
            a.block_num(3);
            const TaskId first = submit_aiv(FuncId{0}, a).task_id();
            Args b;
            b.set_dependencies(&first, 1);
            const TaskId second = submit_aic(FuncId{0}, b).task_id();
            const TaskId both[] = {first, second};
            Args join;
            join.set_dependencies(both, 2);
            submit_dependency_only(join);
        }
    });
    const GraphCounts c = count_graph(rt.graph());
    CHECK(c.kernel_tasks == 2);
    CHECK(c.framework_tasks == 1);
    CHECK(c.subtasks == 4);
    CHECK(c.kernel_edges == 1);
    CHECK(c.framework_edges == 2);
}
