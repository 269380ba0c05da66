// docs/api.md and docs/design/tensormap.md, conformance: AUTO scopes discover RAW, WAR and WAW edges from
// tensor arguments through the whole stack; MANUAL scopes take explicit edges only and never touch the
// tensormap.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <vector>

#include "support/catch_printers.h"
#include "pto/scope/orchestration.h"
#include "support/expect_error.h"

using namespace pto;

namespace {

constexpr FuncId kK{0};

RuntimeConfig recording() {
    RuntimeConfig c;
    c.record_graph = true;
    c.orchestration = OrchestrationMode::Serial;  // nothing retires while building: every edge is recorded
    return c;
}

std::set<std::pair<std::uint64_t, std::uint64_t>> edges_of(const GraphRecord& g) {
    std::set<std::pair<std::uint64_t, std::uint64_t>> e;
    for (const RecordedTask& t : g.tasks)
        for (TaskId p : g.producers_of(t))
            e.insert({p.value, t.id.value});
    return e;
}

}  // namespace

//   w0: write A[0:8]   r1: read A[0:8]   r2: read A[4:12]   w3: write A[0:16]   r4: read A[8:16]
//   RAW w0->r1, w0->r2; WAR r1->w3, r2->w3; WAW w0->w3; RAW w3->r4.
TEST_CASE("an AUTO scope discovers RAW, WAR and WAW edges and nothing else", "[scope][tensormap]") {
    std::vector<float> a(16);
    const TensorView whole = TensorView::contiguous(a.data(), DataType::F32, {16});
    Runtime rt(recording());
    TaskId ids[5];
    pto::run(rt, [&] {
        PTO2_SCOPE() {
            ids[0] = submit_aiv(kK, Args().output(whole.slice(0, 0, 8))).task_id();
            ids[1] = submit_aiv(kK, Args().input(whole.slice(0, 0, 8))).task_id();
            ids[2] = submit_aiv(kK, Args().input(whole.slice(0, 4, 8))).task_id();
            ids[3] = submit_aic(kK, Args().output(whole)).task_id();
            ids[4] = submit_aiv(kK, Args().input(whole.slice(0, 8, 8))).task_id();
        }
    });
    const auto e = edges_of(rt.graph());
    const std::set<std::pair<std::uint64_t, std::uint64_t>> expected = {
        {ids[0].value, ids[1].value}, {ids[0].value, ids[2].value}, {ids[1].value, ids[3].value},
        {ids[2].value, ids[3].value}, {ids[0].value, ids[3].value}, {ids[3].value, ids[4].value}};
    CHECK(e == expected);
    CHECK(rt.last_report().orchestrator.tensormap_lookups == 5);
}

TEST_CASE("inout chains serialise and disjoint views stay parallel", "[scope][tensormap]") {
    std::vector<float> a(64);
    const TensorView m = TensorView::contiguous(a.data(), DataType::F32, {8, 8});
    Runtime rt(recording());
    pto::run(rt, [&] {
        for (int step = 0; step < 3; ++step)
            for (std::uint32_t row = 0; row < 8; ++row)
                submit_aiv(kK, Args().inout(m.slice(0, row, 1)));
    });
    const GraphRecord& g = rt.graph();
    REQUIRE(g.tasks.size() == 24);
    for (std::size_t i = 0; i < g.tasks.size(); ++i) {
        const auto producers = g.producers_of(g.tasks[i]);
        if (i < 8) {
            CHECK(producers.empty());
        } else {
            REQUIRE(producers.size() == 1);
            CHECK(producers[0] == g.tasks[i - 8].id);  // the same row, one step earlier
        }
    }
}

TEST_CASE("untracked views and MANUAL scopes never create discovered edges", "[scope][tensormap]") {
    std::vector<float> w(32);
    const TensorView weights = TensorView::contiguous(w.data(), DataType::F32, {32});
    Runtime rt(recording());
    pto::run(rt, [&] {
        PTO2_SCOPE() {
            submit_aiv(kK, Args().output(weights.untracked()));
            submit_aiv(kK, Args().input(weights.untracked()));
        }
        PTO2_SCOPE(MANUAL) {
            submit_aiv(kK, Args().output(weights));
            submit_aiv(kK, Args().input(weights));
        }
    });
    CHECK(edges_of(rt.graph()).empty());
    CHECK(rt.last_report().orchestrator.tensormap_lookups == 0);
    CHECK(rt.last_report().orchestrator.tensormap_inserts == 0);
}

