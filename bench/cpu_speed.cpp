// CPU speed (cpu_speed.h): a throughput-bound loop timed on each CPU of the probes' pair (cpu_pair.h).
#include "cpu_speed.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <thread>

#include "cpu_pair.h"

namespace pto::bench {
namespace {

constexpr auto kLoopTime = std::chrono::milliseconds(2);
constexpr std::size_t kTimings = 3;
/// 16 KiB: the loop reads L1 only, so it measures how much work the core gets through, which is what a
/// busy neighbour on the same physical core takes away, not the memory system.
constexpr std::size_t kWords = 2048;
/// A speed within this factor of the faster one counts as equal (CpuSpeeds::faster).
constexpr double kNoise = 1.05;

/// loop_ns_per_step: sweeps the array with four independent accumulators until kLoopTime has passed; the
/// time per element. Four chains of one-cycle operations keep several ALUs and the load ports busy, as
/// the orchestrator's own code does (it runs at about four instructions per cycle).
double loop_ns_per_step(const std::uint64_t* words) {
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + kLoopTime;
    std::uint64_t a = 0, b = 0, c = 0, d = 0;
    std::uint64_t steps = 0;
    auto now = start;
    do {
        for (std::size_t i = 0; i < kWords; i += 4) {
            a += words[i];
            b ^= words[i + 1];
            c += words[i + 2] << 1;
            d |= words[i + 3];
        }
        // Keeps the compiler from folding the sweeps together or dropping them.
        asm volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
        steps += kWords;
        now = std::chrono::steady_clock::now();
    } while (now < deadline);
    return std::chrono::duration<double, std::nano>(now - start).count() / static_cast<double>(steps);
}

double median_ns_per_step(const std::uint64_t* words) {
    std::array<double, kTimings> t{};
    for (double& v : t)
        v = loop_ns_per_step(words);
    std::sort(t.begin(), t.end());
    return t[kTimings / 2];
}

}  // namespace

int CpuSpeeds::faster(int current) const {
    const std::size_t best = ns_per_step[0] <= ns_per_step[1] ? 0 : 1;
    for (std::size_t i = 0; i < 2; ++i)
        if (cpus[i] == current && ns_per_step[i] <= ns_per_step[best] * kNoise) return current;
    return cpus[best];
}

std::optional<CpuSpeeds> measure_cpu_speeds() {
    const std::optional<std::array<int, 2>> cpus = first_two_cpus();
    if (!cpus) return std::nullopt;
    std::optional<CpuSpeeds> result;
    std::thread measurer([&] {
        std::array<std::uint64_t, kWords> words{};
        for (std::size_t i = 0; i < kWords; ++i)
            words[i] = i * 0x9e3779b97f4a7c15ull;
        CpuSpeeds s{*cpus, {}};
        for (std::size_t i = 0; i < 2; ++i) {
            if (!pin_to(s.cpus[i])) return;
            s.ns_per_step[i] = median_ns_per_step(words.data());
        }
        result = s;
    });
    measurer.join();
    return result;
}

nlohmann::json serial_cpus_json(const std::vector<SerialCpuRound>& rounds) {
    const auto measured = std::find_if(rounds.begin(), rounds.end(),
                                       [](const SerialCpuRound& r) { return r.speeds.has_value(); });
    if (measured == rounds.end()) return nullptr;
    nlohmann::json entries = nlohmann::json::array();
    for (const SerialCpuRound& r : rounds) {
        nlohmann::json e;
        e["cpu"] = r.cpu ? nlohmann::json(*r.cpu) : nlohmann::json();
        e["ns_per_step"] =
            r.speeds ? nlohmann::json{r.speeds->ns_per_step[0], r.speeds->ns_per_step[1]} : nlohmann::json();
        entries.push_back(std::move(e));
    }
    return {{"cpus", {measured->speeds->cpus[0], measured->speeds->cpus[1]}}, {"rounds", std::move(entries)}};
}

void print_serial_cpus(std::ostream& out, const nlohmann::json& serial_cpus) {
    if (!serial_cpus.is_object()) return;
    const int first = serial_cpus.at("cpus").at(0).get<int>();
    const int second = serial_cpus.at("cpus").at(1).get<int>();
    int on_first = 0, on_second = 0;
    double worst = 1.0;  // the largest ratio of the slower CPU's time to the faster's
    for (const nlohmann::json& r : serial_cpus.at("rounds")) {
        if (r.at("cpu") == first) ++on_first;
        if (r.at("cpu") == second) ++on_second;
        if (!r.at("ns_per_step").is_array()) continue;
        const double x = r.at("ns_per_step").at(0).get<double>();
        const double y = r.at("ns_per_step").at(1).get<double>();
        if (x > 0 && y > 0) worst = std::max(worst, std::max(x, y) / std::min(x, y));
    }
    char line[256];
    std::snprintf(
        line, sizeof line,
        "serial rounds on the faster CPU by a throughput loop: CPU %d in %d, CPU %d in %d; the other "
        "took up to %.1fx as long\n",
        first, on_first, second, on_second, worst);
    out << line;
}

}  // namespace pto::bench
