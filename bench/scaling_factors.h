// The `_scaling_factors` table of a --base-data baseline (docs/base-data.md): which factor turns a raw ratio
// against the baseline's chip into a speedup comparable on this chip. Used by base_data.cpp; shape in
// docs/base-data.md.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pto::bench {

/// One entry of `_scaling_factors.chips` (or the implicit entry of `_scaling_factors.reference`): how many
/// times faster this chip is expected to be than the chip the baseline was measured on.
struct ScalingChip {
    std::string vendor;                     ///< as written; compared through normalize_token()
    std::string platform;                   ///< non-empty; matched by platform_match_length()
    std::optional<std::string> bottleneck;  ///< absent: applies to records of any bottleneck
    std::optional<double> measured;         ///< only finite values > 0 are kept
    std::optional<double> nominal;          ///< same rule; used when `measured` is absent or rejected
    std::string rejected;                   ///< which written factors were refused and why, for notes
    bool is_reference = false;              ///< the implicit 1.0 entry built from `reference`
};

/// The parsed table. When is_enabled is false every comparison runs unscaled and disabled_reason says why.
struct ScalingFactors {
    bool is_enabled = false;
    std::string disabled_reason = "the baseline has no _scaling_factors";
    std::vector<ScalingChip> chips;  ///< file order; the implicit reference entry, if any, comes last
};

/// The factor chosen for one matched record. Without a factor the raw ratio is kept as the speedup.
struct FactorChoice {
    std::optional<double> factor;
    std::string source;  ///< "measured", "nominal" or "reference"; empty without a factor
    std::string chip;    ///< platform of the chosen entry; empty when none was chosen
    std::string note;    ///< why no factor was used, or which written factor was refused; may be empty
};

/// parse_scaling_factors: reads `_scaling_factors` (node is nullptr when the file has none). A structural
/// fault (not an object, `chips` not an array, an entry without vendor or platform strings...) returns a
/// disabled table whose disabled_reason starts with "malformed"; a bad factor value only drops that value.
/// Never throws.
ScalingFactors parse_scaling_factors(const nlohmann::json* node);

/// normalize_token: lower-cases ASCII and drops '-', '_' and spaces, so "T_Head", "t-head" and "thead" (and
/// likewise bottleneck names) compare equal.
std::string normalize_token(std::string_view text);

/// platform_match_length: the length of `entry` when it occurs in `machine` case-insensitively with no
/// letter or digit right before or after it ("H20" in "NVIDIA H20-3e"), else 0 ("H20" in "H200").
std::size_t platform_match_length(std::string_view entry, std::string_view machine) noexcept;

/// choose_factor: the factor for a record of `bottleneck` (empty: none given) compared on a machine of
/// `vendor` and `platform`. Among entries of the same vendor whose bottleneck is absent or equal, the
/// longest platform match wins, then a bottleneck-specific entry over a generic one; a tie or no match gives
/// no factor. The winner's `measured` is preferred over its `nominal`.
FactorChoice choose_factor(const ScalingFactors& table, std::string_view vendor, std::string_view platform,
                           std::string_view bottleneck);

}  // namespace pto::bench
