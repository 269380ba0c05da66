// moe_ffn: runs the MoE FFN decode layer at reduced size on the compute executor in all four schemes,
// checks each against the sequential reference, and prints the routing and the launches it caused.
// Exit status 1 if any scheme mismatches.
#include <cstdio>

#include "pto/examples/moe.h"
#include "pto/scope/orchestration.h"

int main() {
    using namespace pto::examples;
    moe::Problem problem = moe::Problem::with_memory();
    const std::vector<float> golden = moe::reference(problem);
    pto::RuntimeConfig config;
    config.executor = pto::Executor::Compute;
    config.record_graph = true;
    pto::Runtime rt(config);
    moe::register_kernels(rt);
    moe::MoeGraph graph(problem, SpmdTier::Spmd4);
    int status = 0;
    for (Scheme scheme : kAllSchemes) {
        problem.reset();
        const pto::RunReport report = pto::run(rt, [&] { graph.submit(scheme); });
        const moe::Routing routing = problem.routing();
        const std::string mismatch = moe::check_golden(problem, golden);
        std::printf("scheme %c: %llu launches, %llu waits; tokens per expert:", letter(scheme),
                    static_cast<unsigned long long>(report.kernel_tasks),
                    static_cast<unsigned long long>(report.orchestrator.waits));
        for (std::uint32_t n : routing.count)
            std::printf(" %u", n);
        std::printf("; golden %s\n", mismatch.empty() ? "match" : mismatch.c_str());
        status |= mismatch.empty() ? 0 : 1;
    }
    return status;
}
