// Reading and validating a --base-data baseline file (docs/base-data.md). Every fault of the file becomes
// exactly one warning and a disabled Baseline; base_data.cpp then compares, scaling_factors.cpp reads the
// factor table.
#include "base_data.h"

#include "base_data_match.h"
#include "input_files.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace pto::bench {
namespace {

using nlohmann::json;
using namespace std::string_view_literals;

// nlohmann refuses a whole document holding a number beyond the double range (1e400). docs/base-data.md makes
// such a metric one unusable value, not a broken file, so the pre-pass below swaps each such token for a
// string no real file contains (it starts with an escaped NUL) and restore_overflows() turns it into
// ±infinity.
constexpr std::string_view kPositiveOverflowText = R"("\u0000pto-bench-overflow+")";
constexpr std::string_view kNegativeOverflowText = R"("\u0000pto-bench-overflow-")";
constexpr std::string_view kPositiveOverflow = "\0pto-bench-overflow+"sv;
constexpr std::string_view kNegativeOverflow = "\0pto-bench-overflow-"sv;

struct Rewritten {
    std::string text;
    // (end of a replacement in `text`, bytes added so far): maps parser positions back to the file.
    std::vector<std::pair<std::size_t, long>> growth;
};

bool is_number_char(char c) noexcept {
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

Rewritten replace_overflowing_numbers(std::string_view text) {
    Rewritten out;
    out.text.reserve(text.size());
    bool is_in_string = false;
    long grown = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (is_in_string) {
            out.text.push_back(c);
            if (c == '\\' && i + 1 < text.size()) {
                out.text.push_back(text[++i]);
            } else if (c == '"') {
                is_in_string = false;
            }
            continue;
        }
        if (c == '"') is_in_string = true;
        if (c != '-' && !(c >= '0' && c <= '9')) {
            out.text.push_back(c);
            continue;
        }
        std::size_t end = i;
        while (end < text.size() && is_number_char(text[end])) {
            ++end;
        }
        const std::string token(text.substr(i, end - i));
        // strtod reads '.' as the decimal point in the "C" locale, which pto-bench never changes.
        char* parsed_end = nullptr;
        errno = 0;
        const double value = std::strtod(token.c_str(), &parsed_end);
        const bool is_whole_token = parsed_end == token.c_str() + token.size();
        if (is_whole_token && errno == ERANGE && std::isinf(value)) {
            const std::string_view replacement = value > 0 ? kPositiveOverflowText : kNegativeOverflowText;
            out.text.append(replacement);
            grown += static_cast<long>(replacement.size()) - static_cast<long>(token.size());
            out.growth.emplace_back(out.text.size(), grown);
        } else {
            out.text.append(token);
        }
        i = end - 1;
    }
    return out;
}

std::size_t original_position(const Rewritten& rewritten, std::size_t position) {
    long grown = 0;
    for (const auto& [end, total] : rewritten.growth) {
        if (end > position) break;
        grown = total;
    }
    return static_cast<std::size_t>(std::max(0L, static_cast<long>(position) - grown));
}

void restore_overflows(json& node) {
    if (node.is_string()) {
        // Decide before assigning: the assignment frees the string `text` refers to.
        const auto& text = node.get_ref<const std::string&>();
        const bool is_positive = text == kPositiveOverflow;
        const bool is_negative = text == kNegativeOverflow;
        if (is_positive) node = std::numeric_limits<double>::infinity();
        if (is_negative) node = -std::numeric_limits<double>::infinity();
    } else if (node.is_structured()) {
        for (auto& child : node) {
            restore_overflows(child);
        }
    }
}

// First pass over the text: nlohmann keeps the last of duplicate object keys silently, which would let a
// record quietly lose a key field or metric, so any duplicate makes the file invalid. Also reports syntax
// errors with a position, and refuses nesting deeper than kMaxBaselineDepth before anything recursive
// (building, walking or writing the document) meets it: 60 000 levels would overflow the stack.
class StructureCheck {
  public:
    bool null() { return on_value(); }
    bool boolean(bool) { return on_value(); }
    bool number_integer(json::number_integer_t) { return on_value(); }
    bool number_unsigned(json::number_unsigned_t) { return on_value(); }
    bool number_float(json::number_float_t, const json::string_t&) { return on_value(); }
    bool string(json::string_t&) { return on_value(); }
    bool binary(json::binary_t&) { return on_value(); }
    bool start_object(std::size_t) {
        on_value();
        if (frames_.size() >= kMaxBaselineDepth) return too_deep();
        frames_.push_back(Frame{true, {}, {}, 0});
        return true;
    }
    bool key(json::string_t& name) {
        Frame& frame = frames_.back();
        if (!frame.keys.insert(name).second) {
            fault_ = "duplicate key " + json(name).dump() + " in " + object_path();
            return false;
        }
        frame.key = name;
        return true;
    }
    bool end_object() {
        frames_.pop_back();
        return true;
    }
    bool start_array(std::size_t) {
        on_value();
        if (frames_.size() >= kMaxBaselineDepth) return too_deep();
        frames_.push_back(Frame{false, {}, {}, 0});
        return true;
    }
    bool end_array() {
        frames_.pop_back();
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const json::exception& error) {
        error_position_ = position;
        error_text_ = error.what();
        return false;
    }

