// The list of pto-bench's built-in workloads, in sweep order (--list, the report, the default sweep). Each
// entry names the function `WorkloadSpec <name>()` that the workload's own file defines
// (bench/workload_*.cpp, bench/synthetic.cpp); adding a workload is one line in this list.
#include "builtin_workloads.h"

// clang-format off
#define PTO_BENCH_BUILTIN_WORKLOADS(workload) \
    workload(qwen3_workload)                  \
    workload(paged_attention_workload)        \
    workload(moe_workload)                    \
    workload(chain_workload)                  \
    workload(fanin_workload)                  \
    /* end of the list: each entry above ends in a backslash */
// clang-format on

namespace pto::bench {

#define PTO_BENCH_DECLARE_WORKLOAD(name) WorkloadSpec name();
PTO_BENCH_BUILTIN_WORKLOADS(PTO_BENCH_DECLARE_WORKLOAD)

std::vector<WorkloadSpec> builtin_workloads() {
#define PTO_BENCH_LIST_WORKLOAD(name) name(),
    return {PTO_BENCH_BUILTIN_WORKLOADS(PTO_BENCH_LIST_WORKLOAD)};
}

}  // namespace pto::bench
