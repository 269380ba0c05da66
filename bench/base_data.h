// pto-bench --base-data and --emit-baseline (docs/base-data.md): compares a pto-bench/1 report with an
// external baseline file and writes such files. The bench's main and report printer call only this header.
#pragma once

#include "scaling_factors.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pto::bench {

inline constexpr std::string_view kBaselineFormat = "pto-bench-baseline";
inline constexpr int kBaselineVersion = 1;
inline constexpr std::string_view kVsBaseColumnTitle = "vs Base";
inline constexpr std::string_view kDefaultPrimaryMetric = "orch_ns_per_task";
/// kMaxBaselineDepth: objects and arrays in a baseline file nest at most this deep (real files: about 5).
inline constexpr std::size_t kMaxBaselineDepth = 64;

/// What a result field means to the comparison: the case name (matched first), a field of the record key,
/// or a metric together with the direction in which it improves.
enum class FieldKind { Case, Key, LowerIsBetter, HigherIsBetter };

/// One row of the field table: the name used in baseline files, the JSON pointer into a pto-bench/1 result,
/// the unit ("ns", "us", "ms" are convertible time units; empty for identity fields) and the kind.
struct ReportField {
    std::string_view name;
    std::string_view pointer;
    std::string_view unit;
    FieldKind kind;
};

/// report_fields: the one table of identity fields and metrics, in the order key differences are reported.
std::span<const ReportField> report_fields() noexcept;

/// find_metric: the metric a baseline name denotes, in any time-unit spelling ("orch_us_per_task" denotes
/// orch_ns_per_task, "makespan_ms" denotes makespan_us); nullptr when the name denotes no metric.
const ReportField* find_metric(std::string_view name) noexcept;

/// Why a result has no comparison. Checked in this order; see docs/base-data.md for each.
enum class MissReason { NoCase, NoKeyMatch, Ambiguous, NoMetric, InvalidBaseMetric, InvalidCurrentMetric };
inline constexpr std::size_t kMissReasonCount = 6;

/// to_string: the reason as written in JSON ("no_case", "no_key_match", "ambiguous", "no_metric",
/// "invalid_base_metric", "invalid_current_metric").
std::string_view to_string(MissReason reason) noexcept;

/// Replaces the current machine's identity, which otherwise comes from the report's `machine.vendor` and
/// `machine.platform` (the bench's --vendor / --platform options; tests).
struct MachineOverride {
    std::optional<std::string> vendor;
    std::optional<std::string> platform;
};

/// A loaded baseline, made by load_baseline() or parse_baseline(), whose validation apply_baseline()
/// relies on. When `error` is set the file was unusable: comparing then adds only a disabled `base_data`
/// summary. `warnings` holds every message for the user (one for an unusable file, one for a
/// malformed `_scaling_factors`).
struct Baseline {
    std::string path;  ///< absolute, as reported in `base_path`
    std::optional<std::string> error;
    const ReportField* primary_metric = nullptr;  ///< row of report_fields() when usable
    std::string primary_metric_name;              ///< as spelled in the file
    nlohmann::json records = nlohmann::json::array();
    ScalingFactors scaling;
    std::vector<std::string> warnings;

    [[nodiscard]] bool is_enabled() const noexcept { return !error.has_value() && primary_metric != nullptr; }
};

/// load_baseline: reads and validates the baseline at `path`. Never throws: a missing, unreadable, empty or
/// invalid file (bad JSON, duplicate object keys, nesting deeper than kMaxBaselineDepth, wrong format or
/// version, malformed records), or anything but a regular file of at most kMaxBaselineBytes
/// (input_files.h), yields a disabled Baseline with exactly one warning.
Baseline load_baseline(const std::string& path);

/// parse_baseline: as load_baseline, from text already read; `path` names it in messages and `base_path`.
Baseline parse_baseline(std::string_view text, const std::string& path);

/// What apply_baseline found, for a one-line summary on stderr.
struct CompareSummary {
    bool is_enabled = false;
    std::size_t result_count = 0;
    std::size_t matched_count = 0;
    std::array<std::size_t, kMissReasonCount> miss_counts{};  ///< indexed by MissReason
    std::optional<double> geomean_compared_speedup;
};

/// apply_baseline: adds a `vs_base` object to every entry of `report["results"]` and a top-level `base_data`
/// summary; no other field is touched. With a disabled baseline only a `base_data` summary naming the error
/// is added. The machine comes from `report["machine"]` unless overridden. Never throws; on an internal
/// failure the report is left as it was.
CompareSummary apply_baseline(nlohmann::json& report, const Baseline& baseline,
                              const MachineOverride& machine = {});

/// has_vs_base_column: whether the table shows a "vs Base" column, i.e. whether any result matched.
bool has_vs_base_column(const nlohmann::json& report);

/// format_vs_base_cell: the "vs Base" cell of one result: the compared speedup as "1.23x", or "N/A".
std::string format_vs_base_cell(const nlohmann::json& result);

/// Options of make_baseline. The primary metric may be named in any unit spelling.
struct EmitOptions {
    std::string primary_metric = std::string(kDefaultPrimaryMetric);
    MachineOverride machine;
};

struct EmittedBaseline {
    nlohmann::json baseline;
    std::vector<std::string> warnings;
};

/// make_baseline: a baseline file from a report: one record per result identity (case + key fields as
/// typed in the report), its usable metrics, and `_scaling_factors` naming this machine as the reference
/// (factor 1.0). A later result with an identity already emitted is skipped with a warning, so the file
/// never holds ambiguous records. Never throws.
EmittedBaseline make_baseline(const nlohmann::json& report, const EmitOptions& options = {});

/// try_write_baseline: make_baseline written to `path` (pretty-printed); false with a warning if the file
/// cannot be written. Warnings are appended to `warnings`.
bool try_write_baseline(const nlohmann::json& report, const std::string& path, const EmitOptions& options,
                        std::vector<std::string>& warnings);

/// What the bench's command line asked for (base_data_cli.h fills it from CLI11). An absent path means the
/// option was not given; an empty one was given and names no file.
struct BaseDataOptions {
    std::optional<std::string> base_data_path;      ///< --base-data FILE
    std::optional<std::string> emit_baseline_path;  ///< --emit-baseline FILE
    MachineOverride machine;                        ///< --vendor / --platform
    std::string emit_primary_metric = std::string(kDefaultPrimaryMetric);
};

/// run_base_data: the one call the bench's main makes after measuring: writes the baseline if asked (from
/// the report as measured), then compares if asked. Returns the warnings to print; with neither option
/// it returns none and leaves `report` untouched, byte for byte.
///
///     auto warnings = pto::bench::run_base_data(report, options);
///     for (const auto& w : warnings) std::cerr << "warning: " << w << '\n';
std::vector<std::string> run_base_data(nlohmann::json& report, const BaseDataOptions& options);

}  // namespace pto::bench
