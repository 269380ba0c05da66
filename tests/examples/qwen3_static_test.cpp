// docs/design/static-graph.md and docs/design/reference-graphs.md, conformance: the static-template schemes C
// and D of the Qwen3 decode layer hand every launch exactly the tensor views (with directions) and scalars
// scheme A passes, at every tier: a recording kernel stands in for all 19 FuncIds and the records are
// compared launch by launch.
//
//   G1 (tile):  rmsnorm -> q/k/v_proj -> qk_norm        templates built once per (problem, tier);
//   G2 (row):   rope -> qk -> softmax -> sv -> online   instances bind the tile's / row's views
//   G3 (tile):  out_proj -> post -> gate/up -> silu -> down -> down_res
#include <catch2/catch.hpp>

#include <map>
#include <mutex>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "pto/examples/qwen3.h"
#include "pto/scope/orchestration.h"

using namespace pto::examples;
using namespace pto::examples::qwen3;

namespace {

/// LaunchRecord: what one launch's kernel was handed (block 0, lane 0).
struct LaunchRecord {
    std::vector<pto::TensorArg> tensors;
    std::vector<std::uint64_t> scalars;
    std::uint32_t block_num = 0;
};

/// Recorder: the records of one run by task position (ids relative to the run's first id).
struct Recorder {
    std::mutex mutex;
    std::map<std::uint64_t, LaunchRecord> by_task;
};

int record_kernel(const pto::KernelContext& c) {
    if (c.block_idx != 0 || c.lane != 0) return 0;
    auto* r = static_cast<Recorder*>(c.user);
    LaunchRecord rec;
    rec.tensors.assign(c.tensors.begin(), c.tensors.end());
    rec.scalars.assign(c.scalars.begin(), c.scalars.end());
    rec.block_num = c.block_num;
    const std::lock_guard<std::mutex> lock(r->mutex);
    r->by_task[c.task.value] = std::move(rec);
    return 0;
}

/// same_view: every field a kernel or the tensormap reads (shape and strides up to the rank).
bool same_view(const pto::TensorView& a, const pto::TensorView& b) {
    if (a.base != b.base || a.offset != b.offset || a.ndim != b.ndim || a.dtype != b.dtype ||
        a.is_tracked != b.is_tracked || a.creator != b.creator)
        return false;
    for (std::uint8_t d = 0; d < a.ndim; ++d)
        if (a.shape[d] != b.shape[d] || a.strides[d] != b.strides[d]) return false;
    return true;
}

/// run_recorded: one run of `scheme`, its launch records in submission order.
std::vector<LaunchRecord> run_recorded(pto::Runtime& rt, Recorder& recorder, DecodeGraph& graph,
                                       Scheme scheme) {
    recorder.by_task.clear();
    const pto::RunReport report = pto::run(rt, [&] { graph.submit(scheme); });
    REQUIRE(report.ok());
    const std::uint64_t first = pto::detail::TaskPort(rt).run_first_task_id().value;
    std::vector<LaunchRecord> records(report.submitted);
    for (auto& [id, rec] : recorder.by_task)
        records.at(id - first) = std::move(rec);
    return records;
}

}  // namespace

TEST_CASE("schemes C and D pass every launch scheme A's views, directions, scalars and block_num",
          "[examples][qwen3][static]") {
    Problem problem = Problem::with_memory(Shapes::reduced(), 3);
    pto::RuntimeConfig cfg;
    cfg.executor = pto::Executor::Compute;  // the only executor that calls kernel functions
    pto::Runtime rt(cfg);
    Recorder recorder;
    for (std::uint16_t f = 0; f < kFuncIdCount; ++f)
        rt.register_kernel(pto::FuncId{f}, pto::KernelInfo{"record", 1.0, &record_kernel, &recorder});

    for (SpmdTier tier : kAllTiers) {
        INFO("tier " << to_string(tier));
        DecodeGraph graph(problem, tier);
        const std::vector<LaunchRecord> a = run_recorded(rt, recorder, graph, Scheme::Manual);
        REQUIRE(a.size() == graph.counts().total());
        for (Scheme scheme : {Scheme::StaticManual, Scheme::StaticTensormap}) {
            INFO("scheme " << letter(scheme));
            const std::vector<LaunchRecord> got = run_recorded(rt, recorder, graph, scheme);
            REQUIRE(got.size() == a.size());
            std::size_t mismatches = 0;
            for (std::size_t i = 0; i < a.size(); ++i) {
                INFO("launch " << i);
                REQUIRE(got[i].tensors.size() == a[i].tensors.size());
                REQUIRE(got[i].scalars == a[i].scalars);
                REQUIRE(got[i].block_num == a[i].block_num);
                for (std::size_t k = 0; k < a[i].tensors.size(); ++k)
                    if (!same_view(got[i].tensors[k].view, a[i].tensors[k].view) ||
                        got[i].tensors[k].direction != a[i].tensors[k].direction)
                        ++mismatches;
            }
            CHECK(mismatches == 0);
        }
    }
}

TEST_CASE("a DecodeGraph's templates serve any number of runs and every tier keeps its own",
          "[examples][qwen3][static]") {
    // Two graphs of different tiers over one problem, interleaved: each instance binds its own
    // tile's or row's views, so nothing leaks from one run, scheme or tier into the next.
    const Problem problem = Problem::with_fake_addresses();
    pto::RuntimeConfig cfg;
    cfg.record_graph = true;
    cfg.orchestration = pto::OrchestrationMode::Serial;
    pto::Runtime rt(cfg);
    register_kernels(rt);
    pto::Orchestrator orchestrator(rt);
    DecodeGraph tier0(problem, SpmdTier::NonSpmd), tier4(problem, SpmdTier::AllSpmd);
    orchestrator.run([&] { tier0.submit(Scheme::Manual); });
    const auto edges0 = kernel_edges(rt.graph());
    orchestrator.run([&] { tier4.submit(Scheme::Manual); });
    const auto edges4 = kernel_edges(rt.graph());
    for (int round = 0; round < 3; ++round) {
        INFO("round " << round);
        for (Scheme scheme : {Scheme::StaticManual, Scheme::StaticTensormap}) {
            INFO("scheme " << letter(scheme));
            CHECK(orchestrator.run([&] { tier0.submit(scheme); }).kernel_tasks == 3096);
            CHECK(kernel_edges(rt.graph()) == edges0);
            CHECK(orchestrator.run([&] { tier4.submit(scheme); }).kernel_tasks == 522);
            CHECK(kernel_edges(rt.graph()) == edges4);
        }
    }
}
