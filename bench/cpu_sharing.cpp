// CPU sharing (cpu_sharing.h): a fixed loop on one CPU of the probes' pair (cpu_pair.h), with and without a
// spinning thread on the other.
#include "cpu_sharing.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <thread>

#include "cpu_pair.h"

namespace pto::bench {
namespace {

/// How long each timing of the loop runs: a host that alternates the two vCPUs does so in time slices of a
/// few milliseconds, so a much shorter loop could fit between two switches and see nothing.
constexpr auto kLoopTime = std::chrono::milliseconds(10);
constexpr std::uint32_t kStepsPerClockRead = 4096;
constexpr std::size_t kPairs = 3;

/// loop_ns_per_step: runs a chain of dependent multiplications for kLoopTime and returns the time per step.
/// Each step needs the previous one's result, so the figure says how fast this CPU runs, not how much
/// memory bandwidth or parallelism it has.
double loop_ns_per_step() {
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + kLoopTime;
    std::uint64_t x = 1;
    std::uint64_t steps = 0;
    auto now = start;
    do {
        for (std::uint32_t i = 0; i < kStepsPerClockRead; ++i) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            // Keeps the compiler from folding the chain into a closed form or dropping it.
            asm volatile("" : "+r"(x));
        }
        steps += kStepsPerClockRead;
        now = std::chrono::steady_clock::now();
    } while (now < deadline);
    return std::chrono::duration<double, std::nano>(now - start).count() / static_cast<double>(steps);
}

/// loop_beside_spinner: loop_ns_per_step while a thread pinned to `other` spins; nothing if it cannot be
/// pinned there.
std::optional<double> loop_beside_spinner(int other) {
    std::atomic<int> state{0};  // 0 starting, 1 spinning, 2 stop, -1 could not pin
    std::thread spinner([&] {
        if (!pin_to(other)) {
            state.store(-1);
            return;
        }
        state.store(1);
        while (state.load(std::memory_order_relaxed) == 1) {
        }
    });
    while (state.load() == 0)
        std::this_thread::yield();
    if (state.load() != 1) {
        spinner.join();
        return std::nullopt;
    }
    const double ns = loop_ns_per_step();
    state.store(2);
    spinner.join();
    return ns;
}

double median_of(std::array<double, kPairs> v) {
    std::sort(v.begin(), v.end());
    return v[kPairs / 2];
}

}  // namespace

std::optional<CpuSharing> measure_cpu_sharing() {
    const std::optional<std::array<int, 2>> cpus = first_two_cpus();
    if (!cpus) return std::nullopt;
    std::optional<CpuSharing> result;
    std::thread measurer([&] {
        if (!pin_to((*cpus)[0])) return;
        std::array<double, kPairs> alone{};
        std::array<double, kPairs> beside{};
        for (std::size_t i = 0; i < kPairs; ++i) {
            alone[i] = loop_ns_per_step();
            const std::optional<double> ns = loop_beside_spinner((*cpus)[1]);
            if (!ns) return;
            beside[i] = *ns;
        }
        result = CpuSharing{(*cpus)[0], (*cpus)[1], median_of(beside) / median_of(alone)};
    });
    measurer.join();
    return result;
}

nlohmann::json cpu_sharing_json(const std::optional<CpuSharing>& before,
                                const std::optional<CpuSharing>& after) {
    if (!before || !after) return nullptr;
    return {
        {"cpus", {before->first, before->second}}, {"before", before->slowdown}, {"after", after->slowdown}};
}

void print_cpu_sharing(std::ostream& out, const nlohmann::json& cpu_sharing) {
    if (!cpu_sharing.is_object()) return;
    char line[256];
    std::snprintf(
        line, sizeof line,
        "a loop on CPU %d takes %.1fx as long while CPU %d is busy before the sweep, %.1fx after (2x or "
        "more: the two share one CPU's time, and end-to-end figures are not comparable)\n",
        cpu_sharing.at("cpus").at(0).get<int>(), cpu_sharing.at("before").get<double>(),
        cpu_sharing.at("cpus").at(1).get<int>(), cpu_sharing.at("after").get<double>());
    out << line;
}

}  // namespace pto::bench
