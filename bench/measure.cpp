// Sample statistics, peak RSS and the machine description (from /proc/cpuinfo, the compiler and the
// build's configure-time definitions PTO_BENCH_FLAGS and PTO_GIT_SHA).
#include "measure.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <thread>

#ifndef PTO_BENCH_FLAGS
#define PTO_BENCH_FLAGS "unknown"
#endif
#include "git_sha.h"  // generated at build time: PTO_GIT_SHA

namespace pto::bench {
namespace {

std::string cpuinfo_field(const std::string& key) {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(key, 0) != 0) continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(" \t"));
        return value;
    }
    return "unknown";
}

std::string vendor_name(const std::string& vendor_id) {
    if (vendor_id == "AuthenticAMD") return "amd";
    if (vendor_id == "GenuineIntel") return "intel";
    return vendor_id;
}

std::string today() {
    const std::time_t now = std::time(nullptr);
    char buffer[16];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%d", std::gmtime(&now));
    return buffer;
}

/// locked_rmw_ns: median latency of one uncontended locked read-modify-write, each depending on the
/// previous one (a chain of fetch_adds on one atomic the thread owns): the unit price of the atomic steps
/// in the runtime's task protocol, and the figure that most explains differences between machines.
double locked_rmw_ns() {
    std::atomic<std::uint64_t> value{0};
    std::vector<double> samples;
    for (int round = 0; round < 21; ++round) {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < 20000; ++i)
            value.fetch_add(1, std::memory_order_relaxed);
        const auto end = std::chrono::steady_clock::now();
        samples.push_back(std::chrono::duration<double, std::nano>(end - start).count() / 20000.0);
    }
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
}

}  // namespace

Summary summarize(std::vector<double> samples) {
    Summary s;
    if (samples.empty()) return s;
    std::sort(samples.begin(), samples.end());
    const std::size_t n = samples.size();
    s.min = samples.front();
    s.max = samples.back();
    s.median = n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
    const auto at = [&](double p) {
        return samples[static_cast<std::size_t>(std::lround(p * static_cast<double>(n - 1)))];
    };
    s.p10 = at(0.1);
    s.p90 = at(0.9);
    s.samples = n;
    return s;
}

std::uint64_t peak_rss_bytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

nlohmann::json machine_description() {
    const std::string model = cpuinfo_field("model name");
    return {{"cpu", model},
            {"vendor", vendor_name(cpuinfo_field("vendor_id"))},
            {"platform", model},
            {"cores", std::thread::hardware_concurrency()},
            {"compiler", std::string("g++ ") + __VERSION__},
            {"flags", PTO_BENCH_FLAGS},
            {"git_sha", PTO_GIT_SHA},
            {"date", today()},
            {"locked_rmw_ns", locked_rmw_ns()}};
}

}  // namespace pto::bench
