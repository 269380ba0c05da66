// The MoE FFN decode layer (Mixtral-8x7B dimensions) as a pto-bench workload: full size on fake addresses
// with a fixed routing (seed 7) for the instant and timed executors, reduced and in memory (the router
// really routes; golden check) for the compute executor. Every run waits once for the route task.
#include <map>
#include <memory>

#include "pto/examples/moe.h"
#include "builtin_workloads.h"

namespace pto::bench {
namespace {

using examples::SpmdTier;
namespace moe = examples::moe;

class MoeWorkload final : public Workload {
  public:
    explicit MoeWorkload(Executor executor)
        : problem_(executor == Executor::Compute
                       ? moe::Problem::with_memory(moe::Shapes::reduced())
                       : moe::Problem::with_fake_addresses(moe::Shapes::full(), kRoutingSeed)) {}

    Sizes sizes() const override {
        const moe::Shapes& s = problem_.shapes();
        // The routing seed fixes the tokens per expert, and so the launches (see the workload's README).
        return {{"tokens", s.tokens},
                {"tile_rows", s.tile_rows},
                {"hidden", s.hidden},
                {"experts", s.experts},
                {"top_k", s.top_k},
                {"intermediate", s.intermediate},
                {"routing_seed", static_cast<std::int64_t>(kRoutingSeed)}};
    }

    void register_kernels(Runtime& rt) override { moe::register_kernels(rt); }
    void prepare_run() override { problem_.reset(); }

    void orchestrate(Scheme scheme, std::optional<Tier> tier) override {
        graph(to_examples(*tier)).submit(to_examples(scheme));
    }

    std::string verify() override {
        if (!problem_.has_memory()) return {};
        if (golden_.empty()) golden_ = moe::reference(problem_);
        return moe::check_golden(problem_, golden_);
    }

  private:
    static constexpr std::uint64_t kRoutingSeed = 7;

    moe::MoeGraph& graph(SpmdTier tier) {
        auto& g = graphs_[tier];
        if (!g) g = std::make_unique<moe::MoeGraph>(problem_, tier);
        return *g;
    }

    moe::Problem problem_;
    std::map<SpmdTier, std::unique_ptr<moe::MoeGraph>> graphs_;
    std::vector<float> golden_;
};

}  // namespace

WorkloadSpec moe_workload() {
    return {.name = "moe",
            .description =
                "MoE FFN decode (Mixtral-8x7B, 64 tokens, routing seed 7), waiting once for the routing",
            .schemes = reference_schemes(moe::supports),
            .tiered = true,
            .in_default_sweep = false,
            .make = [](Executor executor) { return std::make_unique<MoeWorkload>(executor); }};
}

}  // namespace pto::bench
