// docs/architecture.md and docs/design/static-graph.md and docs/reliability.md, conformance: the examples of
// docs/api.md, compiled and run. Each [snippet:...] region is quoted verbatim by the reference
// (tests/docs/snippets_test.cpp checks that); the checks after it prove that the example does what the
// reference says.
#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <cstdio>
#include <vector>

#include "pto/runtime/simulate.h"
#include "pto/scope/orchestration.h"
#include "pto/tensormap/overlap.h"

namespace {

constexpr pto::FuncId kFill{0};
constexpr pto::FuncId kScale{1};
constexpr pto::FuncId kFail{2};

// [snippet:api-kernel]
// fill: out[i] = value for the elements of chunk (chunk_base + block_idx). Tensors: 0 out. Scalars:
// 0 chunk_base, 1 elements per chunk, 2 value (a float stored bit for bit).
int fill(const pto::KernelContext& ctx) {
    if (ctx.lane != 0) return 0;  // MIX: only the AIC lane writes (AIC and AIV tasks always have lane 0)
    const std::uint64_t size = ctx.scalars[1];
    const std::uint64_t first = (ctx.scalars[0] + ctx.block_idx) * size;
    float* out = ctx.tensors[0].view.data<float>();
    for (std::uint64_t i = first; i < first + size; ++i)
        out[i] = ctx.scalar_as<float>(2);
    if (ctx.user != nullptr) static_cast<std::atomic<int>*>(ctx.user)->fetch_add(1);  // registration's user
    return 0;  // non-zero, or an exception, fails the task
}
// [/snippet]

/// scale: tensor 1 = scalar 0 (float) x tensor 0, elementwise over the whole view (one block).
int scale(const pto::KernelContext& ctx) {
    const pto::TensorView& in = ctx.tensors[0].view;
    for (std::uint64_t i = 0; i < in.element_count(); ++i)
        ctx.tensors[1].view.data<float>()[i] = ctx.scalar_as<float>(0) * in.data<float>()[i];
    return 0;
}

int fail(const pto::KernelContext&) {
    return 7;
}

/// fill_args: every element of the 1-D view `out` set to `value`, in 4 blocks.
pto::Args fill_args(const pto::TensorView& out, float value) {
    return pto::Args().output(out).scalar(0u).scalar(out.shape[0] / 4).scalar(value).block_num(4);
}

pto::Args scale_args(const pto::TensorView& in, const pto::TensorView& out, float a) {
    return pto::Args().input(in).output(out).scalar(a);
}

pto::TensorView vector_view(std::vector<float>& v) {
    return pto::TensorView::contiguous(v.data(), pto::DataType::F32, {static_cast<std::uint32_t>(v.size())});
}

bool all_equal(const std::vector<float>& v, float expected) {
    for (float x : v)
        if (x != expected) return false;
    return true;
}

/// has_edge: whether the last run's graph has producer -> consumer.
bool has_edge(const pto::GraphRecord& g, pto::TaskId producer, pto::TaskId consumer) {
    const std::int64_t c = g.index_of(consumer);
    if (c < 0) return false;
    for (pto::TaskId p : g.producers_of(g.tasks[static_cast<std::size_t>(c)]))
        if (p == producer) return true;
    return false;
}

}  // namespace

