// Shapes of the decode layer: the full Qwen3-14B sizes, the reduced sizes the compute executor runs, the
// chunk size of each operator and the checks that the dimensions split into the table's chunk counts.
#include <algorithm>
#include <string>

#include "pto/examples/qwen3.h"
#include "pto/runtime/detail/throw.h"

namespace pto::examples::qwen3 {
namespace {

[[noreturn]] void bad_shape(const std::string& what) {
    detail::throw_error(ErrorCode::InvalidArgument, "qwen3 Shapes: " + what);
}

void require_multiple(std::uint32_t value, const char* name, std::uint32_t of, const char* why) {
    if (value == 0 || value % of != 0)
        bad_shape(std::string(name) + " = " + std::to_string(value) + " must be a positive multiple of " +
                  std::to_string(of) + " (" + why + ")");
}

}  // namespace

Shapes Shapes::full() {
    return Shapes{};
}

Shapes Shapes::reduced() {
    Shapes s;
    s.head_dim = 16;           // hidden 640, kv_hidden 128
    s.intermediate = 34 * 16;  // 544: gate/up/silu chunks of 16 columns
    s.max_context = 32;
    s.kv_block = 8;  // up to 4 blocks per row for online_softmax to combine
    return s;
}

std::uint32_t Shapes::chunk_size(Op op) const {
    const std::uint32_t n = op_info(op).chunks;
    switch (op) {
        case Op::QProj:
        case Op::OutProjResidual:
        case Op::DownProj:
        case Op::DownProjResidual:
            return hidden() / n;
        case Op::KProj:
        case Op::VProj:
            return kv_hidden() / n;
        case Op::QkMatmul:
        case Op::Softmax:
        case Op::SvMatmul:
        case Op::OnlineSoftmax:
            return q_heads / n;
        case Op::GateProj:
        case Op::UpProj:
        case Op::Silu:
            return intermediate / n;
        default:
            return 1;
    }
}

std::uint32_t Shapes::context_len(std::uint32_t row) const {
    // A fixed scatter over 1..max_context: 37 is coprime with the power-of-two contexts used here, so
    // consecutive rows land in different blocks (full, partial and single-block rows all occur).
    return 1 + static_cast<std::uint32_t>((static_cast<std::uint64_t>(row) * 37 + 11) % max_context);
}

void Shapes::validate() const {
    if (batch == 0 || tile_rows == 0) bad_shape("batch and tile_rows must be positive");
    if (head_dim == 0 || head_dim % 2 != 0)
        bad_shape("head_dim = " + std::to_string(head_dim) +
                  " must be positive and even (rope rotates pairs)");
    require_multiple(hidden(), "hidden (q_heads * head_dim)", op_info(Op::QProj).chunks, "q_proj chunks");
    require_multiple(hidden(), "hidden (q_heads * head_dim)", op_info(Op::OutProjResidual).chunks,
                     "out_proj_residual, down_proj and down_proj_residual chunks");
    require_multiple(kv_hidden(), "kv_hidden (kv_heads * head_dim)", op_info(Op::KProj).chunks,
                     "k_proj and v_proj chunks");
    require_multiple(intermediate, "intermediate", op_info(Op::GateProj).chunks, "gate/up/silu chunks");
    require_multiple(q_heads, "q_heads", op_info(Op::QkMatmul).chunks, "attention chunks are head groups");
    require_multiple(kv_heads, "kv_heads", op_info(Op::QkMatmul).chunks, "attention chunks are head groups");
    require_multiple(q_heads, "q_heads", kv_heads, "grouped-query attention");
    if (max_context == 0 || kv_block == 0) bad_shape("max_context and kv_block must be positive");
}

LaunchCounts expected_launches(const Shapes& shapes, SpmdTier tier) {
    LaunchCounts c;
    for (std::uint32_t i = 0; i < kOpCount; ++i) {
        const OpInfo& info = op_info(static_cast<Op>(i));
        const std::uint64_t instances = info.scope == 2 ? shapes.batch : shapes.tiles();
        c.scope[info.scope - 1] += instances * launches(info.chunks, tier).size();
        c.subtasks += instances * info.chunks;
    }
    return c;
}

}  // namespace pto::examples::qwen3
