// Parsing and choosing `_scaling_factors` entries for --base-data (docs/base-data.md). Pure functions of the
// table and the machine's vendor/platform; base_data.cpp applies the chosen factor.
#include "scaling_factors.h"

#include <cmath>
#include <string>
#include <utility>

namespace pto::bench {
namespace {

using nlohmann::json;

char ascii_lower(char c) noexcept {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// Bytes of multi-byte UTF-8 sequences count as word characters: a platform name glued to a non-ASCII letter
// is not on a word boundary, and treating it as one could match a different model.
bool is_word_char(char c) noexcept {
    const auto u = static_cast<unsigned char>(c);
    return (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u >= 0x80;
}

bool equal_ignoring_case(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
    }
    return true;
}

std::string short_dump(const json& value) {
    std::string text = value.dump();
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return text;
}

// A factor divides the raw ratio, so zero, negative, infinite or non-numeric values would turn a valid
// comparison into nonsense; such a value is refused and the next source is tried.
void read_factor(const json& entry, const char* name, std::optional<double>& out, std::string& rejected) {
    const auto it = entry.find(name);
    if (it == entry.end()) return;
    if (it->is_number()) {
        const double value = it->get<double>();
        if (std::isfinite(value) && value > 0.0) {
            out = value;
            return;
        }
    }
    if (!rejected.empty()) rejected += "; ";
    rejected += std::string(name) + " " + short_dump(*it) + " is not a finite number > 0";
}

// Returns the fault of a required non-empty string field, or an empty string when it is fine.
std::string read_name(const json& entry, const char* name, const std::string& where, std::string& out) {
    const auto it = entry.find(name);
    if (it == entry.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
        return where + "." + name + " must be a non-empty string";
    }
    out = it->get<std::string>();
    return {};
}

std::string read_chip(const json& entry, const std::string& where, ScalingChip& chip) {
    if (!entry.is_object()) return where + " must be an object";
    if (auto fault = read_name(entry, "vendor", where, chip.vendor); !fault.empty()) return fault;
    if (auto fault = read_name(entry, "platform", where, chip.platform); !fault.empty()) return fault;
    if (const auto it = entry.find("bottleneck"); it != entry.end() && !it->is_null()) {
        if (!it->is_string()) return where + ".bottleneck must be a string or null";
        chip.bottleneck = it->get<std::string>();
    }
    read_factor(entry, "measured", chip.measured, chip.rejected);
    read_factor(entry, "nominal", chip.nominal, chip.rejected);
    return {};
}

ScalingFactors malformed(std::string fault) {
    ScalingFactors table;
    table.disabled_reason = "malformed _scaling_factors: " + std::move(fault);
    return table;
}

bool same_chip(const ScalingChip& a, const ScalingChip& b) {
    return normalize_token(a.vendor) == normalize_token(b.vendor) &&
           equal_ignoring_case(a.platform, b.platform);
}

}  // namespace

std::string normalize_token(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        if (c == '-' || c == '_' || c == ' ') continue;
        out.push_back(ascii_lower(c));
    }
    return out;
}

std::size_t platform_match_length(std::string_view entry, std::string_view machine) noexcept {
    if (entry.empty() || entry.size() > machine.size()) return 0;
    for (std::size_t pos = 0; pos + entry.size() <= machine.size(); ++pos) {
        if (!equal_ignoring_case(machine.substr(pos, entry.size()), entry)) continue;
        const std::size_t end = pos + entry.size();
        const bool starts_word = pos == 0 || !is_word_char(machine[pos - 1]);
        const bool ends_word = end == machine.size() || !is_word_char(machine[end]);
        if (starts_word && ends_word) return entry.size();
    }
    return 0;
}

ScalingFactors parse_scaling_factors(const json* node) {
    if (node == nullptr) return ScalingFactors{};
    if (!node->is_object()) return malformed("must be an object, not " + std::string(node->type_name()));

    ScalingFactors table;
    if (const auto it = node->find("chips"); it != node->end()) {
        if (!it->is_array()) return malformed("chips must be an array");
        for (std::size_t i = 0; i < it->size(); ++i) {
            ScalingChip chip;
            if (auto fault = read_chip((*it)[i], "chips[" + std::to_string(i) + "]", chip); !fault.empty()) {
                return malformed(std::move(fault));
            }
            table.chips.push_back(std::move(chip));
        }
    }
    if (const auto it = node->find("reference"); it != node->end()) {
        if (!it->is_object()) return malformed("reference must be an object");
        ScalingChip reference;
        if (auto fault = read_name(*it, "vendor", "reference", reference.vendor); !fault.empty()) {
            return malformed(std::move(fault));
        }
        if (auto fault = read_name(*it, "platform", "reference", reference.platform); !fault.empty()) {
            return malformed(std::move(fault));
        }
        // The baseline was measured on the reference chip, so on that chip the ratio needs no correction. A
        // generic explicit entry for the same chip is the author's word and replaces this implicit one.
        reference.measured = 1.0;
        reference.is_reference = true;
        bool is_listed = false;
        for (const auto& chip : table.chips) {
            is_listed = is_listed || (!chip.bottleneck && same_chip(chip, reference));
        }
        if (!is_listed) table.chips.push_back(std::move(reference));
    }
    table.is_enabled = true;
    table.disabled_reason.clear();
    return table;
}

FactorChoice choose_factor(const ScalingFactors& table, std::string_view vendor, std::string_view platform,
                           std::string_view bottleneck) {
    FactorChoice choice;
    if (!table.is_enabled) {
        choice.note = "scaling disabled: " + table.disabled_reason;
        return choice;
    }
    const std::string wanted_vendor = normalize_token(vendor);
    if (wanted_vendor.empty() || platform.empty()) {
        choice.note = "this machine's vendor or platform is unknown";
        return choice;
    }
    const std::string wanted_bottleneck = normalize_token(bottleneck);

    // Rank = (platform match length, bottleneck-specific). Entries sharing the best rank form a tie.
    const ScalingChip* best = nullptr;
    std::pair<std::size_t, bool> best_rank{0, false};
    std::vector<const ScalingChip*> tied;
    for (const auto& chip : table.chips) {
        if (normalize_token(chip.vendor) != wanted_vendor) continue;
        if (chip.bottleneck && normalize_token(*chip.bottleneck) != wanted_bottleneck) continue;
        const std::size_t length = platform_match_length(chip.platform, platform);
        if (length == 0) continue;
        const std::pair<std::size_t, bool> rank{length, chip.bottleneck.has_value()};
        if (best == nullptr || rank > best_rank) {
            best = &chip;
            best_rank = rank;
            tied.clear();
        } else if (rank == best_rank) {
            tied.push_back(&chip);
        }
    }
    if (best == nullptr) {
        choice.note = "no _scaling_factors entry matches vendor '" + std::string(vendor) + "', platform '" +
                      std::string(platform) + "'";
        return choice;
    }
    if (!tied.empty()) {
        choice.note = "entries tie for platform '" + std::string(platform) + "': '" + best->platform + "'";
        for (const auto* chip : tied) {
            choice.note += ", '" + chip->platform + "'";
        }
        return choice;
    }
    choice.chip = best->platform;
    if (best->measured) {
        choice.factor = best->measured;
        choice.source = best->is_reference ? "reference" : "measured";
        choice.note = best->rejected;
    } else if (best->nominal) {
        choice.factor = best->nominal;
        choice.source = "nominal";
        if (!best->rejected.empty()) choice.note = best->rejected + "; nominal used";
    } else {
        choice.note = "entry '" + best->platform + "' has no usable factor" +
                      (best->rejected.empty() ? std::string() : ": " + best->rejected);
    }
    return choice;
}

}  // namespace pto::bench
