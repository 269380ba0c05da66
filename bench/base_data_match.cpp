// The field table of --base-data and the matching rules of docs/base-data.md: type-strict key equality, first
// differing path, metric spellings by unit. Used by base_data.cpp (compare) and base_data_emit.cpp.
#include "base_data_match.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace pto::bench {
namespace {

using nlohmann::json;

// Case first, then the key fields in the order a difference is reported, then the metrics.
constexpr std::array<ReportField, 10> kReportFields{{
    {"case", "/case", "", FieldKind::Case},
    {"mode", "/mode", "", FieldKind::Key},
    {"tier", "/tier", "", FieldKind::Key},
    {"executor", "/executor", "", FieldKind::Key},
    {"peer", "/peer", "", FieldKind::Key},
    {"sizes", "/sizes", "", FieldKind::Key},
    {"orch_ns_per_task", "/orch_ns_per_task/median", "ns", FieldKind::LowerIsBetter},
    {"e2e_ns_per_task", "/e2e_ns_per_task/median", "ns", FieldKind::LowerIsBetter},
    {"tasks_per_s", "/tasks_per_s", "tasks/s", FieldKind::HigherIsBetter},
    {"makespan_us", "/sim/makespan_us", "us", FieldKind::LowerIsBetter},
}};

struct TimeUnit {
    std::string_view name;
    double ns;
};

// Order matters: after the metric's own unit, spellings are tried in this order (finest first).
constexpr std::array<TimeUnit, 3> kTimeUnits{{{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}}};

const TimeUnit* find_time_unit(std::string_view unit) noexcept {
    for (const auto& u : kTimeUnits) {
        if (u.name == unit) return &u;
    }
    return nullptr;
}

// The metric name with its unit token replaced: ("orch_ns_per_task", "ns", "us") -> "orch_us_per_task". The
// token is "_<unit>" followed by '_' or the end, so a unit-like fragment inside a word is never replaced.
std::string respell(std::string_view name, std::string_view unit, std::string_view new_unit) {
    std::string token = "_";
    token.append(unit);
    for (std::size_t pos = name.find(token); pos != std::string_view::npos; pos = name.find(token, pos + 1)) {
        const std::size_t end = pos + token.size();
        if (end == name.size() || name[end] == '_') {
            return std::string(name.substr(0, pos + 1)) + std::string(new_unit) +
                   std::string(name.substr(end));
        }
    }
    return std::string(name);
}

std::vector<std::pair<std::string, const TimeUnit*>> spellings_of(const ReportField& metric) {
    std::vector<std::pair<std::string, const TimeUnit*>> out;
    const TimeUnit* own = find_time_unit(metric.unit);
    if (own == nullptr) {
        out.emplace_back(std::string(metric.name), nullptr);
        return out;
    }
    out.emplace_back(std::string(metric.name), own);
    for (const auto& u : kTimeUnits) {
        if (&u != own) out.emplace_back(respell(metric.name, metric.unit, u.name), &u);
    }
    return out;
}

enum class JsonKind { Null, Boolean, Integer, Float, String, Array, Object, Other };

JsonKind kind_of(const json& v) noexcept {
    if (v.is_null()) return JsonKind::Null;
    if (v.is_boolean()) return JsonKind::Boolean;
    if (v.is_number_integer()) return JsonKind::Integer;  // signed and unsigned alike
    if (v.is_number_float()) return JsonKind::Float;
    if (v.is_string()) return JsonKind::String;
    if (v.is_array()) return JsonKind::Array;
    if (v.is_object()) return JsonKind::Object;
    return JsonKind::Other;
}

bool equal_integers(const json& a, const json& b) {
    const bool a_unsigned = a.is_number_unsigned();
    const bool b_unsigned = b.is_number_unsigned();
    if (a_unsigned == b_unsigned) {
        return a_unsigned ? a.get<std::uint64_t>() == b.get<std::uint64_t>()
                          : a.get<std::int64_t>() == b.get<std::int64_t>();
    }
    const std::int64_t s = a_unsigned ? b.get<std::int64_t>() : a.get<std::int64_t>();
    const std::uint64_t u = a_unsigned ? a.get<std::uint64_t>() : b.get<std::uint64_t>();
    return s >= 0 && static_cast<std::uint64_t>(s) == u;
}

bool is_identifier(std::string_view name) noexcept {
    if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
    for (const char c : name) {
        const bool ok =
            c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!ok) return false;
    }
    return true;
}