//   fill(x) ─► scale(x → y), three runs on one Orchestrator
TEST_CASE("api.md: a runtime is configured, kernels registered and runs report their totals", "[docs][api]") {
    std::atomic<int> fill_calls{0};
    // [snippet:api-runtime]
    pto::RuntimeConfig config = pto::RuntimeConfig::a2a3();  // 24 clusters x (1 AIC + 2 AIV), 3 schedulers
    config.executor = pto::Executor::Compute;                // run the registered CPU functions
    config.window_tasks = 1024;                              // power of two: submitted, not yet retired
    config.record_graph = true;                              // keep the graph (export, model)
    pto::Runtime rt(config);  // validates (InvalidConfig), allocates every pool, starts the schedulers
    rt.register_kernel(kFill, {"fill", 2.0, &fill, &fill_calls});  // name, device us, function, user
    rt.register_kernel(kScale, {"scale", 1.0, &scale});
    // [/snippet]
    std::vector<float> x(64), y(64);

    // [snippet:api-run]
    pto::Orchestrator orchestrator(rt);  // keeps the tensormap and scope stack between runs
    for (int step = 1; step <= 3; ++step) {
        const pto::RunReport report = orchestrator.run([&] {
            PTO2_SCOPE() {
                pto::submit_aiv(kFill, fill_args(vector_view(x), static_cast<float>(step)));
                pto::submit_aiv(kScale, scale_args(vector_view(x), vector_view(y), 2.0f));
            }
        });
        // Every task ended: report.completed + report.failed + report.cancelled == report.submitted.
        std::printf("step %d: %llu tasks, %llu subtasks, orchestration %lld ns\n", step,
                    static_cast<unsigned long long>(report.submitted),
                    static_cast<unsigned long long>(report.subtasks),
                    static_cast<long long>(report.orchestration_ns));
    }
    // [/snippet]
    CHECK(all_equal(y, 6.0f));
    CHECK(fill_calls.load() == 3 * 4);
    CHECK(rt.last_report().ok());
    CHECK(rt.last_report().submitted == 2);
    CHECK(rt.last_report().subtasks == 5);
    CHECK(rt.graph().tasks.size() == 2);
}

//   AUTO { a: fill(x) ─► MANUAL { b: y = 3x } ─► c: z = 2y }   (c ─ b named explicitly)
TEST_CASE("api.md: scopes nest MANUAL in AUTO, never AUTO in MANUAL, and MANUAL tasks are not discovered",
          "[docs][api]") {
    pto::RuntimeConfig config;
    config.executor = pto::Executor::Compute;
    config.record_graph = true;
    pto::Runtime rt(config);
    rt.register_kernel(kFill, {"fill", 2.0, &fill});
    rt.register_kernel(kScale, {"scale", 1.0, &scale});
    std::vector<float> x(64), y(64), z(64);
    pto::TaskId a_id, b_id, c_id;

    // [snippet:api-scopes]
    pto::run(rt, [&] {
        PTO2_SCOPE() {  // AUTO: edges from tensors, plus any set_dependencies
            const pto::TaskHandle a = pto::submit_aiv(kFill, fill_args(vector_view(x), 1.0f));
            PTO2_SCOPE(MANUAL) {  // MANUAL inside AUTO: allowed; explicit edges only
                const pto::TaskId after_a = a.task_id();
                const pto::TaskHandle b = pto::submit_aiv(
                    kScale, scale_args(vector_view(x), vector_view(y), 3.0f).set_dependencies(&after_a, 1));
                b_id = b.task_id();
                // PTO2_SCOPE() { ... } here would throw ScopeNesting: AUTO inside MANUAL.
            }
            // b ran in a MANUAL scope, so the tensormap never saw it write y: name it explicitly.
            c_id = pto::submit_aiv(
                       kScale, scale_args(vector_view(y), vector_view(z), 2.0f).set_dependencies(&b_id, 1))
                       .task_id();
            a_id = a.task_id();
        }  // the scope ends without waiting; its tasks may now retire once they finish
    });
    // [/snippet]
    CHECK(all_equal(z, 6.0f));
    const pto::GraphRecord& g = rt.graph();
    CHECK(has_edge(g, a_id, b_id));
    CHECK(has_edge(g, b_id, c_id));

    // Without the explicit dependency, c would not wait for b: b's write of y never entered the tensormap.
    // (Recorded on the instant executor, where no kernel runs, so the unordered pair does not race.)
    pto::RuntimeConfig instant;
    instant.record_graph = true;
    pto::Runtime recorder(instant);
    pto::TaskId b2, c2;
    pto::run(recorder, [&] {
        PTO2_SCOPE() {
            PTO2_SCOPE(MANUAL) {
                b2 = pto::submit_aiv(kScale, scale_args(vector_view(x), vector_view(y), 3.0f)).task_id();
            }
            c2 = pto::submit_aiv(kScale, scale_args(vector_view(y), vector_view(z), 2.0f)).task_id();
        }
    });
    CHECK_FALSE(has_edge(recorder.graph(), b2, c2));

    try {
        pto::run(rt, [&] {
            PTO2_SCOPE(MANUAL) {
                PTO2_SCOPE() {}
            }
        });
        FAIL("AUTO inside MANUAL must throw");
    } catch (const pto::Error& e) {
        CHECK(e.code() == pto::ErrorCode::ScopeNesting);
    }
}

