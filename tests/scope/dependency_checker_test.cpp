// Conformance: the dependency checker (RuntimeConfig::check_dependencies, PTO_CHECK_DEPS) reports every
// RAW, WAW and WAR hazard that the declared dependencies leave unordered in MANUAL scopes and template
// instances (internal edges, manual and tensormap boundaries), accepts hazards ordered through a chain
// of edges, reports declared edges between kernels that share no data as information, and throws
// MissingDependency at the offending submit in Error mode.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "pto/scope/orchestration.h"
#include "pto/static_graph/instance.h"
#include "pto/static_graph/template.h"
#include "support/expect_error.h"

using namespace pto;

namespace {

constexpr FuncId kProduce{0}, kConsume{1};

RuntimeConfig checked(DependencyCheck mode) {
    RuntimeConfig c;
    c.check_dependencies = mode;
    c.orchestration = OrchestrationMode::Serial;
    return c;
}

void register_kernels(Runtime& rt) {
    rt.register_kernel(kProduce, {"produce", 1.0, nullptr});
    rt.register_kernel(kConsume, {"consume", 1.0, nullptr});
}

/// Buffers: two small vectors with whole-buffer views.
struct Buffers {
    std::vector<float> x = std::vector<float>(64), y = std::vector<float>(64);
    TensorView vx = TensorView::contiguous(x.data(), DataType::F32, {64});
    TensorView vy = TensorView::contiguous(y.data(), DataType::F32, {64});
};

const DependencyFinding& only_missing(const RunReport& r) {
    REQUIRE(r.missing_dependencies == 1);
    for (const DependencyFinding& f : r.dependency_findings)
        if (f.kind == DependencyFinding::Kind::MissingEdge) return f;
    FAIL("no missing-edge finding listed");
    return r.dependency_findings.front();
}

/// ScopedEnv: sets an environment variable for one test and restores it.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old, had_ = true;
        ::setenv(name, value, 1);
    }
    ~ScopedEnv() {
        if (had_)
            ::setenv(name_, old_.c_str(), 1);
        else
            ::unsetenv(name_);
    }

  private:
    const char* name_;
    std::string old_;
    bool had_ = false;
};

}  // namespace

//   produce: write x      consume: read x, no declared edge      -> RAW reported
TEST_CASE("a MANUAL scope that forgets a read-after-write edge is reported with both tasks and views",
          "[scope][checker]") {
    Runtime rt(checked(DependencyCheck::Report));
    register_kernels(rt);
    Buffers b;
    TaskId w, r;
    const RunReport report = pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            w = submit_aiv(kProduce, Args().output(b.vx)).task_id();
            r = submit_aiv(kConsume, Args().input(b.vx).output(b.vy)).task_id();
        }
    });
    const DependencyFinding& f = only_missing(report);
    CHECK(f.hazard == HazardKind::ReadAfterWrite);
    CHECK(f.producer == w);
    CHECK(f.consumer == r);
    CHECK_THAT(f.message, Catch::Contains("RAW") && Catch::Contains("kernel produce") &&
                              Catch::Contains("kernel consume") && Catch::Contains("MANUAL scope") &&
                              Catch::Contains("f32[64]") &&
                              Catch::Contains("task " + std::to_string(w.value)));
    CHECK_FALSE(report.ok());
    CHECK(report.completed == report.submitted);  // reporting does not change the run
}

TEST_CASE("write-after-write and write-after-read hazards are reported with their kind", "[scope][checker]") {
    Runtime rt(checked(DependencyCheck::Report));
    register_kernels(rt);
    Buffers b;
    SECTION("WAW") {
        const RunReport report = pto::run(rt, [&] {
            PTO2_SCOPE(MANUAL) {
                submit_aiv(kProduce, Args().output(b.vx));
                submit_aiv(kProduce, Args().output(b.vx.slice(0, 32, 32)));
            }
        });
        CHECK(only_missing(report).hazard == HazardKind::WriteAfterWrite);
    }
    SECTION("WAR") {
        const RunReport report = pto::run(rt, [&] {
            PTO2_SCOPE(MANUAL) {
                submit_aiv(kConsume, Args().input(b.vx));
                submit_aiv(kProduce, Args().output(b.vx));
            }
        });
        CHECK(only_missing(report).hazard == HazardKind::WriteAfterRead);
    }
}

//   a: write x -> b: read x, write y -> c: read x and y, depends on b only: a -> c is implied by a -> b -> c.
TEST_CASE("a hazard ordered through a chain of declared edges is not reported", "[scope][checker]") {
    Runtime rt(checked(DependencyCheck::Error));
    register_kernels(rt);
    Buffers b;
    const RunReport report = pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            const TaskId a = submit_aiv(kProduce, Args().output(b.vx)).task_id();
            const TaskId m =
                submit_aiv(kConsume, Args().input(b.vx).output(b.vy).set_dependencies(&a, 1)).task_id();
            submit_aiv(kConsume,
                       Args().input(b.vx).input(b.vy).output(b.vx.slice(0, 0, 0)).set_dependencies(&m, 1));
        }
    });
    CHECK(report.missing_dependencies == 0);
    CHECK(report.ok());
}

