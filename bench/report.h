// pto-bench's outputs: the report JSON (schema "pto-bench/1", fields described in docs/bench.md) and the
// table printed on stdout.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

namespace pto::bench {

inline constexpr const char* kReportSchema = "pto-bench/1";

/// make_report: {"schema", "machine", "results"}.
[[nodiscard]] nlohmann::json make_report(nlohmann::json machine, nlohmann::json results);

/// print_table: one line per result: identity, counts, orchestration and end-to-end ns per kernel launch
/// (medians), throughput, the model's makespan and overhead, the peer ratio, and "vs Base" when a
/// baseline matched something.
void print_table(std::ostream& out, const nlohmann::json& report);

}  // namespace pto::bench