std::string member_path(const std::string& path, const std::string& name) {
    return is_identifier(name) ? path + "." + name : path + "[" + json(name).dump() + "]";
}

// Member names of two objects in report order: at the top level the table's key fields first, then every
// other name in alphabetical order (the order nlohmann keeps objects in).
std::vector<std::string> member_names(const json* base, const json* current, bool is_top) {
    std::vector<std::string> names;
    std::set<std::string> seen;
    if (is_top) {
        for (const auto& field : kReportFields) {
            if (field.kind != FieldKind::Key) continue;
            const std::string name(field.name);
            if (base->contains(name) || current->contains(name)) {
                names.push_back(name);
                seen.insert(name);
            }
        }
    }
    std::set<std::string> rest;
    for (const auto* object : {base, current}) {
        for (const auto& item : object->items()) {
            if (!seen.contains(item.key())) rest.insert(item.key());
        }
    }
    names.insert(names.end(), rest.begin(), rest.end());
    return names;
}

const json* member(const json* object, const std::string& name) {
    const auto it = object->find(name);
    return it == object->end() ? nullptr : &*it;
}

const json* element(const json* array, std::size_t index) {
    return index < array->size() ? &(*array)[index] : nullptr;
}

std::string describe_side(const json* value) {
    return value == nullptr ? "missing" : detail::describe_value(*value);
}

// Walks two values in report order; `on_leaf` sees each differing leaf path and returns true to stop.
template <typename OnLeaf>
bool walk_differences(const json* base, const json* current, const std::string& path, bool is_top,
                      OnLeaf& on_leaf) {
    if (base == nullptr && current == nullptr) return false;
    if (base == nullptr || current == nullptr || kind_of(*base) != kind_of(*current)) {
        return on_leaf(path, base, current);
    }
    if (base->is_object()) {
        for (const auto& name : member_names(base, current, is_top)) {
            if (walk_differences(member(base, name), member(current, name), member_path(path, name), false,
                                 on_leaf)) {
                return true;
            }
        }
        return false;
    }
    if (base->is_array()) {
        const std::size_t count = std::max(base->size(), current->size());
        for (std::size_t i = 0; i < count; ++i) {
            if (walk_differences(element(base, i), element(current, i), path + "[" + std::to_string(i) + "]",
                                 false, on_leaf)) {
                return true;
            }
        }
        return false;
    }
    return detail::strict_equal(*base, *current) ? false : on_leaf(path, base, current);
}

}  // namespace

std::span<const ReportField> report_fields() noexcept {
    return kReportFields;
}

const ReportField* find_metric(std::string_view name) noexcept {
    for (const auto& field : kReportFields) {
        if (field.kind != FieldKind::LowerIsBetter && field.kind != FieldKind::HigherIsBetter) continue;
        if (field.name == name) return &field;
        if (find_time_unit(field.unit) == nullptr) continue;
        for (const auto& u : kTimeUnits) {
            if (respell(field.name, field.unit, u.name) == name) return &field;
        }
    }
    return nullptr;
}

std::string_view to_string(MissReason reason) noexcept {
    switch (reason) {
        case MissReason::NoCase:
            return "no_case";
        case MissReason::NoKeyMatch:
            return "no_key_match";
        case MissReason::Ambiguous:
            return "ambiguous";
        case MissReason::NoMetric:
            return "no_metric";
        case MissReason::InvalidBaseMetric:
            return "invalid_base_metric";
        case MissReason::InvalidCurrentMetric:
            return "invalid_current_metric";
    }
    return "unknown";
}

