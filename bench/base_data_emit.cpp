// --emit-baseline (docs/base-data.md): turns a pto-bench/1 report into a baseline file that load_baseline()
// accepts, so two machines or two commits can be compared with --base-data. Identity rules come from
// base_data_match.
#include "base_data.h"

#include "base_data_match.h"

#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace pto::bench {
namespace {

using nlohmann::json;

constexpr std::string_view kWarningPrefix = "emit-baseline: ";

std::string warning(const std::string& text) {
    return std::string(kWarningPrefix) + text;
}

void emit_records(const json& report, const ReportField& primary, json& records,
                  std::vector<std::string>& warnings) {
    const json* results = detail::find_pointer(report, "/results");
    if (results == nullptr || !results->is_array()) {
        warnings.push_back(warning("the report has no results array; the baseline has no records"));
        return;
    }
    // (record index, result index) of each emitted record, to keep the file free of ambiguous duplicates.
    // Indices, not pointers: `records` grows while this list is in use.
    std::vector<std::pair<std::size_t, std::size_t>> emitted;
    for (std::size_t i = 0; i < results->size(); ++i) {
        const json& result = (*results)[i];
        const std::string where = "results[" + std::to_string(i) + "]";
        const json* case_node = detail::find_pointer(result, "/case");
        if (case_node == nullptr || !case_node->is_string()) {
            warnings.push_back(warning(where + " has no case; skipped"));
            continue;
        }
        json record = {
            {"case", *case_node}, {"key", detail::result_identity(result)}, {"metrics", json::object()}};
        bool is_repeat = false;
        for (const auto& [earlier, earlier_index] : emitted) {
            if (detail::strict_equal(records[earlier]["case"], record["case"]) &&
                detail::strict_equal(records[earlier]["key"], record["key"])) {
                warnings.push_back(warning(where + " repeats the identity of results[" +
                                           std::to_string(earlier_index) + "]; skipped"));
                is_repeat = true;
                break;
            }
        }
        if (is_repeat) continue;
        for (const auto& field : report_fields()) {
            if (field.kind != FieldKind::LowerIsBetter && field.kind != FieldKind::HigherIsBetter) continue;
            const json* value = detail::find_pointer(result, field.pointer);
            // Copied as typed; unusable values are left out so the file never carries a broken metric.
            if (value != nullptr && detail::usable_number(*value)) {
                record["metrics"][std::string(field.name)] = *value;
            }
        }
        if (!record["metrics"].contains(std::string(primary.name))) {
            warnings.push_back(warning(where + " has no usable " + std::string(primary.name) +
                                       "; comparing against it will give no_metric"));
        }
        records.push_back(std::move(record));
        emitted.emplace_back(records.size() - 1, i);
    }
}

}  // namespace

EmittedBaseline make_baseline(const json& report, const EmitOptions& options) {
    EmittedBaseline out;
    try {
        const ReportField* primary = find_metric(options.primary_metric);
        if (primary == nullptr) {
            out.warnings.push_back(warning("\"" + options.primary_metric +
                                           "\" is not a pto-bench metric; using " +
                                           std::string(kDefaultPrimaryMetric)));
            primary = find_metric(kDefaultPrimaryMetric);
        }
        json baseline = {{"format", kBaselineFormat},
                         {"version", kBaselineVersion},
                         {"primary_metric", primary->name},
                         {"records", json::array()}};
        json source = json::object();
        for (const char* name : {"schema", "machine"}) {
            if (report.is_object() && report.contains(name)) source[name] = report[name];
        }
        baseline["source"] = std::move(source);
        emit_records(report, *primary, baseline["records"], out.warnings);

        // This machine is the reference: comparing on it needs no correction (factor 1.0). Authors of
        // cross-chip comparisons add `chips` entries for the other platforms.
        const detail::MachineIdentity machine = detail::current_machine(report, options.machine);
        if (!machine.vendor.empty() && !machine.platform.empty()) {
            baseline["_scaling_factors"] = {
                {"reference", {{"vendor", machine.vendor}, {"platform", machine.platform}}},
                {"chips", json::array()}};
        } else {
            out.warnings.push_back(
                warning("the machine's vendor or platform is unknown; written without _scaling_factors"));
        }
        out.baseline = std::move(baseline);
    } catch (const std::exception& error) {
        out.baseline = nullptr;
        out.warnings.push_back(warning(std::string("cannot build the baseline: ") + error.what()));
    }
    return out;
}

bool try_write_baseline(const json& report, const std::string& path, const EmitOptions& options,
                        std::vector<std::string>& warnings) {
    EmittedBaseline emitted = make_baseline(report, options);
    warnings.insert(warnings.end(), emitted.warnings.begin(), emitted.warnings.end());
    if (emitted.baseline.is_null()) return false;
    try {
        const std::string text = emitted.baseline.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
        std::ofstream file(path, std::ios::binary | std::ios::trunc);
        if (!file) {
            warnings.push_back(warning(path + ": cannot be opened for writing; no baseline written"));
            return false;
        }
        file << text;
        file.flush();
        if (!file) {
            warnings.push_back(warning(path + ": write error; the baseline may be incomplete"));
            return false;
        }
        return true;
    } catch (const std::exception& error) {
        warnings.push_back(warning(path + ": " + error.what()));
        return false;
    }
}

}  // namespace pto::bench
