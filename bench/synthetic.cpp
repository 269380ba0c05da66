// The synthetic workloads: a chain (each task depends on the previous one) and a fan-in (groups of eight
// producers joined by one consumer). Small, regular graphs that isolate per-task and per-edge costs.
#include <vector>

#include "pto/scope/orchestration.h"
#include "builtin_workloads.h"

namespace pto::bench {
namespace {

constexpr FuncId kStep{0};

/// Chain: tasks 0..n-1, each reading what the previous one wrote (AUTO: inout of one row; MANUAL: an
/// explicit edge). One scope per 64 tasks.
//   t0 -> t1 -> t2 -> ... -> t(n-1)
class ChainWorkload final : public Workload {
  public:
    explicit ChainWorkload(std::uint32_t tasks) : tasks_(tasks), rows_(tasks) {}

    Sizes sizes() const override { return {{"tasks", tasks_}}; }
    void register_kernels(Runtime& rt) override {
        rt.register_kernel(kStep, KernelInfo{"step", 10.0, nullptr, nullptr});
    }

    void orchestrate(Scheme scheme, std::optional<Tier>) override {
        const TensorView row = TensorView::contiguous(rows_.data(), DataType::F32, {64});
        TaskId previous;
        for (std::uint32_t base = 0; base < tasks_; base += 64) {
            if (scheme == Scheme::Manual) {
                PTO2_SCOPE(MANUAL) {
                    for (std::uint32_t i = base; i < std::min(tasks_, base + 64); ++i) {
                        Args args;
                        args.scalar(i);
                        if (previous.is_valid()) args.set_dependencies(&previous, 1);
                        previous = submit_aiv(kStep, args).task_id();
                    }
                }
            } else {
                PTO2_SCOPE() {
                    for (std::uint32_t i = base; i < std::min(tasks_, base + 64); ++i)
                        submit_aiv(kStep, Args().inout(row).scalar(i));
                }
            }
        }
    }

  private:
    std::uint32_t tasks_;
    std::vector<float> rows_;
};

/// FanIn: groups of 8 independent producers writing their own rows, joined by a consumer reading all 8.
//   p0 p1 ... p7
//     \  |  /
//      join      (x groups)
class FanInWorkload final : public Workload {
  public:
    explicit FanInWorkload(std::uint32_t groups) : groups_(groups), buffer_(std::size_t{groups} * 8 * 64) {}

    Sizes sizes() const override { return {{"groups", groups_}, {"fanin", 8}}; }
    void register_kernels(Runtime& rt) override {
        rt.register_kernel(kStep, KernelInfo{"produce", 10.0, nullptr, nullptr});
        rt.register_kernel(FuncId{1}, KernelInfo{"join", 10.0, nullptr, nullptr});
    }

    void orchestrate(Scheme scheme, std::optional<Tier>) override {
        // Each group writes its own rows, so the discovered edges are exactly the manual ones (no WAR/WAW
        // between groups).
        const TensorView rows = TensorView::contiguous(buffer_.data(), DataType::F32, {groups_, 8, 64});
        TaskId producers[8];
        for (std::uint32_t g = 0; g < groups_; ++g) {
            const TensorView all = rows.slice(0, g, 1);
            if (scheme == Scheme::Manual) {
                PTO2_SCOPE(MANUAL) {
                    for (std::uint32_t i = 0; i < 8; ++i)
                        producers[i] = submit_aic(kStep, Args().scalar(i)).task_id();
                    submit_aiv(FuncId{1}, Args().set_dependencies(producers, 8));
                }
            } else {
                PTO2_SCOPE() {
                    for (std::uint32_t i = 0; i < 8; ++i)
                        submit_aic(kStep, Args().output(all.slice(1, i, 1)).scalar(i));
                    submit_aiv(FuncId{1}, Args().input(all));
                }
            }
        }
    }

  private:
    std::uint32_t groups_;
    std::vector<float> buffer_;
};

}  // namespace

// The synthetic shapes have no loop body to make a template of: manual and tensormap only.
WorkloadSpec chain_workload() {
    return {.name = "chain",
            .description = "a 2048-task chain, one edge per task",
            .in_default_sweep = false,
            .make = [](Executor) { return std::make_unique<ChainWorkload>(2048); }};
}

WorkloadSpec fanin_workload() {
    return {.name = "fanin",
            .description = "256 groups of 8 producers joined by one consumer",
            .in_default_sweep = false,
            .make = [](Executor) { return std::make_unique<FanInWorkload>(256); }};
}

}  // namespace pto::bench
