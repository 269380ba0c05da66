// Builds the catalog rows from the cases, the schemes each supports and the Qwen3 tiers.
#include "catalog.h"

#include <algorithm>

namespace pto::bench {
namespace {

using examples::Scheme;
using examples::SpmdTier;

std::string describe(CaseKind kind, Scheme mode, std::optional<SpmdTier> tier) {
    std::string how;
    switch (mode) {
        case Scheme::Manual:
            how = "dynamic submission with explicit edges (PTO2_SCOPE(MANUAL))";
            break;
        case Scheme::Tensormap:
            how = "dynamic submission with edges discovered by the tensormap";
            break;
        case Scheme::StaticManual:
            how = "static templates with explicit boundary edges";
            break;
        case Scheme::StaticTensormap:
            how = "static templates with tensormap boundary edges";
            break;
    }
    switch (kind) {
        case CaseKind::Qwen3:
            return "Qwen3-14B decode layer at " + std::string(examples::to_string(*tier)) + " (" +
                   (*tier == SpmdTier::AllSpmd
                        ? std::string("one launch per operator")
                        : std::to_string(examples::target_width(*tier)) + "-wide SPMD target") +
                   "): " + how;
        case CaseKind::PagedAttention:
            return "paged attention Case1 (480 batches x 4 tasks): " + how;
        case CaseKind::Chain:
            return "a 2048-task chain, one edge per task: " + how;
        case CaseKind::FanIn:
            return "256 groups of 8 producers joined by one consumer: " + how;
        case CaseKind::Moe:
            return "MoE FFN decode (Mixtral-8x7B, 64 tokens, routing seed 7) at " +
                   std::string(examples::to_string(*tier)) + ", waiting once for the routing: " + how;
    }
    return how;
}

std::vector<Scenario> build() {
    std::vector<Scenario> rows;
    const auto add = [&](CaseKind kind, Scheme mode, std::optional<SpmdTier> tier) {
        std::string id = std::string(to_string(kind)) + "/" + std::string(examples::to_string(mode));
        if (tier) id += "/" + std::string(examples::to_string(*tier));
        rows.push_back(Scenario{id, kind, mode, tier, describe(kind, mode, tier)});
    };
    for (SpmdTier tier : examples::kAllTiers)
        for (Scheme mode : examples::kAllSchemes)
            add(CaseKind::Qwen3, mode, tier);
    for (Scheme mode : examples::kAllSchemes)
        add(CaseKind::PagedAttention, mode, std::nullopt);
    for (SpmdTier tier : examples::kAllTiers)
        for (Scheme mode : examples::kAllSchemes)
            add(CaseKind::Moe, mode, tier);
    for (CaseKind kind : {CaseKind::Chain, CaseKind::FanIn})
        for (Scheme mode : {Scheme::Manual, Scheme::Tensormap})
            add(kind, mode, std::nullopt);
    return rows;
}

template <class T>
bool wanted(const std::vector<T>& set, T value) {
    return set.empty() || std::find(set.begin(), set.end(), value) != set.end();
}

}  // namespace

std::string_view to_string(CaseKind c) {
    switch (c) {
        case CaseKind::Qwen3:
            return "qwen3";
        case CaseKind::PagedAttention:
            return "paged_attention";
        case CaseKind::Chain:
            return "chain";
        case CaseKind::FanIn:
            return "fanin";
        case CaseKind::Moe:
            return "moe";
    }
    return "?";
}

const std::vector<Scenario>& catalog() {
    static const std::vector<Scenario> rows = build();
    return rows;
}

std::vector<Scenario> select(const Selection& s) {
    std::vector<CaseKind> cases = s.cases;
    if (cases.empty()) cases = {CaseKind::Qwen3, CaseKind::PagedAttention};
    std::vector<Scenario> out;
    for (const Scenario& row : catalog()) {
        if (!wanted(cases, row.kind) || !wanted(s.modes, row.mode)) continue;
        if (row.tier && !wanted(s.tiers, *row.tier)) continue;
        out.push_back(row);
    }
    return out;
}

}  // namespace pto::bench