TEST_CASE("Error mode rejects the offending submit, which changes nothing, and the runtime stays usable",
          "[scope][checker]") {
    Runtime rt(checked(DependencyCheck::Error));
    register_kernels(rt);
    Buffers b;
    std::uint64_t submitted_before_throw = 0;
    test::expect_error(
        [&] {
            pto::run(rt, [&] {
                PTO2_SCOPE(MANUAL) {
                    submit_aiv(kProduce, Args().output(b.vx));
                    submitted_before_throw = pto::detail::TaskPort(rt).next_task_id().value -
                                             pto::detail::TaskPort(rt).run_first_task_id().value;
                    submit_aiv(kConsume, Args().input(b.vx));
                }
            });
        },
        ErrorCode::MissingDependency, {"missing dependency (RAW)", "kernel consume", "kernel produce"});
    CHECK(submitted_before_throw == 1);
    CHECK(rt.last_report().submitted == 1);  // the rejected submit left no task behind
    const RunReport good = pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            const TaskId w = submit_aiv(kProduce, Args().output(b.vx)).task_id();
            submit_aiv(kConsume, Args().input(b.vx).set_dependencies(&w, 1));
        }
    });
    CHECK(good.ok());
    CHECK(good.missing_dependencies == 0);
}

TEST_CASE("a declared edge between kernels that share no data is reported as information only",
          "[scope][checker]") {
    Runtime rt(checked(DependencyCheck::Error));
    register_kernels(rt);
    Buffers b;
    TaskId a, c;
    const RunReport report = pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            a = submit_aiv(kProduce, Args().output(b.vx)).task_id();
            c = submit_aiv(kProduce, Args().output(b.vy).set_dependencies(&a, 1)).task_id();
        }
    });
    CHECK(report.missing_dependencies == 0);
    REQUIRE(report.unexplained_edges == 1);
    REQUIRE(report.dependency_findings.size() == 1);
    CHECK(report.dependency_findings[0].kind == DependencyFinding::Kind::UnexplainedEdge);
    CHECK(report.dependency_findings[0].producer == a);
    CHECK(report.dependency_findings[0].consumer == c);
    CHECK(report.ok());
}

TEST_CASE("AUTO scopes check clean, and a MANUAL write read later in an AUTO scope is reported",
          "[scope][checker]") {
    Runtime rt(checked(DependencyCheck::Report));
    register_kernels(rt);
    Buffers b;
    const RunReport clean = pto::run(rt, [&] {
        PTO2_SCOPE() {
            submit_aiv(kProduce, Args().output(b.vx));
            submit_aiv(kConsume, Args().input(b.vx).output(b.vy));
            submit_aiv(kProduce, Args().output(b.vx));
        }
    });
    CHECK(clean.missing_dependencies == 0);
    // MANUAL tasks never enter the tensormap, so the AUTO reader cannot discover the writer.
    const RunReport mixed = pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            submit_aiv(kProduce, Args().output(b.vx));
        }
        PTO2_SCOPE() {
            submit_aiv(kConsume, Args().input(b.vx));
        }
    });
    CHECK(only_missing(mixed).hazard == HazardKind::ReadAfterWrite);
}

TEST_CASE("a producer older than the task window is not reported: it retired before the reader existed",
          "[scope][checker]") {
    RuntimeConfig c = checked(DependencyCheck::Report);
    c.orchestration = OrchestrationMode::Concurrent;
    c.window_tasks = 8;
    Runtime rt(c);
    register_kernels(rt);
    Buffers b;
    std::vector<float> scratch(64);
    const TensorView vs = TensorView::contiguous(scratch.data(), DataType::F32, {64});
    const RunReport report = pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            submit_aiv(kProduce, Args().output(b.vx));
        }
        for (int i = 0; i < 20; ++i)
            PTO2_SCOPE(MANUAL) {
                submit_aiv(kProduce, Args().output(vs.slice(0, static_cast<std::uint32_t>(i), 1)));
            }
        PTO2_SCOPE(MANUAL) {
            submit_aiv(kConsume, Args().input(b.vx));
        }
    });
    CHECK(report.missing_dependencies == 0);
    CHECK(report.ok());
}

namespace {

/// A two-node template over one slot: node 0 writes it, node 1 reads it, optionally without the edge.
Template two_node_template(BoundaryMode mode, bool with_edge, bool declare_output) {
    TemplateBuilder builder("pair", mode);
    const TensorSlot t = builder.tensor_slot("t");
    const TensorSlot out = builder.tensor_slot("out");
    const std::uint32_t w = builder.add_aiv(kProduce, NodeArgs().output(t).label("write"));
    const std::uint32_t r = builder.add_aiv(kConsume, NodeArgs().input(t).output(out).label("read"));
    if (with_edge) builder.edge(w, r);
    builder.boundary_input(w);
    if (mode == BoundaryMode::Tensormap) {
        builder.boundary_input(w, 0);
        if (declare_output) builder.boundary_output(r, 1);
    }
    return builder.finalize();
}

}  // namespace