//   h: fill(tmp, create-info) ─┐                 p0..p3: fill(outs[i]) ─► join ─► scale(outs[3-i] → sums[i])
//   mix: fill(y) ───────────────┴─► scale(tmp → y)
TEST_CASE("api.md: submits take create-infos, MIX launches and dependency-only joins", "[docs][api]") {
    pto::RuntimeConfig config;
    config.executor = pto::Executor::Compute;
    config.record_graph = true;
    pto::Runtime rt(config);
    rt.register_kernel(kFill, {"fill", 2.0, &fill});
    rt.register_kernel(kScale, {"scale", 1.0, &scale});
    std::vector<float> y(64);
    std::vector<std::vector<float>> outs(4, std::vector<float>(16)), sums(4, std::vector<float>(16));
    std::array<pto::TaskId, 4> producers;
    pto::TaskId join_id, tmp_creator, consumer_id;

    pto::run(rt, [&] {
        // [snippet:api-submit]
        PTO2_SCOPE() {
            // An output the runtime allocates from its heap ring: the handle returns the new view.
            const pto::TaskHandle h =
                pto::submit_aiv(kFill, pto::Args()
                                           .output(pto::TensorCreateInfo(pto::DataType::F32, {64}))
                                           .scalar(0u)
                                           .scalar(16u)
                                           .scalar(5.0f)
                                           .block_num(4));
            const pto::TensorView tmp = h.output(0);  // lives until h's task retires
            // A MIX launch: each block runs kFill on an AIC core and on the two AIV cores of one cluster.
            pto::submit_mix(kFill, kFill, kFill, fill_args(vector_view(y), 0.0f));
            // Reads tmp: depends on h through the view's creator, and on the MIX task through y (WAW).
            consumer_id = pto::submit_aic(kScale, scale_args(tmp, vector_view(y), 2.0f)).task_id();
            tmp_creator = h.task_id();
        }
        // [/snippet]

        // [snippet:api-dependency-only]
        PTO2_SCOPE(MANUAL) {
            for (std::uint32_t i = 0; i < 4; ++i)
                producers[i] = pto::submit_aiv(kFill, fill_args(vector_view(outs[i]), 1.0f)).task_id();
            // One join task: 4 + 4 edges instead of 4 x 4.
            const pto::TaskId join =
                pto::submit_dependency_only(pto::Args().set_dependencies(producers)).task_id();
            for (std::uint32_t i = 0; i < 4; ++i)
                pto::submit_aiv(kScale, scale_args(vector_view(outs[3 - i]), vector_view(sums[i]), 2.0f)
                                            .set_dependencies(&join, 1));
            join_id = join;
        }
        // [/snippet]
    });
    CHECK(all_equal(y, 10.0f));
    CHECK(has_edge(rt.graph(), tmp_creator, consumer_id));
    for (pto::TaskId p : producers)
        CHECK(has_edge(rt.graph(), p, join_id));
    for (const std::vector<float>& sum : sums)
        CHECK(all_equal(sum, 2.0f));
    CHECK(rt.last_report().framework_tasks == 1);
    CHECK(rt.last_report().ok());
}

//   alloc(tmp) ─► w: fill(tmp) ─► r: y = tmp / 2,   alloc ─► r
TEST_CASE("api.md: in a manual scope the last reader of an alloc task's buffer depends on the alloc task",
          "[docs][api]") {
    pto::RuntimeConfig config;
    config.executor = pto::Executor::Compute;
    pto::Runtime rt(config);
    rt.register_kernel(kFill, {"fill", 2.0, &fill});
    rt.register_kernel(kScale, {"scale", 1.0, &scale});
    std::vector<float> y(64);

    // [snippet:api-alloc]
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            const pto::TaskHandle scratch =
                pto::alloc_tensors({pto::TensorCreateInfo(pto::DataType::F32, {64})});
            const pto::TensorView tmp = scratch.output(0);
            const pto::TaskId alloc = scratch.task_id();
            const pto::TaskId w =
                pto::submit_aiv(kFill, fill_args(tmp, 4.0f).set_dependencies(&alloc, 1)).task_id();
            // The buffer is freed when the alloc task retires: once the scope ended and every task that
            // depends on it finished. So the last reader depends on the alloc task too, not only on w.
            const pto::TaskId last_reader_deps[] = {w, alloc};
            pto::submit_aiv(kScale, scale_args(tmp, vector_view(y), 0.5f).set_dependencies(last_reader_deps));
        }
    });
    // [/snippet]
    CHECK(all_equal(y, 2.0f));
    CHECK(rt.last_report().framework_tasks == 1);
}

