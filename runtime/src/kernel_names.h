// KernelNames: the display name of each FuncId of a recorded graph, the same in the DOT and JSON graph,
// the Perfetto trace, the timing tables and the model's timeline: the registered name, "func N" for an id
// registered without a name (or not at all), "none" for no kernel.
#pragma once

#include <string>
#include <vector>

#include "pto/runtime/graph.h"

namespace pto::detail {

class KernelNames {
  public:
    explicit KernelNames(const GraphRecord& graph) {
        for (const KernelSummary& k : graph.kernels) {
            if (k.id.is_none()) continue;
            if (names_.size() <= k.id.value) names_.resize(k.id.value + 1u);
            names_[k.id.value] = k.name;
        }
    }

    [[nodiscard]] std::string operator()(FuncId f) const {
        if (f.is_none()) return "none";
        if (f.value < names_.size() && !names_[f.value].empty()) return names_[f.value];
        return "func " + std::to_string(f.value);
    }

  private:
    std::vector<std::string> names_;  ///< indexed by FuncId::value; empty where no name was registered
};

}  // namespace pto::detail
