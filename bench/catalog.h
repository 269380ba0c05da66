// The scenario catalog: every (workload, mode, tier) the registered workloads can run, one row each, with a
// sentence on what it measures. Names, JSON identity fields and descriptions all come from these rows.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pto/bench/bench.h"

namespace pto::bench {

struct Scenario {
    std::string id;                          ///< "<case>/<mode>[/<tier>]", e.g. "qwen3/manual/non-spmd"
    const WorkloadSpec* workload = nullptr;  ///< the registered workload (owned by the Bench)
    Scheme mode = Scheme::Manual;
    std::optional<Tier> tier;  ///< tiered workloads only
    std::string measures;
};

/// catalog: every scenario of `workloads`, in sweep order: workloads in registration order; for a tiered
/// one, tiers outer and its schemes inner.
[[nodiscard]] std::vector<Scenario> catalog(const std::vector<WorkloadSpec>& workloads);

/// Selection: what the command line asked for; empty vectors mean "all".
struct Selection {
    std::vector<std::string> cases;  ///< workload names
    std::vector<Scheme> modes;
    std::vector<Tier> tiers;
};

/// select: the rows of `catalog` matching `s`, in catalog order. Without cases, the workloads in the
/// default sweep (WorkloadSpec::in_default_sweep).
[[nodiscard]] std::vector<Scenario> select(const std::vector<Scenario>& catalog, const Selection& s);

/// parse_scheme: a scheme's name or its letter A-D (either case).
[[nodiscard]] std::optional<Scheme> parse_scheme(std::string_view text);
/// parse_tier: a tier's name, with or without "--", or its digit 0-4.
[[nodiscard]] std::optional<Tier> parse_tier(std::string_view text);

}  // namespace pto::bench