//   fill(x) --wait--> scale(x -> y) x (as many as x[0] says)
TEST_CASE("api.md: the orchestration function waits for a task and reads its output", "[docs][api]") {
    pto::RuntimeConfig config;
    config.executor = pto::Executor::Compute;
    config.check_dependencies = pto::DependencyCheck::Error;  // the follow-ups must not race on y
    pto::Runtime rt(config);
    rt.register_kernel(kFill, {"fill", 2.0, &fill});
    rt.register_kernel(kScale, {"scale", 1.0, &scale});
    std::vector<float> x(64), y(64);
    int launched = 0;

    // [snippet:api-wait]
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            const pto::TaskHandle decide = pto::submit_aiv(kFill, fill_args(vector_view(x), 4.0f));
            pto::wait(decide);  // decide completed: its output is final and visible here
            const auto n = static_cast<std::uint32_t>(x[0]);  // a data-dependent decision: how many parts
            const auto part = static_cast<std::uint32_t>(x.size()) / n;
            const pto::TaskId after = decide.task_id();
            for (std::uint32_t i = 0; i < n; ++i, ++launched) {  // each follow-up writes its own part of y
                const std::uint32_t first = i * part;
                pto::submit_aiv(kScale, scale_args(vector_view(x).slice(0, first, part),
                                                   vector_view(y).slice(0, first, part), 2.0f)
                                            .set_dependencies(&after, 1));  // still names its producer
            }
        }
    });
    // [/snippet]
    CHECK(launched == 4);
    CHECK(rt.last_report().kernel_tasks == 5);
    CHECK(rt.last_report().orchestrator.waits == 1);
    CHECK(all_equal(y, 8.0f));
}

TEST_CASE("api.md: views slice, transpose and reshape without copying", "[docs][api]") {
    // [snippet:api-views]
    std::vector<float> buffer(4 * 6);
    const pto::TensorView m = pto::TensorView::contiguous(buffer.data(), pto::DataType::F32, {4, 6});
    const pto::TensorView rows = m.slice(0, 1, 2);  // rows 1-2: shape {2, 6}, offset 6, strides {6, 1}
    const pto::TensorView cols = m.slice(1, 4, 2);  // columns 4-5: shape {4, 2}, offset 4, strides {6, 1}
    const pto::TensorView t = m.transpose(0, 1);    // shape {6, 4}, strides {1, 6}
    const pto::TensorView flat = m.reshape({24});   // contiguous views only (InvalidTensor otherwise)
    const pto::TensorView weights = m.untracked();  // never looked up or recorded by the tensormap
    const std::uint32_t at[] = {1, 2};
    // rows.data<float>() == buffer.data() + 6; t.element_offset(at) == 2 * 6 + 1
    // [/snippet]
    CHECK(rows.shape[0] == 2);
    CHECK(rows.offset == 6);
    CHECK(rows.data<float>() == buffer.data() + 6);
    CHECK(cols.offset == 4);
    CHECK(cols.strides[0] == 6);
    CHECK_FALSE(cols.is_contiguous());
    CHECK(t.shape[0] == 6);
    CHECK(t.strides[0] == 1);
    CHECK(t.element_offset(at) == 13);
    CHECK(flat.ndim == 1);
    CHECK(flat.element_count() == 24);
    CHECK_FALSE(weights.is_tracked);
    CHECK(pto::views_overlap(rows, cols));
    CHECK_FALSE(pto::views_overlap(m.slice(0, 0, 1), m.slice(0, 1, 1)));
    CHECK(pto::view_covers(m, cols));
    CHECK_THROWS_AS(cols.reshape({8}), pto::Error);
}

