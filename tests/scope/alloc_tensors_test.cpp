// alloc_tensors: the runtime writes the new views where it keeps the task's arguments. The same task built
// the generic way (an Args of create-info outputs, the path the dependency checker takes) must give the same
// views, the same checks and the same graph, so the two are run side by side here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "pto/scope/orchestration.h"
#include "support/catch_printers.h"
#include "support/expect_error.h"

using namespace pto;

namespace {

constexpr FuncId kK{0};

RuntimeConfig config(bool generic_path) {
    RuntimeConfig c;
    c.record_graph = true;
    c.orchestration = OrchestrationMode::Serial;
    // The checker sends alloc_tensors through the generic submit path; a report changes nothing else.
    c.check_dependencies = generic_path ? DependencyCheck::Report : DependencyCheck::Off;
    return c;
}

const std::vector<TensorCreateInfo>& infos() {
    static const std::vector<TensorCreateInfo> v = {
        TensorCreateInfo(DataType::F32, {100}),      TensorCreateInfo(DataType::I8, {3, 5}),
        TensorCreateInfo(DataType::BF16, {2, 3, 4}), TensorCreateInfo(DataType::I64, {1, 1, 1, 1, 7}),
        TensorCreateInfo(DataType::F16, {64, 128}),
    };
    return v;
}

/// Allocation: what a run's alloc_tensors handed out, with buffer addresses made relative to the first.
struct Allocation {
    std::vector<TensorView> views;
    std::vector<std::int64_t> distance_from_first;
    TaskId id;
};

Allocation allocate(Runtime& rt, ScopeMode mode) {
    Allocation a;
    pto::run(rt, [&] {
        for (ScopeGuard scope{mode}; scope.enter_once();) {  // PTO2_SCOPE with the mode as a value
            const TaskHandle h = alloc_tensors(infos());
            a.id = h.task_id();
            for (std::uint32_t i = 0; i < h.output_count(); ++i)
                a.views.push_back(h.output(i));
            // A reader of every buffer: in an AUTO scope it finds the alloc through the views' creator.
            Args args;
            for (const TensorView& v : a.views)
                args.input(v);
            if (mode == ScopeMode::Manual) args.after(h);
            submit_aiv(kK, args);
        }
    });
    for (const TensorView& v : a.views)
        a.distance_from_first.push_back(static_cast<std::byte*>(v.base) -
                                        static_cast<std::byte*>(a.views[0].base));
    return a;
}

}  // namespace

TEST_CASE("alloc_tensors gives the views, buffers and graph of the generic submit path", "[scope][alloc]") {
    for (ScopeMode mode : {ScopeMode::Manual, ScopeMode::Auto}) {
        Runtime direct(config(false)), generic(config(true));
        const Allocation d = allocate(direct, mode);
        const Allocation g = allocate(generic, mode);
        INFO("mode " << (mode == ScopeMode::Manual ? "MANUAL" : "AUTO"));
        REQUIRE(d.views.size() == infos().size());
        REQUIRE(g.views.size() == infos().size());
        CHECK(d.id == g.id);
        CHECK(d.distance_from_first == g.distance_from_first);
        for (std::size_t i = 0; i < d.views.size(); ++i) {
            const TensorView &a = d.views[i], &b = g.views[i];
            INFO("output " << i);
            CHECK(reinterpret_cast<std::uintptr_t>(a.base) % 64 == 0);
            CHECK(a.offset == b.offset);
            CHECK(a.ndim == b.ndim);
            CHECK(a.dtype == b.dtype);
            CHECK(a.is_tracked == b.is_tracked);
            CHECK(a.creator == d.id);
            CHECK(b.creator == g.id);
            for (int k = 0; k < kMaxTensorDims; ++k) {
                CHECK(a.shape[k] == b.shape[k]);
                CHECK(a.strides[k] == b.strides[k]);
            }
            // Buffers do not overlap: each ends before the next begins.
            if (i + 1 < d.views.size())
                CHECK(d.distance_from_first[i + 1] - d.distance_from_first[i] >=
                      static_cast<std::int64_t>(a.element_count() * size_of(a.dtype)));
        }
        const RunReport& rd = direct.last_report();
        const RunReport& rg = generic.last_report();
        CHECK(rd.orchestrator.heap_bytes_allocated == rg.orchestrator.heap_bytes_allocated);
        CHECK(rd.framework_tasks == 1);
        CHECK(rd.completed == 2);
        const GraphRecord& gd = direct.graph();
        REQUIRE(gd.tasks.size() == 2);
        CHECK(gd.tasks[0].kind == TaskKind::Alloc);
        REQUIRE(gd.producers_of(gd.tasks[1]).size() == 1);
        CHECK(gd.producers_of(gd.tasks[1])[0] == d.id);
    }
}

