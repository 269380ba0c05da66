// Comparing a pto-bench/1 report with a loaded baseline (docs/base-data.md): per-result vs_base, the
// base_data summary, the "vs Base" column, and run_base_data() for the bench's main. Loading is in
// base_data_load.cpp.
#include "base_data.h"

#include "base_data_match.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace pto::bench {
namespace {

using nlohmann::json;

using CaseIndex = std::map<std::string, std::vector<std::size_t>>;

struct Outcome {
    json vs_base;
    std::optional<MissReason> miss;
    double raw_ratio = 0.0;
    double compared_speedup = 0.0;
    bool has_factor = false;
};

CaseIndex index_by_case(const json& records) {
    CaseIndex index;
    for (std::size_t i = 0; i < records.size(); ++i) {
        index[records.at(i).at("case").get<std::string>()].push_back(i);
    }
    return index;
}

// "/sim/makespan_us" -> "sim.makespan_us", for messages.
std::string dotted(std::string_view pointer) {
    std::string out(pointer.substr(1));
    for (char& c : out) {
        if (c == '/') c = '.';
    }
    return out;
}

bool is_higher_better(const ReportField& metric) {
    return metric.kind == FieldKind::HigherIsBetter;
}

// Every vs_base carries the same fields, null where they do not apply, so readers need no presence checks.
json vs_base_skeleton(const Baseline& baseline) {
    const ReportField& metric = *baseline.primary_metric;
    return json{
        {"matched", false},           {"reason", nullptr},           {"detail", nullptr},
        {"base_path", baseline.path}, {"record_index", nullptr},     {"record_key", nullptr},
        {"metric", metric.name},      {"unit", metric.unit},         {"base_metric", nullptr},
        {"base_value", nullptr},      {"current_value", nullptr},    {"raw_ratio", nullptr},
        {"factor", nullptr},          {"factor_source", nullptr},    {"factor_chip", nullptr},
        {"factor_note", nullptr},     {"compared_speedup", nullptr},
    };
}

// The record a result is compared with, or why there is none. `shown` is the record named in vs_base: the
// match, or on no_key_match the closest record of the case.
struct RecordChoice {
    std::optional<std::size_t> match;
    std::optional<std::size_t> shown;
    std::optional<MissReason> miss;
    std::string detail;
};

RecordChoice choose_record(const json& result, const Baseline& baseline, const CaseIndex& index) {
    RecordChoice choice;
    const json* case_node = detail::find_pointer(result, "/case");
    if (case_node == nullptr || !case_node->is_string()) {
        choice.miss = MissReason::NoCase;
        choice.detail = "the result has no case";
        return choice;
    }
    const auto candidates = index.find(case_node->get<std::string>());
    if (candidates == index.end()) {
        choice.miss = MissReason::NoCase;
        choice.detail = "no record of case " + case_node->dump();
        return choice;
    }

    // Keys only: metrics are not looked at until exactly one record is left, so a duplicate record with a
    // broken metric still makes the result ambiguous instead of silently picking the other
    // (docs/base-data.md).
    const json identity = detail::result_identity(result);
    std::vector<std::size_t> matches;
    for (const std::size_t i : candidates->second) {
        if (detail::strict_equal(baseline.records.at(i).at("key"), identity)) matches.push_back(i);
    }
    if (matches.size() == 1) {
        choice.match = choice.shown = matches.front();
        return choice;
    }
    if (matches.size() > 1) {
        choice.miss = MissReason::Ambiguous;
        choice.detail = "records";
        for (std::size_t k = 0; k < matches.size(); ++k) {
            choice.detail += (k == 0 ? " " : ", ") + std::to_string(matches[k]);
        }
        choice.detail += " all match this result";
        return choice;
    }
    std::size_t closest = candidates->second.front();
    std::size_t fewest = detail::count_key_differences(baseline.records.at(closest).at("key"), identity);
    for (const std::size_t i : candidates->second) {
        const std::size_t differences =
            detail::count_key_differences(baseline.records.at(i).at("key"), identity);
        if (differences < fewest) {
            closest = i;
            fewest = differences;
        }
    }
    choice.shown = closest;
    choice.miss = MissReason::NoKeyMatch;
    choice.detail =
        detail::first_key_difference(baseline.records.at(closest).at("key"), identity).value_or("key");
    return choice;
}

// Fills raw_ratio, the factor fields and compared_speedup of a matched result.
void apply_ratio(Outcome& out, const Baseline& baseline, const json& record, double raw,
                 const detail::MachineIdentity& machine) {
    json& vs = out.vs_base;
    const json* bottleneck = detail::find_pointer(record, "/bottleneck");
    const FactorChoice choice =
        choose_factor(baseline.scaling, machine.vendor, machine.platform,
                      bottleneck != nullptr && bottleneck->is_string() ? bottleneck->get<std::string>() : "");
    double compared = raw;
    std::string note = choice.note;
    if (choice.factor) {
        const double scaled = raw / *choice.factor;
        if (std::isfinite(scaled) && scaled > 0.0) {
            compared = scaled;
            out.has_factor = true;
            vs["factor"] = *choice.factor;
            vs["factor_source"] = choice.source;
        } else {
            note = "factor " + detail::describe_value(*choice.factor) +
                   " puts the speedup out of range; unscaled";
        }
    }
    if (!choice.chip.empty()) vs["factor_chip"] = choice.chip;
    if (!note.empty()) vs["factor_note"] = note;
    vs["matched"] = true;
    vs["raw_ratio"] = raw;
    vs["compared_speedup"] = compared;
    out.raw_ratio = raw;
    out.compared_speedup = compared;
}

Outcome compare_result(const json& result, const Baseline& baseline, const CaseIndex& index,
                       const detail::MachineIdentity& machine) {
    const ReportField& metric = *baseline.primary_metric;
    Outcome out{vs_base_skeleton(baseline)};
    json& vs = out.vs_base;
    auto miss = [&out, &vs](MissReason reason, std::string detail_text) {
        vs["reason"] = to_string(reason);
        vs["detail"] = std::move(detail_text);
        out.miss = reason;
        return out;
    };

    const json* current_node = detail::find_pointer(result, metric.pointer);
    // A double and a flag rather than std::optional<double>, on which g++ 12 -O3 warns maybe-uninitialized.
    const std::optional<double> current_read =
        current_node ? detail::usable_number(*current_node) : std::nullopt;
    const bool has_current = current_read.has_value();
    const double current = current_read.value_or(0.0);
    if (has_current) vs["current_value"] = current;

    RecordChoice choice = choose_record(result, baseline, index);
    if (choice.shown) {
        vs["record_index"] = *choice.shown;
        vs["record_key"] = baseline.records.at(*choice.shown).at("key");
    }
    if (choice.miss) return miss(*choice.miss, std::move(choice.detail));

    const json& record = baseline.records.at(*choice.match);
    const detail::BaseMetric base = detail::read_base_metric(record.at("metrics"), metric);
    if (!base.spelling.empty()) vs["base_metric"] = base.spelling;
    if (base.status == detail::BaseMetric::Status::Missing) return miss(MissReason::NoMetric, base.detail);
    if (base.status == detail::BaseMetric::Status::Invalid) {
        return miss(MissReason::InvalidBaseMetric, base.detail);
    }
    vs["base_value"] = base.value;
    if (!has_current) {
        const std::string where = dotted(metric.pointer);
        return miss(MissReason::InvalidCurrentMetric,
                    current_node == nullptr ? "the result has no " + where
                                            : where + " is " + detail::describe_value(*current_node) +
                                                  ", not a finite number > 0");
    }
    // Both values are finite and > 0, but their quotient can still overflow or underflow the double range.
    const double raw = is_higher_better(metric) ? current / base.value : base.value / current;
    if (!std::isfinite(raw) || raw <= 0.0) {
        return miss(MissReason::InvalidBaseMetric, "the ratio of " + detail::describe_value(base.value) +
                                                       " to " + detail::describe_value(current) +
                                                       " is out of range");
    }
    apply_ratio(out, baseline, record, raw, machine);
    return out;
}

json nullable(const std::string& text) {
    return text.empty() ? json(nullptr) : json(text);
}

json geomean_or_null(double log_sum, std::size_t count) {
    return count == 0 ? json(nullptr) : json(std::exp(log_sum / static_cast<double>(count)));
}

CompareSummary compare_into(json& report, const Baseline& baseline, const MachineOverride& machine_override) {
    CompareSummary summary;
    if (!baseline.is_enabled() || !baseline.records.is_array()) {
        const std::string error = baseline.error.value_or("the baseline was not loaded by load_baseline");
        report["base_data"] = json{{"path", baseline.path}, {"enabled", false}, {"error", error}};
        return summary;
    }
    summary.is_enabled = true;
    const ReportField& metric = *baseline.primary_metric;
    const detail::MachineIdentity machine = detail::current_machine(report, machine_override);
    const CaseIndex index = index_by_case(baseline.records);

    double log_compared = 0.0;
    double log_raw = 0.0;
    std::size_t factors_applied = 0;
    if (const auto results = report.find("results"); results != report.end() && results->is_array()) {
        for (auto& result : *results) {
            if (!result.is_object()) continue;
            Outcome outcome = compare_result(result, baseline, index, machine);
            ++summary.result_count;
            if (outcome.miss) {
                ++summary.miss_counts[static_cast<std::size_t>(*outcome.miss)];
            } else {
                ++summary.matched_count;
                log_compared += std::log(outcome.compared_speedup);
                log_raw += std::log(outcome.raw_ratio);
                factors_applied += outcome.has_factor ? 1 : 0;
            }
            result["vs_base"] = std::move(outcome.vs_base);
        }
    }
    json misses = json::object();
    for (std::size_t r = 0; r < kMissReasonCount; ++r) {
        misses[std::string(to_string(static_cast<MissReason>(r)))] = summary.miss_counts[r];
    }
    const json geomean_compared = geomean_or_null(log_compared, summary.matched_count);
    if (geomean_compared.is_number()) summary.geomean_compared_speedup = geomean_compared.get<double>();
    report["base_data"] =
        json{{"path", baseline.path},
             {"enabled", true},
             {"primary_metric", baseline.primary_metric_name},
             {"metric", metric.name},
             {"unit", metric.unit},
             {"direction", is_higher_better(metric) ? "higher_is_better" : "lower_is_better"},
             {"records", baseline.records.size()},
             {"results", summary.result_count},
             {"matched", summary.matched_count},
             {"misses", std::move(misses)},
             {"geomean_compared_speedup", geomean_compared},
             {"geomean_raw_ratio", geomean_or_null(log_raw, summary.matched_count)},
             {"scaling",
              {{"enabled", baseline.scaling.is_enabled},
               {"reason", nullable(baseline.scaling.disabled_reason)},
               {"vendor", nullable(machine.vendor)},
               {"platform", nullable(machine.platform)},
               {"factors_applied", factors_applied}}}};
    return summary;
}

/// with_valid_utf8: replaces invalid UTF-8 in every string of `node` by U+FFFD. Paths, --vendor and
/// --platform values and messages quoting a broken file reach the summary as raw bytes, and a strict
/// json::dump of the report would throw on them.
void with_valid_utf8(json& node) {
    if (node.is_string()) {
        // Valid text dumps the same either way; invalid bytes are dropped by one and replaced by the other.
        const std::string replaced = node.dump(-1, ' ', false, json::error_handler_t::replace);
        if (replaced != node.dump(-1, ' ', false, json::error_handler_t::ignore))
            node = json::parse(replaced);
    } else if (node.is_structured()) {
        for (json& child : node)
            with_valid_utf8(child);  // depth bounded: the summary's own nesting plus kMaxBaselineDepth
    }
}

}  // namespace

