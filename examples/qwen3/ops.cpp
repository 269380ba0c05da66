// The operator table of docs/design/reference-graphs.md (name, core type, chunk count, scope, mean duration),
// the FuncId layout and kernel registration.
#include <array>
#include <string>

#include "kernels_cpu.h"
#include "pto/examples/qwen3.h"

namespace pto::examples::qwen3 {
namespace {

// Durations: mean per subtask on a2a3 from the seed's swimlane measurement (docs/design/reference-graphs.md).
constexpr std::array<OpInfo, kOpCount> kOps = {{
    {"rmsnorm", CoreType::AIV, 1, 1, 23.95},
    {"q_proj", CoreType::AIC, 20, 1, 26.06},
    {"k_proj", CoreType::AIC, 8, 1, 18.17},
    {"v_proj", CoreType::AIC, 8, 1, 17.89},
    {"qk_norm", CoreType::AIV, 1, 1, 13.19},
    {"rope_kv_cache", CoreType::AIV, 1, 2, 9.48},
    {"qk_matmul", CoreType::AIC, 4, 2, 29.35},
    {"softmax", CoreType::AIV, 4, 2, 19.40},
    {"sv_matmul", CoreType::AIC, 4, 2, 31.65},
    {"online_softmax", CoreType::AIV, 4, 2, 20.82},
    {"out_proj_residual", CoreType::MIX, 40, 3, 40.75},
    {"post_rmsnorm", CoreType::AIV, 1, 3, 24.39},
    {"gate_proj", CoreType::AIC, 34, 3, 95.70},
    {"up_proj", CoreType::AIC, 34, 3, 97.14},
    {"silu", CoreType::AIV, 34, 3, 2.82},
    {"down_proj", CoreType::AIC, 40, 3, 72.22},
    {"down_proj_residual", CoreType::AIV, 40, 3, 2.59},
}};

constexpr auto kOut = static_cast<std::uint16_t>(Op::OutProjResidual);

}  // namespace

const OpInfo& op_info(Op op) {
    return kOps[static_cast<std::size_t>(op)];
}

FuncId func_id(Op op, std::uint32_t lane, std::uint16_t first) {
    const auto i = static_cast<std::uint16_t>(op);
    // Ops after out_proj_residual shift by its two extra lane ids.
    if (i < kOut) return FuncId{static_cast<std::uint16_t>(first + i)};
    if (i == kOut) return FuncId{static_cast<std::uint16_t>(first + kOut + (lane > 2 ? 0 : lane))};
    return FuncId{static_cast<std::uint16_t>(first + i + 2)};
}

std::optional<Op> op_of(FuncId f, std::uint16_t first) {
    if (f.is_none() || f.value < first || f.value >= first + kFuncIdCount) return std::nullopt;
    const auto i = static_cast<std::uint16_t>(f.value - first);
    if (i < kOut) return static_cast<Op>(i);
    if (i <= kOut + 2) return Op::OutProjResidual;
    return static_cast<Op>(i - 2);
}

void register_kernels(Runtime& rt, std::uint16_t first) {
    for (std::uint32_t i = 0; i < kOpCount; ++i) {
        const Op op = static_cast<Op>(i);
        const OpInfo& info = op_info(op);
        const KernelFn fn = detail::cpu_kernel(op);
        if (op == Op::OutProjResidual) {
            static constexpr const char* kLanes[3] = {"_aic", "_aiv0", "_aiv1"};
            for (std::uint32_t lane = 0; lane < 3; ++lane)
                rt.register_kernel(func_id(op, lane, first), KernelInfo{std::string(info.name) + kLanes[lane],
                                                                        info.duration_us, fn, nullptr});
        } else {
            rt.register_kernel(func_id(op, 0, first),
                               KernelInfo{std::string(info.name), info.duration_us, fn, nullptr});
        }
    }
}

}  // namespace pto::examples::qwen3
