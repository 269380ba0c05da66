// pto-bench: measures what orchestration costs per task for each graph, dependency scheme and SPMD tier,
// predicts the device timeline with the virtual-time model, and writes bench-results.json (docs/bench.md).
// The bench library (pto::bench) does the measuring; this program gives it the built-in workloads.
#include "builtin_workloads.h"

int main(int argc, char** argv) {
    pto::bench::Bench bench("pto-bench");
    for (pto::bench::WorkloadSpec& workload : pto::bench::builtin_workloads())
        bench.add(std::move(workload));
    return bench.run(argc, argv);
}