TEST_CASE("output_ref reads a handle's outputs where the runtime keeps them, with output's checks",
          "[scope][alloc]") {
    Runtime rt(config(false));
    float input[8] = {};
    const TensorView in = TensorView::contiguous(input, DataType::F32, {8});
    TaskHandle alloc, mixed;
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            alloc = alloc_tensors(infos());
            for (std::uint32_t i = 0; i < alloc.output_count(); ++i) {
                const TensorView& ref = alloc.output_ref(i);
                const TensorView copy = alloc.output(i);
                CHECK(ref.base == copy.base);
                CHECK(ref.creator == alloc.task_id());
                CHECK(ref.ndim == infos()[i].ndim);
                CHECK(&alloc.output_ref(i) == &ref);  // the same storage every time: nothing is copied
            }
            // A kernel whose create-info outputs sit between inputs: the i-th output, not the i-th argument.
            mixed = submit_aiv(kK, Args()
                                       .input(in)
                                       .output(TensorCreateInfo(DataType::F32, {4}))
                                       .input(in)
                                       .output(TensorCreateInfo(DataType::I8, {2, 3})));
            REQUIRE(mixed.output_count() == 2);
            CHECK(mixed.output_ref(0).shape[0] == 4);
            CHECK(mixed.output_ref(1).dtype == DataType::I8);
            CHECK(mixed.output_ref(1).creator == mixed.task_id());
            CHECK(&mixed.output_ref(1) == &mixed.output_ref(1));
            pto::test::expect_error([&] { (void)mixed.output_ref(2); }, ErrorCode::InvalidArgument,
                                    {"output(2) of task " + std::to_string(mixed.task_id().value),
                                     "which allocated 2 tensor(s)"});
        }
    });
    // The run is over, so both tasks retired and their argument storage serves later tasks.
    for (const TaskHandle& h : {alloc, mixed})
        pto::test::expect_error([&] { (void)h.output_ref(0); }, ErrorCode::InvalidArgument,
                                {"of task " + std::to_string(h.task_id().value), "which has retired"});
}

TEST_CASE("alloc_tensors refuses a bad rank and an allocation larger than the heap, naming the task",
          "[scope][alloc][errors]") {
    for (bool generic_path : {false, true}) {
        INFO((generic_path ? "generic path" : "direct path"));
        RuntimeConfig c = config(generic_path);
        c.heap_bytes = 1 << 20;
        Runtime rt(c);
        TensorCreateInfo no_rank;  // ndim 0
        pto::test::expect_error([&] { pto::run(rt, [&] { alloc_tensors({no_rank}); }); },
                                ErrorCode::InvalidTensor,
                                {"(alloc_tensors)", "tensor argument 0 has rank 0"});
        TensorCreateInfo six;
        six.ndim = 6;
        pto::test::expect_error(
            [&] { pto::run(rt, [&] {
                      alloc_tensors({TensorCreateInfo(DataType::F32, {4}), six});
                  }); },
            ErrorCode::InvalidTensor, {"(alloc_tensors)", "tensor argument 1 has rank 6"});
        pto::test::expect_error(
            [&] {
                pto::run(rt, [&] {
                    alloc_tensors({TensorCreateInfo(DataType::F32, {1u << 20}),
                                   TensorCreateInfo(DataType::F32, {4294967295u, 4294967295u, 4294967295u})});
                });
            },
            ErrorCode::CapacityExhausted, {"(alloc_tensors)", "RuntimeConfig::heap_bytes"});
        // Nothing was submitted by the refused calls, and the runtime serves the next run.
        CHECK(pto::run(rt, [] { alloc_tensors({TensorCreateInfo(DataType::F32, {4})}); }).framework_tasks ==
              1);
    }
}

