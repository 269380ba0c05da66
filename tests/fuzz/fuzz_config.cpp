// libFuzzer target: random RuntimeConfig values (legal, illegal, NaN, infinite, out-of-range enums) and
// kernel registrations (random ids, names, durations, functions), then a small run on every runtime that
// could be built. Constructing, registering and running may only ever fail with pto::Error; anything else
// (a crash, a sanitizer report, another exception, a hang caught by -timeout, or a report whose counts do
// not add up) is a bug. Legal sizes are kept small so one input costs milliseconds and little memory;
// illegal ones go past validate()'s limits, which must reject them before anything is allocated.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "pto/runtime/runtime.h"
#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

[[noreturn]] void bug(const char* what) {
    std::fprintf(stderr, "fuzz_config: %s\n", what);
    std::abort();
}

int ok_kernel(const KernelContext&) {
    return 0;
}
int fail_kernel(const KernelContext&) {
    return 3;
}
int throw_kernel(const KernelContext&) {
    throw std::runtime_error("fuzzed kernel throws");
}

/// pick: a small legal value from [lo, hi] most of the time, else one of the wild values.
template <class T>
T pick(FuzzedDataProvider& in, T lo, T hi, std::initializer_list<T> wild) {
    if (in.ConsumeIntegralInRange<int>(0, 7) != 0 || wild.size() == 0)
        return in.ConsumeIntegralInRange<T>(lo, hi);
    return *(wild.begin() + in.ConsumeIntegralInRange<std::size_t>(0, wild.size() - 1));
}

double pick_double(FuzzedDataProvider& in, double lo, double hi) {
    switch (in.ConsumeIntegralInRange<int>(0, 9)) {
        case 0:
            return std::numeric_limits<double>::quiet_NaN();
        case 1:
            return std::numeric_limits<double>::infinity();
        case 2:
            return -in.ConsumeFloatingPointInRange<double>(0.0, 1e300);
        case 3:
            return 1e300;
        default:
            return in.ConsumeFloatingPointInRange<double>(lo, hi);
    }
}

RuntimeConfig fuzzed_config(FuzzedDataProvider& in) {
    RuntimeConfig c;
    c.cluster_count = pick<std::uint32_t>(in, 1, 8, {0, 4097, 1u << 31});
    c.aic_per_cluster = pick<std::uint32_t>(in, 1, 1, {0, 2, 1000});
    c.aiv_per_cluster = pick<std::uint32_t>(in, 1, 2, {0, 3, ~0u});
    c.scheduler_threads = pick<std::uint32_t>(in, 1, 3, {0, 5000, ~0u});
    c.window_tasks = 1u << pick<std::uint32_t>(in, 3, 10, {0, 2, 25, 31});
    if (in.ConsumeIntegralInRange<int>(0, 15) == 0) c.window_tasks += 1;  // not a power of two
    c.heap_bytes = pick<std::uint64_t>(in, 4096, 1u << 20, {0, 4095, (1ull << 40) + 1, ~0ull});
    c.edge_capacity = 1u << pick<std::uint32_t>(in, 6, 12, {0, 5, 27, 31});
    c.argument_bytes = pick<std::uint64_t>(in, 8192, 1u << 16, {0, 1, 8191, (1ull << 40) + 1});
    c.tensormap_entries = 1u << pick<std::uint32_t>(in, 6, 10, {0, 5, 27, 31});
    c.executor = static_cast<Executor>(pick<std::uint8_t>(in, 0, 2, {3, 200, 255}));
    c.orchestration = static_cast<OrchestrationMode>(pick<std::uint8_t>(in, 0, 1, {2, 77, 255}));
    c.timed_scale = pick_double(in, 1e-6, 1.0);
    c.timed_jitter = pick_double(in, 0.0, 1.0);
    c.seed = in.ConsumeIntegral<std::uint64_t>();
    c.compute_threads = pick<std::uint32_t>(in, 0, 2, {1025, ~0u});
    c.record_graph = in.ConsumeBool();
    c.record_subtasks = in.ConsumeBool();
    c.profile_orchestrator = in.ConsumeBool();
    // Short timeouts are legal too (a Stall is a pto::Error); 0 disables the watchdog, so keep it on.
    c.stall_timeout_ms = pick<std::uint32_t>(in, 50, 5000, {1, 10});
    return c;
}

void run_small_graph(Runtime& rt, FuzzedDataProvider& in, const std::vector<FuncId>& kernels) {
    const int tasks = in.ConsumeIntegralInRange<int>(0, 12);
    std::vector<int> choices;
    for (int i = 0; i < tasks; ++i)
        choices.push_back(in.ConsumeIntegralInRange<int>(0, 255));
    const RunReport r = pto::run(
        rt,
        [&] {
            std::vector<TaskId> ids;
            for (int choice : choices) {
                const FuncId f =
                    kernels.empty() ? FuncId{0} : kernels[static_cast<std::size_t>(choice) % kernels.size()];
                Args args;
                if (!ids.empty() && (choice & 8) != 0) args.set_dependencies(&ids.back(), 1);
                args.block_num(1 + static_cast<std::uint32_t>(choice >> 6));
                try {
                    TaskHandle h;
                    switch (choice & 3) {
                        case 0:
                            h = submit_aic(f, args);
                            break;
                        case 1:
                            h = submit_aiv(f, args);
                            break;
                        case 2:
                            h = submit_mix(f, f, f, args);
                            break;
                        default:
                            h = submit_dependency_only(args);
                            break;
                    }
                    ids.push_back(h.task_id());
                } catch (const Error&) {
                    // Refused submits (an unregistered kernel, MIX without two AIV...) leave nothing behind.
                }
            }
        },
        RunOptions{.throw_on_kernel_failure = false});
    if (r.completed + r.failed + r.cancelled != r.submitted)
        bug("completed + failed + cancelled != submitted");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider in(data, size);
    const RuntimeConfig config = fuzzed_config(in);
    std::unique_ptr<Runtime> rt;
    try {
        rt = std::make_unique<Runtime>(config);
    } catch (const Error&) {
        return 0;  // rejected by validate() or too large to allocate: both named errors
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        bug("Runtime construction threw something other than pto::Error");
    }
    std::vector<FuncId> registered;
    const int registrations = in.ConsumeIntegralInRange<int>(0, 6);
    for (int i = 0; i < registrations; ++i) {
        KernelInfo info;
        info.name = in.ConsumeRandomLengthString(24);
        info.duration_us = pick_double(in, 0.0, 200.0);
        switch (in.ConsumeIntegralInRange<int>(0, 3)) {
            case 0:
                info.fn = nullptr;
                break;
            case 1:
                info.fn = &fail_kernel;
                break;
            case 2:
                info.fn = &throw_kernel;
                break;
            default:
                info.fn = &ok_kernel;
                break;
        }
        const FuncId id{pick<std::uint16_t>(in, 0, 16, {FuncId::kNoneValue, 4000})};
        try {
            rt->register_kernel(id, info);
            registered.push_back(id);
        } catch (const Error&) {
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s\n", e.what());
            bug("register_kernel threw something other than pto::Error");
        }
    }
    for (int round = 0; round < 2; ++round) {
        try {
            run_small_graph(*rt, in, registered);
        } catch (const Error&) {
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s\n", e.what());
            bug("a run threw something other than pto::Error");
        }
    }
    return 0;
}
