// Paged attention (unrolled) as a pto-bench workload: Case1 on fake addresses for the instant and timed
// executors, the reduced compute case in memory (with the dense-attention golden check) for compute.
#include "pto/examples/paged_attention.h"
#include "builtin_workloads.h"

namespace pto::bench {
namespace {

namespace pa = examples::paged_attention;

class PagedAttentionWorkload final : public Workload {
  public:
    explicit PagedAttentionWorkload(Executor executor)
        : problem_(executor == Executor::Compute ? pa::compute_case() : pa::case1(),
                   executor == Executor::Compute ? pa::Memory::Real : pa::Memory::Virtual) {}

    Sizes sizes() const override {
        const pa::Shape& s = problem_.shape();
        return {{"batch", s.batch},
                {"num_heads", s.num_heads},
                {"kv_head_num", s.kv_head_num},
                {"head_dim", s.head_dim},
                {"block_size", s.block_size},
                {"max_model_len", s.max_model_len},
                {"n_unroll", s.n_unroll},
                {"kernel_tasks", s.kernel_task_count()}};
    }

    void register_kernels(Runtime& rt) override { pa::register_kernels(rt); }
    void prepare_run() override {
        if (problem_.memory() == pa::Memory::Real) problem_.poison_out();
    }
    void orchestrate(Scheme scheme, std::optional<Tier>) override {
        pa::build(problem_, to_examples(scheme));
    }

    std::string verify() override {
        if (problem_.memory() != pa::Memory::Real) return {};
        const pa::GoldenResult r = pa::check_golden(problem_, "pto-bench");
        if (r.ok) return {};
        return "MISMATCH: max abs error " + std::to_string(r.max_abs_error) + " > " +
               std::to_string(r.tolerance) +
               (r.dump_prefix.empty() ? std::string() : ", tensors in " + r.dump_prefix);
    }

  private:
    pa::Problem problem_;
};

}  // namespace

WorkloadSpec paged_attention_workload() {
    return {.name = "paged_attention",
            .description = "paged attention Case1 (480 batches x 4 tasks)",
            .schemes = reference_schemes(pa::supports),
            .make = [](Executor executor) { return std::make_unique<PagedAttentionWorkload>(executor); }};
}

}  // namespace pto::bench
