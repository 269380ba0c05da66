// CLI11 wiring of the docs/base-data.md options for pto-bench's main: one call registers --base-data,
// --emit-baseline, --vendor and --platform into a BaseDataOptions that run_base_data() consumes.
#pragma once

#include "base_data.h"
#include "input_files.h"

#include <CLI/CLI.hpp>

#include <string>

namespace pto::bench {

/// add_base_data_options: registers the four options on `app`, writing into `options`, which must outlive
/// app.parse(). CLI11 accepts both "--base-data FILE" and "--base-data=FILE". Once parsing completes,
/// --emit-baseline naming the --base-data file (any spelling, a link to it, or the same new path) is a
/// CLI::ValidationError: the baseline would be overwritten by this run and then compared with itself.
/// Header-only so that pto_bench_core does not depend on CLI11; the including target links CLI11::CLI11.
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
    app.parse_complete_callback([&options] {
        if (options.base_data_path && options.emit_baseline_path && !options.base_data_path->empty() &&
            is_same_file(*options.base_data_path, *options.emit_baseline_path))
            throw CLI::ValidationError("--emit-baseline",
                                       "'" + *options.emit_baseline_path + "' is the --base-data file '" +
                                           *options.base_data_path +
                                           "': writing it would replace the baseline with this run and then "
                                           "compare the run with itself; emit to another file");
    });
}

}  // namespace pto::bench
