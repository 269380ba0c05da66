// Builds the catalog rows from the registered workloads, the schemes each builds and the SPMD tiers.
#include "catalog.h"

#include <algorithm>

namespace pto::bench {
namespace {

std::string how(Scheme mode) {
    switch (mode) {
        case Scheme::Manual:
            return "dynamic submission with explicit edges (PTO2_SCOPE(MANUAL))";
        case Scheme::Tensormap:
            return "dynamic submission with edges discovered by the tensormap";
        case Scheme::StaticManual:
            return "static templates with explicit boundary edges";
        case Scheme::StaticTensormap:
            return "static templates with tensormap boundary edges";
    }
    return {};
}

std::string describe(const WorkloadSpec& w, Scheme mode, std::optional<Tier> tier) {
    if (!tier) return w.description + ": " + how(mode);
    return w.description + " at " + std::string(to_string(*tier)) + " (" +
           (*tier == Tier::AllSpmd ? std::string("one launch per operator")
                                   : std::to_string(target_width(*tier)) + "-wide SPMD target") +
           "): " + how(mode);
}

template <class T>
bool wanted(const std::vector<T>& set, const T& value) {
    return set.empty() || std::find(set.begin(), set.end(), value) != set.end();
}

}  // namespace

std::vector<Scenario> catalog(const std::vector<WorkloadSpec>& workloads) {
    std::vector<Scenario> rows;
    const auto add = [&](const WorkloadSpec& w, Scheme mode, std::optional<Tier> tier) {
        std::string id = w.name + "/" + std::string(to_string(mode));
        if (tier) id += "/" + std::string(to_string(*tier));
        rows.push_back(Scenario{id, &w, mode, tier, describe(w, mode, tier)});
    };
    for (const WorkloadSpec& w : workloads) {
        if (!w.tiered) {
            for (Scheme mode : w.schemes)
                add(w, mode, std::nullopt);
            continue;
        }
        for (Tier tier : kAllTiers)
            for (Scheme mode : w.schemes)
                add(w, mode, tier);
    }
    return rows;
}

std::vector<Scenario> select(const std::vector<Scenario>& catalog, const Selection& s) {
    std::vector<Scenario> out;
    for (const Scenario& row : catalog) {
        const bool case_wanted =
            s.cases.empty() ? row.workload->in_default_sweep : wanted(s.cases, row.workload->name);
        if (!case_wanted || !wanted(s.modes, row.mode)) continue;
        if (row.tier && !wanted(s.tiers, *row.tier)) continue;
        out.push_back(row);
    }
    return out;
}

std::optional<Scheme> parse_scheme(std::string_view text) {
    if (text.size() == 1) {
        const char c = text[0] >= 'a' && text[0] <= 'z' ? static_cast<char>(text[0] - 'a' + 'A') : text[0];
        if (c >= 'A' && c <= 'D') return static_cast<Scheme>(c - 'A');
    }
    for (Scheme s : kAllSchemes)
        if (to_string(s) == text) return s;
    return std::nullopt;
}

std::optional<Tier> parse_tier(std::string_view text) {
    if (text.starts_with("--")) text.remove_prefix(2);
    if (text.size() == 1 && text[0] >= '0' && text[0] <= '4') return static_cast<Tier>(text[0] - '0');
    for (Tier t : kAllTiers)
        if (to_string(t) == text) return t;
    return std::nullopt;
}

}  // namespace pto::bench
