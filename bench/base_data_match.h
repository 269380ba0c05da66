// Matching one pto-bench result against baseline records (docs/base-data.md): type-strict JSON equality, the
// first differing key path, and metric values read in the unit of the field table. Internal to
// base_data*.cpp.
#pragma once

#include "base_data.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pto::bench::detail {

/// strict_equal: deep equality where 4 != 4.0, true != 1 and "2" != 2, object key order is irrelevant and
/// array order is relevant. Signed and unsigned integers of equal value are equal (a parsed file yields
/// unsigned, C++ code building a report yields signed).
bool strict_equal(const nlohmann::json& a, const nlohmann::json& b);

/// first_key_difference: "key.sizes.batch: base 96 vs current 90" for the first field where a record key
/// and a result identity differ (identity fields in table order, then other names alphabetically), or
/// nullopt when they are strictly equal.
std::optional<std::string> first_key_difference(const nlohmann::json& base_key,
                                                const nlohmann::json& current_key);

/// count_key_differences: how many leaf fields differ; the record of a case with the fewest is the one
/// named in a no_key_match miss.
std::size_t count_key_differences(const nlohmann::json& base_key, const nlohmann::json& current_key);

/// result_identity: the `key` object of a result: each Key field of the table that the result carries, as
/// typed there. A field the result lacks stays absent (absent != null).
nlohmann::json result_identity(const nlohmann::json& result);

/// find_pointer: the value at a table pointer ("/sim/makespan_us") or nullptr. Never throws.
const nlohmann::json* find_pointer(const nlohmann::json& root, std::string_view pointer) noexcept;

/// usable_number: the value if it is a finite JSON number > 0 (booleans are not numbers).
std::optional<double> usable_number(const nlohmann::json& value) noexcept;

/// describe_value: compact JSON text of a value for messages, shortened past 48 characters.
std::string describe_value(const nlohmann::json& value);

/// The current machine's vendor and platform: the override where given, else the report's
/// `machine.vendor` / `machine.platform` strings, else empty.
struct MachineIdentity {
    std::string vendor;
    std::string platform;
};
MachineIdentity current_machine(const nlohmann::json& report, const MachineOverride& override);

/// A metric read from a record's `metrics` object.
struct BaseMetric {
    enum class Status { Missing, Invalid, Usable };
    Status status = Status::Missing;
    std::string spelling;  ///< the name found in the record, e.g. "orch_us_per_task"
    double value = 0.0;    ///< converted to the unit of the table row when usable
    std::string detail;    ///< why it is missing or invalid
};

/// read_base_metric: the value of `metric` in `metrics`, trying spellings in the unit of the table row
/// first, then ns, us, ms. The first spelling present decides: if its value is unusable the metric is
/// Invalid even when another spelling would be usable (two disagreeing spellings mean a broken record).
BaseMetric read_base_metric(const nlohmann::json& metrics, const ReportField& metric);

}  // namespace pto::bench::detail
