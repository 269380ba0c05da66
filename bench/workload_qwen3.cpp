// The Qwen3-14B decode layer as a pto-bench workload: full size on fake addresses for the instant and
// timed executors, reduced and in memory (with the golden check) for the compute executor.
#include <map>
#include <memory>

#include "pto/examples/qwen3.h"
#include "builtin_workloads.h"

namespace pto::bench {
namespace {

namespace qwen3 = examples::qwen3;

class Qwen3Workload final : public Workload {
  public:
    explicit Qwen3Workload(Executor executor)
        : problem_(executor == Executor::Compute
                       ? qwen3::Problem::with_memory(qwen3::Shapes::reduced())
                       : qwen3::Problem::with_fake_addresses(qwen3::Shapes::full())) {}

    Sizes sizes() const override {
        const qwen3::Shapes& s = problem_.shapes();
        return {{"batch", s.batch},
                {"batch_padded", s.batch_padded()},
                {"tile_rows", s.tile_rows},
                {"hidden", s.hidden()},
                {"q_heads", s.q_heads},
                {"kv_heads", s.kv_heads},
                {"head_dim", s.head_dim},
                {"intermediate", s.intermediate},
                {"max_context", s.max_context}};
    }

    void register_kernels(Runtime& rt) override { qwen3::register_kernels(rt); }
    void prepare_run() override { problem_.reset(); }

    void orchestrate(Scheme scheme, std::optional<Tier> tier) override {
        graph(to_examples(*tier)).submit(to_examples(scheme));
    }

    std::string verify() override {
        if (!problem_.has_memory()) return {};
        if (!golden_) golden_ = std::make_unique<qwen3::Golden>(qwen3::reference(problem_));
        const qwen3::GoldenReport report = qwen3::check_golden(problem_, *golden_, "pto-bench");
        return report.ok ? std::string() : report.summary();
    }

  private:
    qwen3::DecodeGraph& graph(examples::SpmdTier tier) {
        auto& g = graphs_[tier];
        if (!g) g = std::make_unique<qwen3::DecodeGraph>(problem_, tier);
        return *g;
    }

    qwen3::Problem problem_;
    std::map<examples::SpmdTier, std::unique_ptr<qwen3::DecodeGraph>> graphs_;
    std::unique_ptr<qwen3::Golden> golden_;
};

}  // namespace

WorkloadSpec qwen3_workload() {
    return {.name = "qwen3",
            .description = "Qwen3-14B decode layer",
            .schemes = reference_schemes(qwen3::supports),
            .tiered = true,
            .make = [](Executor executor) { return std::make_unique<Qwen3Workload>(executor); }};
}

}  // namespace pto::bench
