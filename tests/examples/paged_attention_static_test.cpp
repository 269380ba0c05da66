// docs/design/static-graph.md and docs/design/reference-graphs.md, conformance: the static-template schemes C
// and D of paged attention hand every kernel launch exactly the views (with directions) and scalars of
// schemes A and B: a recording kernel stands in for the four kernels and the records are compared launch by
// launch (scratch views by their alloc task's position, since the heap ring places each run's scratch
// elsewhere).
//
//   alloc (dynamic) then per group one instance:  QK --> SF --> PV --> UP   (UP(g) <- UP(g-1))
#include <catch2/catch.hpp>

#include <map>
#include <mutex>
#include <vector>

#include "pto/runtime/detail/task_port.h"
#include "pto/examples/paged_attention.h"

using namespace pto;
using namespace pto::examples;
using namespace pto::examples::paged_attention;

namespace {

struct LaunchRecord {
    std::vector<TensorArg> tensors;
    std::vector<std::uint64_t> scalars;
    std::uint32_t block_num = 0;
};

struct Recorder {
    std::mutex mutex;
    std::map<std::uint64_t, LaunchRecord> by_task;  // by task id
};

int record_kernel(const KernelContext& c) {
    if (c.block_idx != 0) return 0;
    auto* r = static_cast<Recorder*>(c.user);
    LaunchRecord rec{{c.tensors.begin(), c.tensors.end()}, {c.scalars.begin(), c.scalars.end()}, c.block_num};
    const std::lock_guard<std::mutex> lock(r->mutex);
    r->by_task[c.task.value] = std::move(rec);
    return 0;
}

/// Run: one scheme's launch records by submission position, and the run's first id (to place creators).
struct Run {
    std::map<std::uint64_t, LaunchRecord> by_position;
    std::uint64_t first = 0;
};

Run run_recorded(Runtime& rt, Recorder& recorder, const Problem& problem, Scheme scheme) {
    recorder.by_task.clear();
    const RunReport report = pto::run(rt, [&] { build(problem, scheme); });
    REQUIRE(report.ok());
    Run r;
    r.first = pto::detail::TaskPort(rt).run_first_task_id().value;
    for (auto& [id, rec] : recorder.by_task)
        r.by_position[id - r.first] = std::move(rec);
    return r;
}

/// same_view: equal geometry; runtime-allocated views are equal when their creators sit at the same
/// position of their runs (their buffers differ between runs), others when their buffers are equal.
bool same_view(const TensorView& a, std::uint64_t first_a, const TensorView& b, std::uint64_t first_b) {
    if (a.offset != b.offset || a.ndim != b.ndim || a.dtype != b.dtype || a.is_tracked != b.is_tracked ||
        a.creator.is_valid() != b.creator.is_valid())
        return false;
    if (a.creator.is_valid() ? a.creator.value - first_a != b.creator.value - first_b : a.base != b.base)
        return false;
    for (std::uint8_t d = 0; d < a.ndim; ++d)
        if (a.shape[d] != b.shape[d] || a.strides[d] != b.strides[d]) return false;
    return true;
}

}  // namespace

TEST_CASE("schemes C and D pass every kernel the views, directions and scalars of schemes A and B",
          "[examples][paged_attention][static]") {
    const Problem problem(compute_case(), Memory::Real, 5);
    RuntimeConfig cfg;
    cfg.executor = Executor::Compute;  // the only executor that calls kernel functions
    Runtime rt(cfg);
    Recorder recorder;
    for (const KernelSpec& k : kernel_table())
        rt.register_kernel(k.id, KernelInfo{std::string(k.name), k.duration_us, &record_kernel, &recorder});

    const Run a = run_recorded(rt, recorder, problem, Scheme::Manual);
    REQUIRE(a.by_position.size() == problem.shape().kernel_task_count());
    for (Scheme scheme : {Scheme::Tensormap, Scheme::StaticManual, Scheme::StaticTensormap}) {
        INFO("scheme " << letter(scheme));
        const Run got = run_recorded(rt, recorder, problem, scheme);
        REQUIRE(got.by_position.size() == a.by_position.size());
        std::size_t mismatches = 0;
        for (const auto& [position, want] : a.by_position) {
            INFO("task position " << position);
            const auto it = got.by_position.find(position);
            REQUIRE(it != got.by_position.end());
            const LaunchRecord& g = it->second;
            REQUIRE(g.tensors.size() == want.tensors.size());
            REQUIRE(g.scalars == want.scalars);
            REQUIRE(g.block_num == want.block_num);
            for (std::size_t k = 0; k < want.tensors.size(); ++k)
                if (!same_view(g.tensors[k].view, got.first, want.tensors[k].view, a.first) ||
                    g.tensors[k].direction != want.tensors[k].direction)
                    ++mismatches;
        }
        CHECK(mismatches == 0);
    }
}
