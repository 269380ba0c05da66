// libFuzzer target (docs/base-data.md and docs/reliability.md): the --base-data loader fed arbitrary bytes.
// parse_baseline and apply_baseline promise never to throw; apply_baseline may only add `vs_base` to each
// result and a top-level `base_data`, never change a measured field. Any exception, crash, sanitizer report
// or changed field is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base_data.h"

namespace {

// A fixed pto-bench/1 report with results of every identity shape the matcher distinguishes.
constexpr std::string_view kReport = R"({
  "schema": "pto-bench/1",
  "machine": {"cpu": "AMD EPYC 7B12", "vendor": "amd", "platform": "AMD EPYC 7B12", "cores": 2},
  "results": [
    {"case": "qwen3", "mode": "manual", "tier": "non-spmd", "executor": "instant", "peer": null,
     "sizes": {"batch": 90, "hidden": 5120, "tiles": 6}, "tasks": 3096, "framework_tasks": 108,
     "subtasks": 3096, "edges": 20000, "framework_edges": 300,
     "orch_ns_per_task": {"median": 41.2, "min": 37.08, "max": 82.4},
     "e2e_ns_per_task": {"median": 150.0, "min": 135.0, "max": 300.0}, "tasks_per_s": 6600000.0,
     "sim": {"makespan_us": 2100.5, "lower_bound_us": 1890.45, "orch_busy_us": 300.0, "sched_busy_us": 800.0,
             "overhead_pct": {"aic": 1.0, "aiv": 2.0, "mix": 0.0, "all": 0.0, "has": 0.5}}},
    {"case": "qwen3", "mode": "tensormap", "tier": "spmd-4", "executor": "instant", "peer": null,
     "sizes": {"batch": 90, "hidden": 5120, "tiles": 6}, "tasks": 900, "framework_tasks": 0,
     "subtasks": 3096, "edges": 5000, "framework_edges": 0,
     "orch_ns_per_task": {"median": 80.0, "min": 70.0, "max": 120.0},
     "e2e_ns_per_task": {"median": 0, "min": 0, "max": 0}, "tasks_per_s": null},
    {"case": "paged_attention", "mode": "static-manual", "tier": null, "executor": "timed", "peer": "tbb",
     "sizes": {"batch": 4, "blocks": [1, 2, 3]}, "tasks": 1920, "framework_tasks": 4, "subtasks": 1920,
     "edges": 3800, "framework_edges": 8, "orch_ns_per_task": {"median": 12.5, "min": 11.0, "max": 30.0},
     "e2e_ns_per_task": {"median": 200.0, "min": 180.0, "max": 400.0}, "tasks_per_s": 5000000.0,
     "ratio": 3.5}
  ]
})";

[[noreturn]] void bug(const char* what, const std::string& detail = {}) {
    std::fprintf(stderr, "fuzz_base_data: %s %s\n", what, detail.c_str());
    std::abort();
}

const nlohmann::json& report() {
    static const nlohmann::json r = nlohmann::json::parse(kReport);
    return r;
}

/// without_comparison: the report with what apply_baseline may add removed.
nlohmann::json without_comparison(nlohmann::json r) {
    r.erase("base_data");
    for (auto& result : r["results"])
        result.erase("vs_base");
    return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const pto::bench::Baseline baseline = pto::bench::parse_baseline(text, "/fuzz/baseline.json");
        if (!baseline.is_enabled() && baseline.warnings.empty()) bug("a disabled baseline without a warning");
        nlohmann::json r = report();
        const pto::bench::CompareSummary summary = pto::bench::apply_baseline(r, baseline);
        if (without_comparison(r) != report()) bug("apply_baseline changed a measured field", r.dump());
        if (!r.contains("base_data")) bug("no base_data summary");
        if (summary.matched_count > summary.result_count) bug("more matches than results");
        const bool column = pto::bench::has_vs_base_column(r);
        if (column != (summary.matched_count > 0)) bug("vs Base column disagrees with the match count");
        for (const auto& result : r["results"])
            (void)pto::bench::format_vs_base_cell(result);
        // The emitter must accept whatever the comparison produced.
        (void)pto::bench::make_baseline(r);
    } catch (const std::exception& e) {
        bug("exception escaped:", e.what());
    }
    return 0;
}
