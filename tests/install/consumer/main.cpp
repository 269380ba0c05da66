// An embedder's program, built only against an installed pto (tests/install): the README's example graph,
// run dynamically and as a static template on the compute executor, each result checked. Exit 0 = pass.
//
//   a: y = 2 x ─┬─ b: u = 3 y ─┬─ d: z = u + v      (z = 16 x)
//               └─ c: v = 5 y ─┘
#include <cstdio>
#include <vector>

#include <pto/runtime/simulate.h>
#include <pto/scope/orchestration.h>
#include <pto/static_graph/instance.h>
#include <pto/static_graph/template.h>

namespace {

bool all_equal(const std::vector<float>& values, float expected) {
    for (float v : values)
        if (v != expected) return false;
    return true;
}

}  // namespace

// [snippet:readme-kernel]
// A kernel sees one block (subtask): each of the task's block_num blocks scales one slice of the vector.
int scale(const pto::KernelContext& ctx) {  // out = a * in
    const float* in = ctx.tensors[0].view.data<float>();
    float* out = ctx.tensors[1].view.data<float>();
    const std::uint32_t n = ctx.tensors[0].view.shape[0] / ctx.block_num;
    for (std::uint32_t i = ctx.block_idx * n; i < (ctx.block_idx + 1) * n; ++i)
        out[i] = ctx.scalar_as<float>(0) * in[i];
    return 0;
}
// [/snippet]

int add(const pto::KernelContext& ctx) {  // out = in0 + in1
    const float* a = ctx.tensors[0].view.data<float>();
    const float* b = ctx.tensors[1].view.data<float>();
    float* out = ctx.tensors[2].view.data<float>();
    for (std::uint32_t i = 0; i < ctx.tensors[2].view.shape[0]; ++i)
        out[i] = a[i] + b[i];
    return 0;
}

// [snippet:readme-example]
constexpr pto::FuncId kScale{0}, kAdd{1};

int main() {
    pto::RuntimeConfig config;
    config.executor = pto::Executor::Compute;  // run the kernels above on host threads
    pto::Runtime rt(config);
    rt.register_kernel(kScale, {"scale", 10.0, &scale});  // name, device time in us, CPU function
    rt.register_kernel(kAdd, {"add", 5.0, &add});

    std::vector<float> x(64, 1.0f), y(64), u(64), v(64), z(64);
    auto view = [](std::vector<float>& b) {
        return pto::TensorView::contiguous(b.data(), pto::DataType::F32, {64});
    };
    pto::run(rt, [&] {
        PTO2_SCOPE() {  // AUTO: edges come from the tensors each task reads and writes
            pto::submit_aiv(kScale, pto::Args().input(view(x)).output(view(y)).scalar(2.0f).block_num(4));
            pto::submit_aiv(kScale, pto::Args().input(view(y)).output(view(u)).scalar(3.0f).block_num(4));
            pto::submit_aiv(kScale, pto::Args().input(view(y)).output(view(v)).scalar(5.0f).block_num(4));
            pto::submit_aiv(kAdd, pto::Args().input(view(u)).input(view(v)).output(view(z)));
        }
    });
    std::printf("z[0] = %g (expected 16)\n", z[0]);
    // [/snippet]
    if (!all_equal(z, 16.0f)) return 1;

    // The same diamond as a static template (pto::static_graph): built once, instantiated with new tensors.
    pto::TemplateBuilder builder("diamond", pto::BoundaryMode::Manual);
    const pto::TensorSlot sx = builder.tensor_slot("x"), sy = builder.tensor_slot("y"),
                          su = builder.tensor_slot("u"), sv = builder.tensor_slot("v"),
                          sz = builder.tensor_slot("z");
    const std::uint32_t a = builder.add_aiv(kScale, pto::NodeArgs().input(sx).output(sy).scalar_value(2.0f));
    const std::uint32_t b = builder.add_aiv(kScale, pto::NodeArgs().input(sy).output(su).scalar_value(3.0f));
    const std::uint32_t c = builder.add_aiv(kScale, pto::NodeArgs().input(sy).output(sv).scalar_value(5.0f));
    const std::uint32_t d = builder.add_aiv(kAdd, pto::NodeArgs().input(su).input(sv).output(sz));
    builder.edge(a, b).edge(a, c).edge(b, d).edge(c, d);
    const pto::Template diamond = builder.finalize();
    pto::Bindings bindings(diamond);

    std::vector<float> x2(64, 2.0f), z2(64);
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            bindings.tensor(sx, view(x2)).tensor(sy, view(y)).tensor(su, view(u)).tensor(sv, view(v));
            bindings.tensor(sz, view(z2));
            pto::instantiate(bindings);
        }
    });
    std::printf("template: z[0] = %g (expected 32)\n", z2[0]);
    if (!all_equal(z2, 32.0f)) return 1;

    // pto::model links on its own: the built-in profiles are there.
    return pto::sim_profile("proxy-a2a3") != nullptr ? 0 : 1;
}
