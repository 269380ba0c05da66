// The scenario catalog: every (case, mode, tier) pto-bench can run, one row each, with a sentence on what
// it measures. Names, JSON identity fields and descriptions all come from these rows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pto/examples/common.h"
#include "workload.h"

namespace pto::bench {

struct Scenario {
    std::string id;  ///< "<case>/<mode>[/<tier>]", e.g. "qwen3/manual/non-spmd"
    CaseKind kind;
    examples::Scheme mode;
    std::optional<examples::SpmdTier> tier;  ///< Qwen3 only
    std::string measures;
};

/// catalog: every scenario, in sweep order (Qwen3 tiers outer, modes inner; then paged attention; then
/// the synthetic graphs).
[[nodiscard]] const std::vector<Scenario>& catalog();

/// Selection: what the command line asked for; empty vectors mean "all".
struct Selection {
    std::vector<CaseKind> cases;
    std::vector<examples::Scheme> modes;
    std::vector<examples::SpmdTier> tiers;
};

/// select: the scenarios matching `s`, in catalog order. The default case set (no --case) is the sweep of
/// docs/bench.md: Qwen3 and paged attention; the synthetic graphs run only when asked for.
[[nodiscard]] std::vector<Scenario> select(const Selection& s);

}  // namespace pto::bench