    [[nodiscard]] const std::string& fault() const { return fault_; }
    [[nodiscard]] std::size_t error_position() const { return error_position_; }
    [[nodiscard]] const std::string& error_text() const { return error_text_; }

  private:
    struct Frame {
        bool is_object;
        std::set<std::string> keys;
        std::string key;    // member being read, objects only
        std::size_t count;  // elements begun so far, arrays only
    };

    bool on_value() {
        if (!frames_.empty() && !frames_.back().is_object) ++frames_.back().count;
        return true;
    }

    bool too_deep() {
        fault_ = "objects and arrays are nested deeper than " + std::to_string(kMaxBaselineDepth) +
                 " levels (a baseline needs about 5)";
        return false;
    }

    std::string object_path() const {
        if (frames_.size() == 1) return "the top-level object";
        std::string path;
        for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
            const Frame& frame = frames_[i];
            if (frame.is_object) {
                path += (path.empty() ? "" : ".") + frame.key;
            } else {
                path += "[" + std::to_string(frame.count - 1) + "]";
            }
        }
        return path;
    }

    std::vector<Frame> frames_;
    std::string fault_;
    std::size_t error_position_ = 0;
    std::string error_text_;
};

// "parse error at line 1, column 5: syntax error while parsing ..." -> "syntax error while parsing ...":
// the position nlohmann gives refers to the rewritten text, so it is recomputed from the file.
std::string syntax_message(const std::string& what) {
    const std::size_t column = what.find("column ");
    const std::size_t colon = column == std::string::npos ? std::string::npos : what.find(": ", column);
    return colon == std::string::npos ? what : what.substr(colon + 2);
}

std::string line_and_column(std::string_view text, std::size_t position) {
    position = std::min(position, text.size());
    std::size_t line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < position; ++i) {
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(position - line_start + 1);
}

std::string validate_record(const json& record, std::size_t index) {
    const std::string where = "records[" + std::to_string(index) + "]";
    if (!record.is_object()) return where + " must be an object";
    const auto case_it = record.find("case");
    if (case_it == record.end() || !case_it->is_string()) return where + ".case must be a string";
    const auto key_it = record.find("key");
    if (key_it == record.end() || !key_it->is_object()) return where + ".key must be an object";
    const auto metrics_it = record.find("metrics");
    if (metrics_it == record.end() || !metrics_it->is_object()) return where + ".metrics must be an object";
    const auto bottleneck_it = record.find("bottleneck");
    if (bottleneck_it != record.end() && !bottleneck_it->is_null() && !bottleneck_it->is_string()) {
        return where + ".bottleneck must be a string or null";
    }
    return {};
}

