// measure_head_tail: the per-subtask head and tail overheads of a timeline, summarised per kernel as the
// PTO2 tools report them (mean and P90).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "pto/runtime/simulate.h"

namespace pto {
namespace {

struct Samples {
    FuncId func;
    std::string name;
    std::vector<double> head_us;
    std::vector<double> tail_us;
};

double mean_of(const std::vector<double>& v) {
    if (v.empty()) return 0.0;
    double sum = 0.0;
    for (double x : v)
        sum += x;
    return sum / static_cast<double>(v.size());
}

/// p90_of: nearest rank, ceil(0.9 n)-th smallest.
double p90_of(std::vector<double> v) {
    if (v.empty()) return 0.0;
    const std::size_t rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(v.size())));
    const std::size_t k = std::max<std::size_t>(rank, 1) - 1;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
    return v[k];
}

KernelHeadTail summarise(const Samples& s) {
    KernelHeadTail k;
    k.func = s.func;
    k.name = s.name;
    k.subtasks = s.head_us.size();
    k.head_mean_us = mean_of(s.head_us);
    k.head_p90_us = p90_of(s.head_us);
    k.tail_mean_us = mean_of(s.tail_us);
    k.tail_p90_us = p90_of(s.tail_us);
    return k;
}

}  // namespace

std::vector<KernelHeadTail> measure_head_tail(std::span<const SubtaskRecord> timeline,
                                              const GraphRecord& graph) {
    // Walk each core's subtasks in start order: the core became free when the previous one there ended.
    std::vector<std::size_t> order(timeline.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const SubtaskRecord& x = timeline[a];
        const SubtaskRecord& y = timeline[b];
        if (x.core != y.core) return x.core < y.core;
        return x.start_ns < y.start_ns;
    });

    std::vector<Samples> per_kernel;
    std::vector<std::int64_t> slot_of;  // FuncId value -> index in per_kernel, or -1
    Samples all{FuncId{}, "all", {}, {}};
    std::vector<std::size_t> first_seen;  // timeline position of each kernel's first subtask, for the order
    std::uint32_t core = ~0u;
    std::int64_t core_free_ns = 0;
    for (std::size_t idx : order) {
        const SubtaskRecord& r = timeline[idx];
        if (r.core != core) {
            core = r.core;
            core_free_ns = 0;
        }
        const double head = static_cast<double>(r.start_ns - std::max(r.dispatch_ns, core_free_ns)) / 1000.0;
        const double tail = static_cast<double>(r.finish_ns - r.end_ns) / 1000.0;
        core_free_ns = r.end_ns;
        const std::uint32_t f = r.func.value;
        if (slot_of.size() <= f) slot_of.resize(f + 1u, -1);
        if (slot_of[f] < 0) {
            slot_of[f] = static_cast<std::int64_t>(per_kernel.size());
            const KernelSummary* k = graph.kernel(r.func);
            per_kernel.push_back(
                Samples{r.func, k != nullptr ? k->name : "func " + std::to_string(f), {}, {}});
            first_seen.push_back(idx);
        }
        Samples& s = per_kernel[static_cast<std::size_t>(slot_of[f])];
        first_seen[static_cast<std::size_t>(slot_of[f])] =
            std::min(first_seen[static_cast<std::size_t>(slot_of[f])], idx);
        s.head_us.push_back(head);
        s.tail_us.push_back(tail);
        all.head_us.push_back(head);
        all.tail_us.push_back(tail);
    }

    std::vector<std::size_t> kernels(per_kernel.size());
    for (std::size_t i = 0; i < kernels.size(); ++i)
        kernels[i] = i;
    std::sort(kernels.begin(), kernels.end(),
              [&](std::size_t a, std::size_t b) { return first_seen[a] < first_seen[b]; });
    std::vector<KernelHeadTail> out;
    out.reserve(per_kernel.size() + 1);
    for (std::size_t k : kernels)
        out.push_back(summarise(per_kernel[k]));
    out.push_back(summarise(all));
    return out;
}

}  // namespace pto
