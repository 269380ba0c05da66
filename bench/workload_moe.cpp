// The MoE FFN decode layer (Mixtral-8x7B dimensions) as a pto-bench workload: full size on fake addresses
// with a fixed routing (seed 7) for the instant and timed executors, reduced and in memory (the router
// really routes; golden check) for the compute executor. Every run waits once for the route task.
#include <map>
#include <memory>

#include "pto/examples/moe.h"
#include "workload.h"

namespace pto::bench {
namespace {

using examples::Scheme;
using examples::SpmdTier;
namespace moe = examples::moe;

class MoeWorkload final : public Workload {
  public:
    explicit MoeWorkload(Executor executor)
        : problem_(executor == Executor::Compute
                       ? moe::Problem::with_memory(moe::Shapes::reduced())
                       : moe::Problem::with_fake_addresses(moe::Shapes::full(), kRoutingSeed)) {}

    nlohmann::json sizes() const override {
        const moe::Shapes& s = problem_.shapes();
        nlohmann::json j = {
            {"tokens", s.tokens},          {"tile_rows", s.tile_rows}, {"hidden", s.hidden},
            {"experts", s.experts},        {"top_k", s.top_k},         {"intermediate", s.intermediate},
            {"routing_seed", kRoutingSeed}};
        if (!problem_.has_memory()) j["tokens_per_expert"] = problem_.routing().count;
        return j;
    }

    void register_kernels(Runtime& rt) override { moe::register_kernels(rt); }
    void prepare_run() override { problem_.reset(); }

    void orchestrate(Scheme scheme, std::optional<SpmdTier> tier) override { graph(*tier).submit(scheme); }

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

std::unique_ptr<Workload> make_moe_workload(Executor executor) {
    return std::make_unique<MoeWorkload>(executor);
}

}  // namespace pto::bench