// Returns the fault that makes the document unusable, or an empty string; fills `out` as it goes.
std::string validate(const json& doc, Baseline& out) {
    if (!doc.is_object()) return "the top level is " + std::string(doc.type_name()) + ", not an object";
    const auto format = doc.find("format");
    if (format == doc.end()) return "no \"format\" (expected \"" + std::string(kBaselineFormat) + "\")";
    if (!format->is_string() || format->get_ref<const std::string&>() != kBaselineFormat) {
        return "format is " + detail::describe_value(*format) + ", expected \"" +
               std::string(kBaselineFormat) + "\"";
    }
    const auto version = doc.find("version");
    if (version == doc.end()) return "no \"version\" (expected " + std::to_string(kBaselineVersion) + ")";
    // Type-strict like key matching: 1.0 or "1" is not version 1.
    if (!version->is_number_integer() || version->get<std::int64_t>() != kBaselineVersion) {
        return "version is " + detail::describe_value(*version) + ", expected " +
               std::to_string(kBaselineVersion);
    }
    const auto primary = doc.find("primary_metric");
    if (primary == doc.end() || !primary->is_string()) return "primary_metric must be a string";
    out.primary_metric_name = primary->get<std::string>();
    out.primary_metric = find_metric(out.primary_metric_name);
    if (out.primary_metric == nullptr) {
        return "primary_metric " + primary->dump() + " is not a pto-bench metric";
    }
    const auto records = doc.find("records");
    if (records == doc.end()) return "no \"records\"";
    if (!records->is_array()) return "records is " + std::string(records->type_name()) + ", not an array";
    for (std::size_t i = 0; i < records->size(); ++i) {
        if (auto fault = validate_record((*records)[i], i); !fault.empty()) return fault;
    }
    out.records = *records;
    return {};
}

std::string absolute_path(const std::string& path) {
    std::error_code error;
    const auto absolute = std::filesystem::absolute(path, error);
    return error ? path : absolute.lexically_normal().string();
}

Baseline disabled(Baseline out, const std::string& shown_path, const std::string& fault) {
    out.error = fault;
    out.records = json::array();
    out.primary_metric = nullptr;
    out.scaling = ScalingFactors{};
    out.warnings = {"base-data: " + shown_path + ": " + fault + "; comparison disabled"};
    return out;
}

Baseline parse_at(std::string_view text, const std::string& shown_path, const std::string& path) {
    Baseline out;
    out.path = path;
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        return disabled(std::move(out), shown_path, "the file is empty");
    }
    // A file that already holds the marker text is parsed as written (1e400 then invalidates it), so no
    // string of the user's can turn into infinity.
    const Rewritten rewritten = text.find("pto-bench-overflow") == std::string_view::npos
                                    ? replace_overflowing_numbers(text)
                                    : Rewritten{std::string(text), {}};
    StructureCheck check;
    if (!json::sax_parse(rewritten.text, &check)) {
        if (!check.fault().empty()) return disabled(std::move(out), shown_path, check.fault());
        const std::size_t position = original_position(rewritten, check.error_position());
        return disabled(std::move(out), shown_path,
                        "not valid JSON (" + line_and_column(text, position > 0 ? position - 1 : 0) +
                            "): " + syntax_message(check.error_text()));
    }
    json doc = json::parse(rewritten.text, nullptr, false);
    if (doc.is_discarded()) return disabled(std::move(out), shown_path, "not valid JSON");
    if (!rewritten.growth.empty()) restore_overflows(doc);
    if (auto fault = validate(doc, out); !fault.empty()) return disabled(std::move(out), shown_path, fault);

    const auto scaling = doc.find("_scaling_factors");
    out.scaling = parse_scaling_factors(scaling == doc.end() ? nullptr : &*scaling);
    if (scaling != doc.end() && !out.scaling.is_enabled) {
        out.warnings.push_back("base-data: " + shown_path + ": " + out.scaling.disabled_reason +
                               "; comparing without scaling");
    }
    return out;
}

}  // namespace

Baseline parse_baseline(std::string_view text, const std::string& path) {
    try {
        return parse_at(text, path, absolute_path(path));
    } catch (const std::exception& error) {
        Baseline out;
        out.path = path;
        return disabled(std::move(out), path, std::string("cannot be read: ") + error.what());
    }
}

Baseline load_baseline(const std::string& path) {
    Baseline out;
    if (path.empty()) return disabled(std::move(out), "\"\"", "no file name given");
    out.path = absolute_path(path);
    try {
        const FileText file = read_regular_file(path, kMaxBaselineBytes, "a baseline file");
        if (!file.error.empty()) return disabled(std::move(out), path, "cannot be read: " + file.error);
        return parse_at(file.text, path, out.path);
    } catch (const std::exception& error) {
        return disabled(std::move(out), path, std::string("cannot be read: ") + error.what());
    }
}

}  // namespace pto::bench
