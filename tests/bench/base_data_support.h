// Helpers shared by the docs/base-data.md (--base-data) conformance tests: fixture paths, the sample report
// and one-call comparisons against a fixture baseline.
#pragma once

#include "base_data.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace pto::bench::test {

inline std::string fixture(const std::string& name) {
    return std::string(PTO_BASE_DATA_FIXTURES) + "/" + name;
}

inline nlohmann::json read_json(const std::string& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

/// The sample pto-bench/1 report: results 0..4 are qwen3 manual, qwen3 tensormap spmd-4, paged_attention
/// manual, paged_attention static-manual, and qwen3 manual on the tbb_flow_graph peer.
inline nlohmann::json sample_report() {
    return read_json(fixture("report.json"));
}

/// The sample report after comparing it with fixture `baseline_name`.
inline nlohmann::json compared_with(const std::string& baseline_name, const MachineOverride& machine = {}) {
    nlohmann::json report = sample_report();
    apply_baseline(report, load_baseline(fixture(baseline_name)), machine);
    return report;
}

inline const nlohmann::json& vs_base(const nlohmann::json& report, std::size_t result) {
    return report.at("results").at(result).at("vs_base");
}

}  // namespace pto::bench::test
