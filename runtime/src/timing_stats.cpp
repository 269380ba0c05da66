// Per-kernel and per-core-type duration statistics of a subtask timeline, as in the seed's tables (MIX
// instances last as long as their longest lane), and a text table writer. See export.h for definitions.
#include "pto/runtime/export.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <ostream>
#include <tuple>

#include "kernel_names.h"

namespace pto {
namespace {

/// nearest_index: sorted[round-half-even(p * (n - 1))]; `sorted` is non-empty.
double nearest_index(const std::vector<double>& sorted, double p) {
    const double pos = p * static_cast<double>(sorted.size() - 1);
    // nearbyint rounds halves to even in the default rounding mode, as numpy's "nearest" does.
    const auto i = static_cast<std::size_t>(std::nearbyint(pos));
    return sorted[std::min(i, sorted.size() - 1)];
}

double duration_us(const SubtaskRecord& r) {
    return static_cast<double>(r.end_ns - r.start_ns) / 1000.0;
}

/// Instance: one timed unit: a subtask, or a MIX block (longest lane).
struct Instance {
    FuncId func;
    CoreType core;
    double us;
};

std::vector<Instance> instances_of(std::span<const SubtaskRecord> records) {
    std::vector<Instance> out;
    // MIX lanes of one block are grouped by (task, block); the AIC lane (0) names the kernel.
    std::map<std::pair<std::uint64_t, std::uint32_t>, Instance> mix;
    for (const SubtaskRecord& r : records) {
        if (r.core_type != CoreType::MIX) {
            out.push_back(Instance{r.func, r.core_type, duration_us(r)});
            continue;
        }
        auto [it, inserted] =
            mix.try_emplace({r.task.value, r.block_idx}, Instance{r.func, CoreType::MIX, 0.0});
        it->second.us = std::max(it->second.us, duration_us(r));
        if (r.lane == 0) it->second.func = r.func;
    }
    for (const auto& [key, inst] : mix)
        out.push_back(inst);
    return out;
}

}  // namespace

TimingStats summarize_durations(std::vector<double> durations_us) {
    TimingStats s;
    s.instances = durations_us.size();
    if (durations_us.empty()) return s;
    std::sort(durations_us.begin(), durations_us.end());
    s.total_us = std::accumulate(durations_us.begin(), durations_us.end(), 0.0);
    s.mean_us = s.total_us / static_cast<double>(durations_us.size());
    s.min_us = durations_us.front();
    s.max_us = durations_us.back();
    s.median_us = nearest_index(durations_us, 0.5);
    s.p90_us = nearest_index(durations_us, 0.9);
    s.p99_us = nearest_index(durations_us, 0.99);
    return s;
}

std::vector<TimingStats> timing_by_kernel(const GraphRecord& graph, std::span<const SubtaskRecord> records) {
    std::map<std::tuple<std::uint16_t, std::uint8_t>, std::vector<double>> groups;
    for (const Instance& i : instances_of(records))
        groups[{i.func.value, static_cast<std::uint8_t>(i.core)}].push_back(i.us);
    const detail::KernelNames kernel_label(graph);
    std::vector<TimingStats> rows;
    for (auto& [key, durations] : groups) {
        TimingStats s = summarize_durations(std::move(durations));
        s.func = FuncId{std::get<0>(key)};
        s.core = static_cast<CoreType>(std::get<1>(key));
        s.label = kernel_label(s.func);
        rows.push_back(std::move(s));
    }
    return rows;
}

std::vector<TimingStats> timing_by_core_type(std::span<const SubtaskRecord> records) {
    std::vector<double> by_core[kDispatchCoreTypes];
    std::vector<double> all;
    for (const Instance& i : instances_of(records)) {
        if (static_cast<int>(i.core) < kDispatchCoreTypes) by_core[static_cast<int>(i.core)].push_back(i.us);
        all.push_back(i.us);
    }
    std::vector<TimingStats> rows;
    for (int c = 0; c < kDispatchCoreTypes; ++c) {
        if (by_core[c].empty()) continue;
        TimingStats s = summarize_durations(std::move(by_core[c]));
        s.core = static_cast<CoreType>(c);
        s.label = std::string(to_string(s.core));
        rows.push_back(std::move(s));
    }
    TimingStats total = summarize_durations(std::move(all));
    total.label = "all";
    rows.push_back(std::move(total));
    return rows;
}

void write_timing_table(std::ostream& out, std::span<const TimingStats> rows) {
    char line[256];
    std::snprintf(line, sizeof line, "%-24s %-4s %9s %12s %9s %9s %9s %9s %9s %9s\n", "kernel", "core",
                  "instances", "total_us", "mean", "min", "max", "median", "P90", "P99");
    out << line;
    for (const TimingStats& s : rows) {
        std::snprintf(line, sizeof line, "%-24.24s %-4s %9llu %12.1f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n",
                      s.label.c_str(), s.core == CoreType::None ? "" : std::string(to_string(s.core)).c_str(),
                      static_cast<unsigned long long>(s.instances), s.total_us, s.mean_us, s.min_us, s.max_us,
                      s.median_us, s.p90_us, s.p99_us);
        out << line;
    }
}

}  // namespace pto
