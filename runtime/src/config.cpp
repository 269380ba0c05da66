// RuntimeConfig::validate: one check per knob, each error naming the knob, its value and the valid range;
// and the executor names.
#include "pto/runtime/config.h"

#include <bit>
#include <string>

#include "pto/runtime/detail/throw.h"

namespace pto {
namespace {

[[noreturn]] void bad_knob(const char* knob, const std::string& value, const char* rule) {
    detail::throw_error(ErrorCode::InvalidConfig,
                        std::string("RuntimeConfig::") + knob + " = " + value + ": " + rule);
}

void check_range(const char* knob, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
    if (v < lo || v > hi)
        bad_knob(knob, std::to_string(v),
                 ("must be in " + std::to_string(lo) + ".." + std::to_string(hi)).c_str());
}

void check_pow2(const char* knob, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
    check_range(knob, v, lo, hi);
    if (!std::has_single_bit(v)) bad_knob(knob, std::to_string(v), "must be a power of two");
}

}  // namespace

std::string_view to_string(Executor e) {
    switch (e) {
        case Executor::Instant:
            return "instant";
        case Executor::Timed:
            return "timed";
        case Executor::Compute:
            return "compute";
    }
    return "?";
}

std::optional<Executor> parse_executor(std::string_view name) {
    for (Executor e : {Executor::Instant, Executor::Timed, Executor::Compute})
        if (to_string(e) == name) return e;
    return std::nullopt;
}

std::string_view to_string(DependencyCheck c) {
    switch (c) {
        case DependencyCheck::Off:
            return "off";
        case DependencyCheck::Report:
            return "report";
        case DependencyCheck::Error:
            return "error";
    }
    return "?";
}

std::optional<DependencyCheck> parse_dependency_check(std::string_view text) {
    if (text == "0") return DependencyCheck::Off;
    if (text == "1") return DependencyCheck::Report;
    for (DependencyCheck c : {DependencyCheck::Off, DependencyCheck::Report, DependencyCheck::Error})
        if (to_string(c) == text) return c;
    return std::nullopt;
}

void RuntimeConfig::validate() const {
    // Enums first: a value outside the enumerators (a cast from a bad integer) would otherwise select no
    // executor loop and hang the first run.
    if (static_cast<unsigned>(executor) > static_cast<unsigned>(Executor::Compute))
        bad_knob("executor", std::to_string(static_cast<unsigned>(executor)),
                 "must be Executor::Instant, Executor::Timed or Executor::Compute");
    if (static_cast<unsigned>(orchestration) > static_cast<unsigned>(OrchestrationMode::Serial))
        bad_knob("orchestration", std::to_string(static_cast<unsigned>(orchestration)),
                 "must be OrchestrationMode::Concurrent or OrchestrationMode::Serial");
    check_range("cluster_count", cluster_count, 1, 4096);
    check_range("aic_per_cluster", aic_per_cluster, 1, 1);
    check_range("aiv_per_cluster", aiv_per_cluster, 1, 2);
    check_range("scheduler_threads", scheduler_threads, 1, cluster_count);
    check_range("scheduler_linger_us", scheduler_linger_us, 0, 10'000'000);
    check_pow2("window_tasks", window_tasks, 8, 1u << 24);
    check_range("heap_bytes", heap_bytes, 4096, 1ull << 40);
    check_pow2("edge_capacity", edge_capacity, 64, 1u << 26);
    if (argument_bytes != 0) check_range("argument_bytes", argument_bytes, 8192, 1ull << 40);
    check_pow2("tensormap_entries", tensormap_entries, 64, 1u << 26);
    if (!(timed_scale > 0.0 && timed_scale <= kMaxTimedScale))
        bad_knob("timed_scale", std::to_string(timed_scale), "must be > 0 and at most 1e6 (finite)");
    if (!(timed_jitter >= 0.0 && timed_jitter <= 1.0))
        bad_knob("timed_jitter", std::to_string(timed_jitter), "must be in 0..1");
    check_range("compute_threads", compute_threads, 0, 1024);
    if (!(compute_start_jitter_us >= 0.0 && compute_start_jitter_us <= 1e6))
        bad_knob("compute_start_jitter_us", std::to_string(compute_start_jitter_us), "must be in 0..1e6");
    if (static_cast<std::uint8_t>(check_dependencies) > static_cast<std::uint8_t>(DependencyCheck::Error))
        bad_knob("check_dependencies", std::to_string(static_cast<int>(check_dependencies)),
                 "must be Off, Report or Error");
}

}  // namespace pto
