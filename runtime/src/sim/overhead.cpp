// measure_overhead: a sweep over a timeline's change points (ready blocks, dispatches, core starts and
// ends) that measures how long each engine had an idle core while work for it waited (simulate.h).
#include <algorithm>
#include <string>
#include <vector>

#include "pto/runtime/detail/throw.h"
#include "pto/runtime/simulate.h"

namespace pto {
namespace {

constexpr std::uint32_t kCoreBase = 3;  // Delta::what: 0..2 = ready blocks of AIC/AIV/MIX, 3+ = core busy

struct Delta {
    std::int64_t time_ns;
    std::uint32_t what;
    std::int64_t d;
};

/// SeriesWriter: appends step samples, merging samples at one instant and skipping unchanged values.
struct SeriesWriter {
    CounterSeries* series = nullptr;
    void sample(std::int64_t t, double v) {
        std::vector<CounterSample>& s = series->samples;
        if (!s.empty() && s.back().time_ns == t) {
            s.back().value = v;
            if (s.size() >= 2 && s[s.size() - 2].value == v) s.pop_back();
            return;
        }
        if (!s.empty() && s.back().value == v) return;
        s.push_back(CounterSample{t, v});
    }
};

}  // namespace

OverheadShares measure_overhead(std::span<const SubtaskRecord> timeline, std::span<const ReadyMark> ready,
                                const RuntimeConfig& m, std::int64_t makespan_ns,
                                std::vector<CounterSeries>* counters) {
    m.validate();
    const std::uint32_t aic = m.aic_count();
    const std::uint32_t total = aic + m.aiv_count();

    std::vector<Delta> deltas;
    deltas.reserve(ready.size() + timeline.size() * 3);
    for (const ReadyMark& r : ready)
        if (static_cast<int>(r.core) < kDispatchCoreTypes)
            deltas.push_back(
                Delta{r.ready_ns, static_cast<std::uint32_t>(r.core), static_cast<std::int64_t>(r.blocks)});
    for (const SubtaskRecord& r : timeline) {
        if (r.core >= total) [[unlikely]]
            detail::throw_error(ErrorCode::InvalidArgument,
                                "measure_overhead: subtask of task " + std::to_string(r.task.value) +
                                    " is on core " + std::to_string(r.core) + " but the machine has " +
                                    std::to_string(total) + " cores");
        deltas.push_back(Delta{r.start_ns, kCoreBase + r.core, +1});
        deltas.push_back(Delta{r.end_ns, kCoreBase + r.core, -1});
        // A block (all lanes of a MIX block) stops being ready when it is written to its core(s).
        if (r.lane == 0 && static_cast<int>(r.core_type) < kDispatchCoreTypes)
            deltas.push_back(Delta{r.dispatch_ns, static_cast<std::uint32_t>(r.core_type), -1});
    }
    std::stable_sort(deltas.begin(), deltas.end(),
                     [](const Delta& a, const Delta& b) { return a.time_ns < b.time_ns; });

    std::int64_t ready_blocks[kDispatchCoreTypes] = {};
    std::vector<std::int32_t> busy(total, 0);
    std::vector<std::uint32_t> cluster_busy(m.cluster_count, 0);
    std::uint32_t busy_aic = 0;
    std::uint32_t busy_aiv = 0;
    std::uint32_t idle_clusters = m.cluster_count;
    auto cluster_of = [&](std::uint32_t core) {
        return core < aic ? core / m.aic_per_cluster : (core - aic) / m.aiv_per_cluster;
    };

    // flags: aic, aiv, mix, all, has at the current state.
    bool flags[5] = {};
    auto evaluate = [&] {
        const bool r_aic = ready_blocks[0] > 0;
        const bool r_aiv = ready_blocks[1] > 0;
        const bool r_mix = ready_blocks[2] > 0;
        const bool mix = r_mix && idle_clusters > 0;
        const bool ov_aic = (r_aic && busy_aic < aic) || mix;
        const bool ov_aiv = (r_aiv && busy_aiv < total - aic) || mix;
        const bool has_aic = r_aic || r_mix;
        const bool has_aiv = r_aiv || r_mix;
        flags[0] = ov_aic;
        flags[1] = ov_aiv;
        flags[2] = mix;
        flags[3] = ov_aic && ov_aiv;
        flags[4] = (has_aic || has_aiv) && (!has_aic || ov_aic) && (!has_aiv || ov_aiv);
    };

    static const char* const kNames[10] = {
        "overhead AIC",     "overhead AIV",     "overhead MIX",     "overhead all",   "overhead has",
        "ready AIC blocks", "ready AIV blocks", "ready MIX blocks", "idle AIC cores", "idle AIV cores"};
    SeriesWriter writers[10];
    if (counters != nullptr) {
        const std::size_t first = counters->size();
        for (const char* name : kNames)
            counters->push_back(CounterSeries{name, {}});
        for (std::size_t k = 0; k < 10; ++k)
            writers[k].series = &(*counters)[first + k];
    }
    auto emit = [&](std::int64_t t) {
        if (counters == nullptr) return;
        for (int k = 0; k < 5; ++k)
            writers[k].sample(t, flags[k] ? 1.0 : 0.0);
        for (int k = 0; k < 3; ++k)
            writers[5 + k].sample(t, static_cast<double>(std::max<std::int64_t>(0, ready_blocks[k])));
        writers[8].sample(t, static_cast<double>(aic - busy_aic));
        writers[9].sample(t, static_cast<double>(total - aic - busy_aiv));
    };

    std::int64_t overhead_ns[5] = {};
    // Lost core-nanoseconds per engine: min(blocks it could start, its idle cores) over time. A ready MIX
    // block is startable only on a wholly idle cluster, where it takes one AIC and aiv_per_cluster AIVs.
    double lost_core_ns[2] = {};
    std::int64_t prev = 0;
    evaluate();
    emit(0);
    auto accumulate = [&](std::int64_t until) {
        const std::int64_t t = std::min(until, makespan_ns);
        if (t <= prev) return;
        for (int k = 0; k < 5; ++k)
            if (flags[k]) overhead_ns[k] += t - prev;
        const std::int64_t mix_startable =
            std::min<std::int64_t>(std::max<std::int64_t>(0, ready_blocks[2]), idle_clusters);
        const std::int64_t aic_startable = std::max<std::int64_t>(0, ready_blocks[0]) + mix_startable;
        const std::int64_t aiv_startable =
            std::max<std::int64_t>(0, ready_blocks[1]) + mix_startable * m.aiv_per_cluster;
        const double dt = static_cast<double>(t - prev);
        lost_core_ns[0] += dt * static_cast<double>(std::min<std::int64_t>(aic_startable, aic - busy_aic));
        lost_core_ns[1] +=
            dt * static_cast<double>(std::min<std::int64_t>(aiv_startable, total - aic - busy_aiv));
        prev = t;
    };
    for (std::size_t i = 0; i < deltas.size();) {
        const std::int64_t t = deltas[i].time_ns;
        accumulate(t);
        for (; i < deltas.size() && deltas[i].time_ns == t; ++i) {
            const Delta& d = deltas[i];
            if (d.what < kCoreBase) {
                ready_blocks[d.what] += d.d;
                continue;
            }
            const std::uint32_t core = d.what - kCoreBase;
            const bool was_busy = busy[core] > 0;
            busy[core] += static_cast<std::int32_t>(d.d);
            const bool is_busy = busy[core] > 0;
            if (was_busy == is_busy) continue;
            std::uint32_t& engine_busy = core < aic ? busy_aic : busy_aiv;
            std::uint32_t& cb = cluster_busy[cluster_of(core)];
            if (is_busy) {
                ++engine_busy;
                if (cb++ == 0) --idle_clusters;
            } else {
                --engine_busy;
                if (--cb == 0) ++idle_clusters;
            }
        }
        evaluate();
        emit(std::max<std::int64_t>(t, 0));
    }
    accumulate(makespan_ns);

    OverheadShares shares;
    if (makespan_ns <= 0) return shares;
    const double span = static_cast<double>(makespan_ns);
    shares.aic = static_cast<double>(overhead_ns[0]) / span;
    shares.aiv = static_cast<double>(overhead_ns[1]) / span;
    shares.mix = static_cast<double>(overhead_ns[2]) / span;
    shares.all = static_cast<double>(overhead_ns[3]) / span;
    shares.has = static_cast<double>(overhead_ns[4]) / span;
    shares.capacity_aic = lost_core_ns[0] / (span * static_cast<double>(aic));
    shares.capacity_aiv = lost_core_ns[1] / (span * static_cast<double>(total - aic));
    return shares;
}

}  // namespace pto
