// A graph author's benchmark, built only against an installed pto (tests/install): a workload of diamonds
// registered with the bench library, which gives this program every pto-bench option. The install test
// runs it with --json and checks the report's results, their task and edge counts, and the golden check.
//
//   per diamond:  a: y = 2 x ─┬─ b: u = 3 y ─┬─ d: z = u + v      (z = 16 x)
//                             └─ c: v = 5 y ─┘
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <pto/bench/bench.h>
#include <pto/scope/orchestration.h>

namespace {

constexpr std::uint32_t kWidth = 64;  // floats per vector

int scale(const pto::KernelContext& ctx) {  // out = a * in
    const float* in = ctx.tensors[0].view.data<float>();
    float* out = ctx.tensors[1].view.data<float>();
    for (std::uint32_t i = 0; i < kWidth; ++i)
        out[i] = ctx.scalar_as<float>(0) * in[i];
    return 0;
}

int twice(const pto::KernelContext& ctx) {  // out = 2 * in
    const float* in = ctx.tensors[0].view.data<float>();
    float* out = ctx.tensors[1].view.data<float>();
    for (std::uint32_t i = 0; i < kWidth; ++i)
        out[i] = 2.0f * in[i];
    return 0;
}

int add(const pto::KernelContext& ctx) {  // out = in0 + in1
    const float* a = ctx.tensors[0].view.data<float>();
    const float* b = ctx.tensors[1].view.data<float>();
    float* out = ctx.tensors[2].view.data<float>();
    for (std::uint32_t i = 0; i < kWidth; ++i)
        out[i] = a[i] + b[i];
    return 0;
}

// [snippet:bench-workload]
constexpr pto::FuncId kTwice{0}, kScale{1}, kAdd{2};

/// Diamonds: `count` independent diamonds, each on its own five vectors (x, y, u, v, z).
class Diamonds final : public pto::bench::Workload {
  public:
    explicit Diamonds(std::uint32_t count) : count_(count), memory_(std::size_t{count} * 5 * kWidth) {}

    void register_kernels(pto::Runtime& rt) override {
        rt.register_kernel(kTwice, {"twice", 2.0, &twice});  // name, device time in us, CPU function
        rt.register_kernel(kScale, {"scale", 3.0, &scale});
        rt.register_kernel(kAdd, {"add", 1.5, &add});
    }

    void prepare_run() override {  // outside the timed region: inputs set, outputs poisoned
        for (std::uint32_t d = 0; d < count_; ++d)
            for (std::uint32_t i = 0; i < kWidth; ++i) {
                vector(d, 0)[i] = static_cast<float>(d + 1);
                vector(d, 4)[i] = std::nanf("");
            }
    }

    void orchestrate(pto::bench::Scheme scheme, std::optional<pto::bench::Tier>) override {
        for (std::uint32_t d = 0; d < count_; ++d) {
            const pto::TensorView x = view(d, 0), y = view(d, 1), u = view(d, 2), v = view(d, 3),
                                  z = view(d, 4);
            if (scheme == pto::bench::Scheme::Manual) {
                PTO2_SCOPE(MANUAL) {  // edges named by hand
                    const pto::TaskHandle a = pto::submit_aiv(kTwice, pto::Args().input(x).output(y));
                    const pto::TaskHandle b =
                        pto::submit_aiv(kScale, pto::Args().input(y).output(u).scalar(3.0f).after(a));
                    const pto::TaskHandle c =
                        pto::submit_aiv(kScale, pto::Args().input(y).output(v).scalar(5.0f).after(a));
                    pto::submit_aiv(kAdd, pto::Args().input(u).input(v).output(z).after(b, c));
                }
            } else {
                PTO2_SCOPE() {  // edges discovered from the views
                    pto::submit_aiv(kTwice, pto::Args().input(x).output(y));
                    pto::submit_aiv(kScale, pto::Args().input(y).output(u).scalar(3.0f));
                    pto::submit_aiv(kScale, pto::Args().input(y).output(v).scalar(5.0f));
                    pto::submit_aiv(kAdd, pto::Args().input(u).input(v).output(z));
                }
            }
        }
    }

    std::string verify() override {  // after the compute executor's runs: z = 16 x
        for (std::uint32_t d = 0; d < count_; ++d)
            for (std::uint32_t i = 0; i < kWidth; ++i)
                if (vector(d, 4)[i] != 16.0f * vector(d, 0)[i])
                    return "diamond " + std::to_string(d) + " is wrong";
        return {};
    }

    pto::bench::Sizes sizes() const override { return {{"diamonds", count_}, {"width", kWidth}}; }

  private:
    float* vector(std::uint32_t diamond, std::uint32_t which) {
        return memory_.data() + (std::size_t{diamond} * 5 + which) * kWidth;
    }
    pto::TensorView view(std::uint32_t diamond, std::uint32_t which) {
        return pto::TensorView::contiguous(vector(diamond, which), pto::DataType::F32, {kWidth});
    }

    std::uint32_t count_;
    std::vector<float> memory_;
};
// [/snippet]

}  // namespace

// [snippet:bench-main]
int main(int argc, char** argv) {
    pto::bench::Bench bench("diamond-bench");
    bench.add({.name = "diamonds",
               .description = "16 independent diamonds of four tasks",
               .schemes = {pto::bench::Scheme::Manual, pto::bench::Scheme::Tensormap},
               .make = [](pto::Executor) { return std::make_unique<Diamonds>(16); }});
    return bench.run(argc, argv);  // every pto-bench option: --mode, --executor, --peers, --json, ...
}
// [/snippet]