//   fail ─► scale (cancelled)
TEST_CASE("api.md: a kernel failure is reported, its dependants cancelled, and the runtime stays usable",
          "[docs][api]") {
    pto::RuntimeConfig config;
    config.executor = pto::Executor::Compute;
    pto::Runtime rt(config);
    rt.register_kernel(kFill, {"fill", 2.0, &fill});
    rt.register_kernel(kScale, {"scale", 1.0, &scale});
    rt.register_kernel(kFail, {"fail", 1.0, &fail});
    std::vector<float> x(64), y(64);

    // [snippet:api-run-options]
    const pto::RunReport report = pto::run(
        rt,
        [&] {
            PTO2_SCOPE(MANUAL) {
                const pto::TaskId bad = pto::submit_aiv(kFail, pto::Args()).task_id();
                pto::submit_aiv(kScale,
                                scale_args(vector_view(x), vector_view(y), 1.0f).set_dependencies(&bad, 1));
            }
        },
        pto::RunOptions{.throw_on_kernel_failure = false});  // default: throw Error{KernelFailed}
    // report.failed == 1, report.cancelled == 1; report.failures[0] names the task, kernel and message.
    // [/snippet]
    CHECK(report.failed == 1);
    CHECK(report.cancelled == 1);
    REQUIRE(report.failures.size() == 1);
    CHECK(report.failures[0].kernel == "fail");
    CHECK(report.failures[0].message == "kernel returned 7");

    // [snippet:api-errors]
    try {
        pto::run(rt, [&] {
            PTO2_SCOPE(MANUAL) {
                pto::submit_aiv(kFill, fill_args(vector_view(x), 1.0f).block_num(0));
            }
        });
    } catch (const pto::Error& e) {
        // e.code() == pto::ErrorCode::InvalidBlockNum
        // e.what() == "InvalidBlockNum: task <id> (AIV kernel fill): block_num = 0; it must be in 1..65535"
        std::printf("%s\n", e.what());
    }
    // The rejected submit left nothing behind: the next run starts normally.
    pto::run(rt, [&] { pto::submit_aiv(kFill, fill_args(vector_view(x), 1.0f)); });
    // [/snippet]
    CHECK(all_equal(x, 1.0f));
    CHECK_THROWS_WITH(pto::run(rt,
                               [&] {
                                   PTO2_SCOPE(MANUAL) {
                                       pto::submit_aiv(kFail, pto::Args());
                                   }
                               }),
                      Catch::Contains("KernelFailed") && Catch::Contains("fail"));
    try {
        pto::run(rt, [&] { pto::submit_aiv(kFill, fill_args(vector_view(x), 1.0f).block_num(0)); });
        FAIL("block_num 0 must throw");
    } catch (const pto::Error& e) {
        CHECK(e.code() == pto::ErrorCode::InvalidBlockNum);
        CHECK_THAT(e.what(), Catch::Contains("block_num = 0") && Catch::Contains("kernel fill"));
    }
}

//   fill(x) ×4 blocks ─► scale(x → y) on AIC
TEST_CASE("api.md: the virtual-time model predicts a recorded graph's device timeline", "[docs][api]") {
    pto::RuntimeConfig config;
    config.record_graph = true;  // the instant executor needs no kernel functions
    pto::Runtime rt(config);
    rt.register_kernel(kFill, {"fill", 2.0, nullptr});
    rt.register_kernel(kScale, {"scale", 1.0, nullptr});
    std::vector<float> x(64), y(64);
    pto::run(rt, [&] {
        PTO2_SCOPE() {
            pto::submit_aiv(kFill, fill_args(vector_view(x), 1.0f));
            pto::submit_aic(kScale, scale_args(vector_view(x), vector_view(y), 2.0f));
        }
    });
    // [snippet:api-simulate]
    pto::SimConfig sim;
    sim.machine = rt.config();                                        // cores, scheduler threads, window
    sim.cost = pto::sim_profile("simpler-a2a3")->cost;                // a fitted device profile
    const pto::SimReport predicted = pto::simulate(rt.graph(), sim);  // deterministic for sim.seed
    // predicted.makespan_us >= predicted.lower_bound_us; predicted.overhead.all is a share of the makespan
    // [/snippet]
    CHECK(predicted.makespan_us >= predicted.lower_bound_us);
    CHECK(predicted.lower_bound_us >= 3.0);  // fill (2 us) then scale (1 us) on the critical path
    CHECK(predicted.kernel_tasks == 2);
    CHECK(predicted.subtasks == 5);
}