TEST_CASE("a template body that forgets an internal edge is reported naming the template node",
          "[scope][checker][static_graph]") {
    Runtime rt(checked(DependencyCheck::Report));
    register_kernels(rt);
    Buffers b;
    const Template tpl = two_node_template(BoundaryMode::Manual, false, false);
    Bindings bind(tpl);
    const RunReport report = pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            instantiate(bind.tensor(TensorSlot{0}, b.vx).tensor(TensorSlot{1}, b.vy));
        }
    });
    const DependencyFinding& f = only_missing(report);
    CHECK(f.hazard == HazardKind::ReadAfterWrite);
    CHECK(f.consumer == f.producer.plus(1));
    CHECK_THAT(f.message, Catch::Contains("template 'pair' node 1") && Catch::Contains("read") &&
                              Catch::Contains("template 'pair' node 0"));
}

TEST_CASE(
    "manual boundaries that omit a producer of an earlier instance are reported, in Error mode "
    "by instantiate",
    "[scope][checker][static_graph]") {
    Runtime rt(checked(DependencyCheck::Error));
    register_kernels(rt);
    Buffers b;
    const Template tpl = two_node_template(BoundaryMode::Manual, true, false);
    Bindings bind(tpl);
    // Instance 2 overwrites what instance 1 wrote and read: WAW and WAR with instance 1, not declared.
    test::expect_error(
        [&] {
            pto::run(rt, [&] {
                PTO2_SCOPE(MANUAL) {
                    instantiate(bind.tensor(TensorSlot{0}, b.vx).tensor(TensorSlot{1}, b.vy));
                    instantiate(bind.tensor(TensorSlot{0}, b.vx).tensor(TensorSlot{1}, b.vy));
                }
            });
        },
        ErrorCode::MissingDependency, {"template 'pair' node 0", "of the instance at task"});
    // Declared through the boundary: clean.
    const RunReport good = pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            const Instance first = instantiate(bind.tensor(TensorSlot{0}, b.vx).tensor(TensorSlot{1}, b.vy));
            bind.depend(0, first.node(1));
            instantiate(bind.tensor(TensorSlot{0}, b.vx).tensor(TensorSlot{1}, b.vy));
        }
    });
    CHECK(good.missing_dependencies == 0);
}

TEST_CASE("a tensormap template whose output is not declared a boundary is reported at the next reader",
          "[scope][checker][static_graph]") {
    Runtime rt(checked(DependencyCheck::Report));
    register_kernels(rt);
    Buffers b;
    for (const bool declared : {false, true}) {
        INFO("boundary output declared: " << declared);
        const Template tpl = two_node_template(BoundaryMode::Tensormap, true, declared);
        Bindings bind(tpl);
        const RunReport report = pto::run(rt, [&] {
            PTO2_SCOPE() {
                instantiate(bind.tensor(TensorSlot{0}, b.vx).tensor(TensorSlot{1}, b.vy));
                submit_aiv(kConsume, Args().input(b.vy));  // reads node 1's output
            }
        });
        CHECK(report.missing_dependencies == (declared ? 0u : 1u));
    }
}

TEST_CASE("PTO_CHECK_DEPS switches the checker on for an unmodified program and rejects unknown values",
          "[scope][checker]") {
    Buffers b;
    const auto forgetful = [&](Runtime& rt) {
        return pto::run(rt, [&] {
            PTO2_SCOPE(MANUAL) {
                submit_aiv(kProduce, Args().output(b.vx));
                submit_aiv(kConsume, Args().input(b.vx));
            }
        });
    };
    Runtime rt;  // check_dependencies stays Off
    register_kernels(rt);
    CHECK(forgetful(rt).missing_dependencies == 0);
    {
        ScopedEnv env("PTO_CHECK_DEPS", "1");
        CHECK(forgetful(rt).missing_dependencies == 1);
    }
    {
        ScopedEnv env("PTO_CHECK_DEPS", "error");
        test::expect_error([&] { forgetful(rt); }, ErrorCode::MissingDependency, {"RAW"});
    }
    {
        ScopedEnv env("PTO_CHECK_DEPS", "maybe");
        test::expect_error([&] { forgetful(rt); }, ErrorCode::InvalidConfig, {"PTO_CHECK_DEPS", "maybe"});
    }
    CHECK(forgetful(rt).missing_dependencies == 0);
}

TEST_CASE("check_dependencies and compute_start_jitter_us are validated naming the knob",
          "[scope][checker]") {
    RuntimeConfig c;
    c.check_dependencies = static_cast<DependencyCheck>(7);
    test::expect_error([&] { Runtime rt(c); }, ErrorCode::InvalidConfig, {"check_dependencies"});
    RuntimeConfig j;
    j.compute_start_jitter_us = -1.0;
    test::expect_error([&] { Runtime rt(j); }, ErrorCode::InvalidConfig, {"compute_start_jitter_us"});
}