CompareSummary apply_baseline(json& report, const Baseline& baseline, const MachineOverride& machine) {
    if (!report.is_object()) return CompareSummary{};
    // Work on a copy so that a failure half-way leaves the caller's report exactly as measured.
    try {
        json updated = report;
        const CompareSummary summary = compare_into(updated, baseline, machine);
        with_valid_utf8(updated["base_data"]);
        if (updated.contains("results") && updated["results"].is_array())
            for (json& result : updated["results"])
                if (result.is_object() && result.contains("vs_base")) with_valid_utf8(result["vs_base"]);
        report = std::move(updated);
        return summary;
    } catch (const std::exception&) {
        return CompareSummary{};
    }
}

bool has_vs_base_column(const json& report) {
    const json* results = detail::find_pointer(report, "/results");
    if (results == nullptr || !results->is_array()) return false;
    for (const auto& result : *results) {
        const json* matched = detail::find_pointer(result, "/vs_base/matched");
        if (matched != nullptr && matched->is_boolean() && matched->get<bool>()) return true;
    }
    return false;
}

std::string format_vs_base_cell(const json& result) {
    const json* matched = detail::find_pointer(result, "/vs_base/matched");
    const json* speedup = detail::find_pointer(result, "/vs_base/compared_speedup");
    if (matched == nullptr || !matched->is_boolean() || !matched->get<bool>() || speedup == nullptr) {
        return "N/A";
    }
    const std::optional<double> value = detail::usable_number(*speedup);
    if (!value) return "N/A";
    char cell[32];
    std::snprintf(cell, sizeof cell, "%.2fx", *value);
    return cell;
}

std::vector<std::string> run_base_data(json& report, const BaseDataOptions& options) {
    std::vector<std::string> warnings;
    // The baseline is written from the report as measured, before any vs_base is added.
    if (options.emit_baseline_path) {
        try_write_baseline(report, *options.emit_baseline_path,
                           EmitOptions{options.emit_primary_metric, options.machine}, warnings);
    }
    if (options.base_data_path) {
        Baseline baseline = load_baseline(*options.base_data_path);
        warnings.insert(warnings.end(), baseline.warnings.begin(), baseline.warnings.end());
        apply_baseline(report, baseline, options.machine);
    }
    return warnings;
}

}  // namespace pto::bench
