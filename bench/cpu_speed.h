// CPU speed: how fast each CPU of the probes' pair (cpu_pair.h) runs a throughput-bound loop right now. On
// the 2-vCPU guests pto-bench usually runs on, one vCPU at times runs such code 1.5-1.7x slower than the
// other, for a minute or several, with no steal time reported, while a latency-bound chain (the CPU-sharing
// probe, cpu_sharing.h) runs at one speed on both. Serial orchestration figures taken on the slow vCPU
// meanwhile come out 1.5-1.7x those taken on the other. So the sweep measures both CPUs before each serial
// round and pins the round to the faster one (docs/bench.md, "Orchestration cost").
#pragma once

#include <array>
#include <optional>
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

namespace pto::bench {

/// CpuSpeeds: a throughput loop's ns per step on each of two CPUs, measured one after the other.
struct CpuSpeeds {
    std::array<int, 2> cpus{};
    std::array<double, 2> ns_per_step{};

    /// faster: the CPU that ran the loop faster; `current` instead when it is one of the two and took at
    /// most 5 % longer. A small margin: the loop reads a slowed vCPU's state low (1.17x while serial
    /// orchestration ran 1.37x slower there), and a needless move costs nothing but a warm cache.
    [[nodiscard]] int faster(int current) const;
};

/// measure_cpu_speeds: the loop (independent additions over an array that fits in L1, about 2 ms) three
/// times on each of the first two CPUs the calling thread may use, the median of each. Runs on a thread of
/// its own, so the caller's affinity is untouched. Nothing when fewer than two CPUs are usable or pinning
/// fails. Takes about 15 ms.
[[nodiscard]] std::optional<CpuSpeeds> measure_cpu_speeds();

/// SerialCpuRound: which CPU one serial round ran on and the speeds it was chosen by (none: not measured).
struct SerialCpuRound {
    std::optional<int> cpu;
    std::optional<CpuSpeeds> speeds;
};

/// serial_cpus_json: the report's `machine.serial_cpus`: {"cpus": [a, b], "rounds": [{"cpu": c,
/// "ns_per_step": [x, y]}, ...]}, one entry per serial round; null when no round had its speeds measured.
[[nodiscard]] nlohmann::json serial_cpus_json(const std::vector<SerialCpuRound>& rounds);

/// print_serial_cpus: one line for the text report (nothing for null): how many rounds ran on each CPU and
/// how much longer the other one took at most.
void print_serial_cpus(std::ostream& out, const nlohmann::json& serial_cpus);

}  // namespace pto::bench