TEST_CASE("alloc_tensors lays buffers out as the generic path does, across the heap ring's wrap",
          "[scope][alloc]") {
    // A heap of a few allocations: buffers are carved in one run when it fits before the ring's end and
    // one by one (skipping the tail) when not; both must give the buffer-by-buffer layout.
    const std::vector<TensorCreateInfo> three = {TensorCreateInfo(DataType::I8, {1000}),
                                                 TensorCreateInfo(DataType::I8, {2000}),
                                                 TensorCreateInfo(DataType::I8, {700})};
    auto layout = [&](bool generic_path) {
        RuntimeConfig c = config(generic_path);
        c.orchestration = OrchestrationMode::Concurrent;
        c.heap_bytes = 8192;
        Runtime rt(c);
        std::vector<std::int64_t> offsets;
        pto::run(rt, [&] {
            std::byte* first = nullptr;
            for (int k = 0; k < 40; ++k) {
                PTO2_SCOPE(MANUAL) {
                    const TaskHandle h = alloc_tensors(three);
                    for (std::uint32_t i = 0; i < h.output_count(); ++i) {
                        auto* base = static_cast<std::byte*>(h.output(i).base);
                        if (first == nullptr) first = base;
                        offsets.push_back(base - first);
                    }
                }
            }
        });
        return offsets;
    };
    const std::vector<std::int64_t> direct = layout(false);
    const std::vector<std::int64_t> generic = layout(true);
    REQUIRE(direct.size() == 120);
    CHECK(direct == generic);
    // The ring wrapped, and no buffer crossed its end.
    CHECK(std::count(direct.begin(), direct.end(), 0) > 1);
    for (std::size_t i = 0; i < direct.size(); ++i)
        CHECK(direct[i] + static_cast<std::int64_t>(three[i % 3].byte_size()) <= 8192);
}

TEST_CASE("alloc_tensors serves consecutive requests that differ in one field as the generic path does",
          "[scope][alloc]") {
    // The runtime keeps the layout of the last request; each request here differs from the one before it
    // in one field (or repeats it), so a kept layout used for the wrong request shows in the views.
    const TensorCreateInfo a(DataType::F32, {4, 8}), b(DataType::F16, {4, 8}), c(DataType::F32, {4, 9});
    const TensorCreateInfo d(DataType::F32, {4, 8, 1}), e(DataType::F32, {32});
    const std::vector<std::vector<TensorCreateInfo>> requests = {
        {a, b}, {a, b}, {b, b}, {a, c}, {a, d}, {a, e}, {a}, {a, b, c}, {a, b}, {}, {a, b}};
    auto views_of = [&](bool generic_path) {
        Runtime rt(config(generic_path));
        std::vector<TensorView> views;
        std::vector<std::int64_t> offsets;
        pto::run(rt, [&] {
            std::byte* first = nullptr;
            for (const auto& request : requests) {
                PTO2_SCOPE(MANUAL) {
                    const TaskHandle h = alloc_tensors(request);
                    REQUIRE(h.output_count() == request.size());
                    for (std::uint32_t i = 0; i < h.output_count(); ++i) {
                        views.push_back(h.output(i));
                        CHECK(views.back().creator == h.task_id());
                        auto* base = static_cast<std::byte*>(views.back().base);
                        if (first == nullptr) first = base;
                        offsets.push_back(base - first);
                    }
                }
            }
        });
        return std::pair{views, offsets};
    };
    const auto [direct, direct_offsets] = views_of(false);
    const auto [generic, generic_offsets] = views_of(true);
    REQUIRE(direct.size() == generic.size());
    CHECK(direct_offsets == generic_offsets);
    std::size_t k = 0;
    for (const auto& request : requests) {
        for (const TensorCreateInfo& info : request) {
            INFO("view " << k);
            const TensorView &x = direct[k], &y = generic[k];
            CHECK(x.dtype == info.dtype);
            CHECK(x.ndim == info.ndim);
            CHECK(x.element_count() == info.element_count());
            CHECK(x.is_contiguous());
            CHECK(x.dtype == y.dtype);
            CHECK(x.ndim == y.ndim);
            for (int dim = 0; dim < kMaxTensorDims; ++dim) {
                CHECK(x.shape[dim] == y.shape[dim]);
                CHECK(x.strides[dim] == y.strides[dim]);
            }
            ++k;
        }
    }
}

TEST_CASE("alloc_tensors checks a request after a refused one and after a repeated one",
          "[scope][alloc][errors]") {
    Runtime rt(config(false));
    const TensorCreateInfo good(DataType::F32, {16});
    TensorCreateInfo bad = good;
    bad.ndim = 0;
    pto::test::expect_error(
        [&] {
            pto::run(rt, [&] {
                alloc_tensors({good, good});
                alloc_tensors({good, good});
                alloc_tensors({good, bad});
            });
        },
        ErrorCode::InvalidTensor, {"(alloc_tensors)", "tensor argument 1 has rank 0"});
    // The refused request is refused again, not served from what the runtime kept.
    pto::test::expect_error([&] { pto::run(rt, [&] {
                                      alloc_tensors({good, bad});
                                  }); },
                            ErrorCode::InvalidTensor, {"tensor argument 1 has rank 0"});
    CHECK(pto::run(rt, [&] { alloc_tensors({good, good}); }).framework_tasks == 1);
}
