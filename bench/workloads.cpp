// make_workload: routes a case to its workload (the reference graphs in examples/, or synthetic.cpp).
#include "pto/examples/moe.h"
#include "pto/examples/paged_attention.h"
#include "pto/examples/qwen3.h"
#include "pto/runtime/detail/throw.h"
#include "workload.h"

namespace pto::bench {

std::unique_ptr<Workload> make_synthetic_workload(CaseKind kind);
std::unique_ptr<Workload> make_qwen3_workload(Executor executor);
std::unique_ptr<Workload> make_paged_attention_workload(Executor executor);
std::unique_ptr<Workload> make_moe_workload(Executor executor);

bool supports(CaseKind kind, examples::Scheme scheme) {
    switch (kind) {
        case CaseKind::Chain:
        case CaseKind::FanIn:
            // The synthetic shapes have no loop body to make a template of.
            return scheme == examples::Scheme::Manual || scheme == examples::Scheme::Tensormap;
        case CaseKind::Qwen3:
            return examples::qwen3::supports(scheme);
        case CaseKind::PagedAttention:
            return examples::paged_attention::supports(scheme);
        case CaseKind::Moe:
            return examples::moe::supports(scheme);
    }
    return false;
}

std::unique_ptr<Workload> make_workload(CaseKind kind, Executor executor) {
    switch (kind) {
        case CaseKind::Chain:
        case CaseKind::FanIn:
            return make_synthetic_workload(kind);
        case CaseKind::Qwen3:
            return make_qwen3_workload(executor);
        case CaseKind::PagedAttention:
            return make_paged_attention_workload(executor);
        case CaseKind::Moe:
            return make_moe_workload(executor);
    }
    detail::throw_error(ErrorCode::InvalidArgument,
                        std::string(to_string(kind)) + " is not built into this pto-bench");
}

}  // namespace pto::bench