TEST_CASE("explicit dependencies add to the discovered ones in AUTO scopes", "[scope][tensormap]") {
    std::vector<float> a(8);
    const TensorView v = TensorView::contiguous(a.data(), DataType::F32, {8});
    Runtime rt(recording());
    TaskId x, y, z;
    pto::run(rt, [&] {
        x = submit_aiv(kK, Args().output(v)).task_id();
        y = submit_aiv(kK, Args()).task_id();
        z = submit_aiv(kK, Args().input(v).set_dependencies(&y, 1)).task_id();
    });
    const auto e = edges_of(rt.graph());
    CHECK(e.count({x.value, z.value}) == 1);
    CHECK(e.count({y.value, z.value}) == 1);
    CHECK(e.size() == 2);
}

TEST_CASE("a runtime-allocated output is found through its creator", "[scope][alloc]") {
    Runtime rt(recording());
    TaskId producer, consumer;
    TensorView made;
    pto::run(rt, [&] {
        PTO2_SCOPE() {
            TaskHandle h = submit_aic(kK, Args().output(TensorCreateInfo(DataType::BF16, {16, 128})));
            producer = h.task_id();
            REQUIRE(h.output_count() == 1);
            made = h.output(0);
            consumer = submit_aiv(kK, Args().input(made)).task_id();
        }
    });
    CHECK(made.base != nullptr);
    CHECK(made.creator == producer);
    CHECK(made.shape[0] == 16);
    CHECK(made.strides[0] == 128);
    CHECK(reinterpret_cast<std::uintptr_t>(made.base) % 64 == 0);
    CHECK(edges_of(rt.graph()) ==
          std::set<std::pair<std::uint64_t, std::uint64_t>>{{producer.value, consumer.value}});
    // The creator's own write was never entered in the map.
    CHECK(rt.last_report().orchestrator.tensormap_inserts == 1);
}

//   a, b, c ──► join (dependency-only) ──► d, e
TEST_CASE("a dependency-only task joins N producers to M consumers with N + M edges", "[scope][join]") {
    Runtime rt(recording());
    std::vector<TaskId> first;
    TaskId join, d, e;
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            for (int i = 0; i < 3; ++i)
                first.push_back(submit_aic(kK, Args()).task_id());
            join = submit_dependency_only(Args().set_dependencies(first)).task_id();
            d = submit_aiv(kK, Args().set_dependencies(&join, 1)).task_id();
            e = submit_aiv(kK, Args().set_dependencies(&join, 1)).task_id();
        }
    });
    CHECK(edges_of(rt.graph()) ==
          std::set<std::pair<std::uint64_t, std::uint64_t>>{{first[0].value, join.value},
                                                            {first[1].value, join.value},
                                                            {first[2].value, join.value},
                                                            {join.value, d.value},
                                                            {join.value, e.value}});
    CHECK(rt.last_report().framework_tasks == 1);
    CHECK(rt.last_report().completed == 6);
}

TEST_CASE("alloc_tensors hands out distinct buffers owned by one task", "[scope][alloc]") {
    Runtime rt(recording());
    pto::run(rt, [] {
        PTO2_SCOPE(MANUAL) {
            TaskHandle h = alloc_tensors(
                {TensorCreateInfo(DataType::F32, {100}), TensorCreateInfo(DataType::I8, {3, 5})});
            REQUIRE(h.output_count() == 2);
            CHECK(h.output(0).base != h.output(1).base);
            CHECK(h.output(0).creator == h.task_id());
            CHECK(h.output(1).shape[1] == 5);
            CHECK_THROWS_AS(h.output(2), Error);
        }
    });
    CHECK(rt.last_report().framework_tasks == 1);
}

TEST_CASE("a tracked view of more than 5 dimensions in an AUTO scope is an InvalidTensor naming the task",
          "[scope][errors]") {
    Runtime rt(recording());
    std::vector<float> buffer(16);
    TensorView bad = TensorView::contiguous(buffer.data(), DataType::F32, {16});
    bad.ndim = 6;  // set by hand: the tensormap is the first to read it
    pto::test::expect_error(
        [&] {
            pto::run(rt, [&] {
                PTO2_SCOPE() {
                    submit_aiv(kK, Args().input(bad));
                }
            });
        },
        ErrorCode::InvalidTensor, {"(kernel ", "6"});
    // The runtime serves the next run.
    CHECK(pto::run(rt, [] { submit_aiv(kK, Args()); }).completed == 1);
}
