// The command line of a bench program (pto-bench and every program built on pto::bench): options, the
// scenario selection, the sweep and the report. Bench::run is its public entry point.
#pragma once

#include <string_view>

#include "pto/bench/bench.h"

namespace pto::bench::detail {

/// Stop: how far run_command_line goes. AfterParsing: once the options are parsed and checked (the
/// command-line fuzz target), before anything is measured or written.
enum class Stop { AfterParsing, AfterRun };

/// run_command_line: parses argv against `bench`'s workloads, measures, prints and writes the report.
/// Returns the exit status (0, 1 when a scenario or an output failed, 2 for a usage error).
[[nodiscard]] int run_command_line(const Bench& bench, int argc, char** argv, Stop stop);

/// same_case_name: whether two case names are the same with '-' and '_' taken as equal.
[[nodiscard]] bool same_case_name(std::string_view a, std::string_view b);

}  // namespace pto::bench::detail
