// The operator table (name, core type, mean duration), the FuncId layout, kernel registration and the
// shapes. Durations are derived from Qwen3's measured times in examples/moe/README.md.
#include <array>
#include <string>

#include "kernels_cpu.h"
#include "pto/examples/moe.h"
#include "pto/runtime/detail/throw.h"

namespace pto::examples::moe {
namespace {

// Qwen3-14B's measured means (examples/qwen3/ops.cpp) scaled by FLOP ratio (matmuls, same 16-row tile and
// column chunk) or element ratio (vector kernels): see README.md "Durations".
constexpr double kRmsNormTileUs = 23.95;  // Qwen3 rmsnorm, 16 x 5120 elements
constexpr std::array<OpInfo, kOpCount> kOps = {{
    {"router", CoreType::AIV, kRmsNormTileUs * 4096.0 / 5120.0},
    {"route", CoreType::AIV, 2.82},
    {"gather", CoreType::AIV, kRmsNormTileUs * 4096.0 / 5120.0},
    {"gate_proj", CoreType::AIC, 95.70 * 4096.0 / 5120.0},
    {"up_proj", CoreType::AIC, 97.14 * 4096.0 / 5120.0},
    {"silu_mul", CoreType::AIV, 2.82},
    {"down_proj", CoreType::AIC, 72.22 * 14336.0 / 17408.0},
    {"combine", CoreType::AIV, 2.0 * kRmsNormTileUs * 4096.0 / 5120.0},
}};

void require(bool ok, const std::string& what) {
    if (!ok) [[unlikely]]
        pto::detail::throw_error(ErrorCode::InvalidArgument, "moe::Shapes: " + what);
}

}  // namespace

const OpInfo& op_info(Op op) {
    return kOps[static_cast<std::size_t>(op)];
}

FuncId func_id(Op op, std::uint16_t first) {
    return FuncId{static_cast<std::uint16_t>(first + static_cast<std::uint16_t>(op))};
}

void register_kernels(Runtime& rt, std::uint16_t first) {
    for (std::uint32_t i = 0; i < kOpCount; ++i) {
        const Op op = static_cast<Op>(i);
        rt.register_kernel(func_id(op, first),
                           KernelInfo{std::string(op_info(op).name), op_info(op).duration_us,
                                      detail::cpu_kernel(op), nullptr});
    }
}

Shapes Shapes::full() {
    return Shapes{};
}

Shapes Shapes::reduced() {
    Shapes s;
    s.tokens = 20;
    s.tile_rows = 4;
    s.hidden = 64;
    s.intermediate = 56;
    return s;
}

void Shapes::validate() const {
    require(tokens > 0 && tile_rows > 0 && hidden > 0 && experts > 0 && intermediate > 0,
            "every dimension must be positive");
    require(top_k >= 1 && top_k <= experts,
            "top_k = " + std::to_string(top_k) + " must be in 1..experts (" + std::to_string(experts) + ")");
    require(intermediate % kGateChunks == 0, "intermediate = " + std::to_string(intermediate) +
                                                 " is not a multiple of " + std::to_string(kGateChunks) +
                                                 " (gate/up chunks)");
    require(hidden % kDownChunks == 0, "hidden = " + std::to_string(hidden) + " is not a multiple of " +
                                           std::to_string(kDownChunks) + " (down_proj chunks)");
}

}  // namespace pto::examples::moe