namespace detail {

bool strict_equal(const json& a, const json& b) {
    const JsonKind kind = kind_of(a);
    if (kind != kind_of(b)) return false;
    switch (kind) {
        case JsonKind::Null:
            return true;
        case JsonKind::Boolean:
            return a.get<bool>() == b.get<bool>();
        case JsonKind::Integer:
            return equal_integers(a, b);
        case JsonKind::Float:
            return a.get<double>() == b.get<double>();
        case JsonKind::String:
            return a.get_ref<const std::string&>() == b.get_ref<const std::string&>();
        case JsonKind::Array:
            if (a.size() != b.size()) return false;
            for (std::size_t i = 0; i < a.size(); ++i) {
                if (!strict_equal(a[i], b[i])) return false;
            }
            return true;
        case JsonKind::Object:
            if (a.size() != b.size()) return false;
            for (const auto& item : a.items()) {
                const auto it = b.find(item.key());
                if (it == b.end() || !strict_equal(item.value(), *it)) return false;
            }
            return true;
        case JsonKind::Other:
            return a == b;
    }
    return false;
}

std::optional<std::string> first_key_difference(const json& base_key, const json& current_key) {
    std::optional<std::string> first;
    auto on_leaf = [&first](const std::string& path, const json* base, const json* current) {
        first = path + ": base " + describe_side(base) + " vs current " + describe_side(current);
        return true;
    };
    walk_differences(&base_key, &current_key, "key", true, on_leaf);
    return first;
}

std::size_t count_key_differences(const json& base_key, const json& current_key) {
    std::size_t count = 0;
    auto on_leaf = [&count](const std::string&, const json*, const json*) {
        ++count;
        return false;
    };
    walk_differences(&base_key, &current_key, "key", true, on_leaf);
    return count;
}

json result_identity(const json& result) {
    json key = json::object();
    for (const auto& field : kReportFields) {
        if (field.kind != FieldKind::Key) continue;
        if (const json* value = find_pointer(result, field.pointer)) key[std::string(field.name)] = *value;
    }
    return key;
}

const json* find_pointer(const json& root, std::string_view pointer) noexcept {
    const json* node = &root;
    while (!pointer.empty()) {
        pointer.remove_prefix(1);  // the '/' before each member name
        const std::size_t slash = pointer.find('/');
        const std::string_view name = pointer.substr(0, slash);
        if (!node->is_object()) return nullptr;
        const auto it = node->find(name);
        if (it == node->end()) return nullptr;
        node = &*it;
        pointer = slash == std::string_view::npos ? std::string_view() : pointer.substr(slash);
    }
    return node;
}

MachineIdentity current_machine(const json& report, const MachineOverride& override) {
    auto string_at = [&report](std::string_view pointer) {
        const json* value = find_pointer(report, pointer);
        return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
    };
    return MachineIdentity{override.vendor ? *override.vendor : string_at("/machine/vendor"),
                           override.platform ? *override.platform : string_at("/machine/platform")};
}

std::optional<double> usable_number(const json& value) noexcept {
    if (!value.is_number()) return std::nullopt;
    const double number = value.get<double>();
    if (!std::isfinite(number) || number <= 0.0) return std::nullopt;
    return number;
}

std::string describe_value(const json& value) {
    // nlohmann writes non-finite floats as null, which would misreport an overflowing 1e400 as null.
    if (value.is_number_float() && !std::isfinite(value.get<double>())) {
        const double number = value.get<double>();
        return std::isnan(number) ? "nan" : (number > 0 ? "inf" : "-inf");
    }
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > 48) text = text.substr(0, 45) + "...";
    return text;
}

BaseMetric read_base_metric(const json& metrics, const ReportField& metric) {
    BaseMetric out;
    const auto spellings = spellings_of(metric);
    for (const auto& [spelling, unit] : spellings) {
        const auto it = metrics.find(spelling);
        if (it == metrics.end()) continue;
        out.spelling = spelling;
        const std::optional<double> value = usable_number(*it);
        if (!value) {
            out.status = BaseMetric::Status::Invalid;
            out.detail = spelling + " is " + describe_value(*it) + ", not a finite number > 0";
            return out;
        }
        const TimeUnit* own = find_time_unit(metric.unit);
        const double converted = unit == nullptr ? *value : *value * unit->ns / own->ns;
        if (!std::isfinite(converted) || converted <= 0.0) {
            out.status = BaseMetric::Status::Invalid;
            out.detail =
                spelling + " is " + describe_value(*it) + ", out of range in " + std::string(metric.unit);
            return out;
        }
        out.status = BaseMetric::Status::Usable;
        out.value = converted;
        return out;
    }
    out.detail = "the record has no " + spellings.front().first;
    for (std::size_t i = 1; i < spellings.size(); ++i) {
        out.detail += (i + 1 == spellings.size() ? " or " : ", ") + spellings[i].first;
    }
    return out;
}

}  // namespace detail
}  // namespace pto::bench
