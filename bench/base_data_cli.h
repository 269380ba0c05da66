// CLI11 wiring of the SPEC §9 options for pto-bench's main: one call registers --base-data,
// --emit-baseline, --vendor and --platform into a BaseDataOptions that run_base_data() consumes.
#pragma once

#include "base_data.h"

#include <CLI/CLI.hpp>

#include <string>

namespace pto::bench {

/// add_base_data_options: registers the four options on `app`, writing into `options`, which must outlive
/// app.parse(). CLI11 accepts both "--base-data FILE" and "--base-data=FILE". Header-only so that
/// pto_bench_core does not depend on CLI11; the including target links CLI11::CLI11.
inline void add_base_data_options(CLI::App& app, BaseDataOptions& options) {
    app.add_option_function<std::string>(
           "--base-data", [&options](const std::string& path) { options.base_data_path = path; },
           "Compare with the baseline JSON FILE and add vs_base / a \"vs Base\" column (docs/base-data.md)")
        ->type_name("FILE");
    app.add_option_function<std::string>(
           "--emit-baseline", [&options](const std::string& path) { options.emit_baseline_path = path; },
           "Write this run as a baseline JSON FILE for a later --base-data")
        ->type_name("FILE");
    app.add_option_function<std::string>(
           "--vendor", [&options](const std::string& vendor) { options.machine.vendor = vendor; },
           "Vendor used to pick a _scaling_factors entry (default: the report's machine.vendor)")
        ->type_name("NAME");
    app.add_option_function<std::string>(
           "--platform", [&options](const std::string& platform) { options.machine.platform = platform; },
           "Platform used to pick a _scaling_factors entry (default: the report's machine.platform)")
        ->type_name("NAME");
}

}  // namespace pto::bench
