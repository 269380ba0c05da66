// The workloads pto-bench is built with (the reference graphs of docs/design/reference-graphs.md and the
// synthetic chain and fan-in), and the translation of the bench's scheme and tier into the vocabulary of
// pto/examples, which the reference graphs are written in.
#pragma once

#include <vector>

#include "pto/bench/bench.h"
#include "pto/examples/common.h"

namespace pto::bench {

/// builtin_workloads: every built-in workload, in sweep order (builtin_workloads.cpp lists them).
[[nodiscard]] std::vector<WorkloadSpec> builtin_workloads();

/// reference_schemes: the schemes a reference graph builds, given its supports() function.
template <class Supports>
[[nodiscard]] std::vector<Scheme> reference_schemes(Supports&& supports) {
    std::vector<Scheme> out;
    for (Scheme s : kAllSchemes)
        if (supports(static_cast<examples::Scheme>(s))) out.push_back(s);
    return out;
}

// The two vocabularies name the same schemes and tiers in the same order.
static_assert(static_cast<int>(examples::Scheme::StaticTensormap) ==
              static_cast<int>(Scheme::StaticTensormap));
static_assert(static_cast<int>(examples::SpmdTier::AllSpmd) == static_cast<int>(Tier::AllSpmd));

[[nodiscard]] inline examples::Scheme to_examples(Scheme s) {
    return static_cast<examples::Scheme>(s);
}
[[nodiscard]] inline examples::SpmdTier to_examples(Tier t) {
    return static_cast<examples::SpmdTier>(t);
}

}  // namespace pto::bench
