// The public face of the bench library: scheme and tier names, and the registry of workloads whose run()
// hands the command line to command_line.cpp.
#include "pto/bench/bench.h"

#include <algorithm>
#include <limits>

#include "command_line.h"
#include "pto/runtime/detail/throw.h"

namespace pto::bench {

std::string_view to_string(Scheme scheme) {
    switch (scheme) {
        case Scheme::Manual:
            return "manual";
        case Scheme::Tensormap:
            return "tensormap";
        case Scheme::StaticManual:
            return "static-manual";
        case Scheme::StaticTensormap:
            return "static-tensormap";
    }
    return "?";
}

std::string_view to_string(Tier tier) {
    switch (tier) {
        case Tier::NonSpmd:
            return "non-spmd";
        case Tier::Spmd2:
            return "spmd-2";
        case Tier::Spmd4:
            return "spmd-4";
        case Tier::Spmd8:
            return "spmd-8";
        case Tier::AllSpmd:
            return "all-spmd";
    }
    return "?";
}

std::uint32_t target_width(Tier tier) {
    switch (tier) {
        case Tier::NonSpmd:
            return 1;
        case Tier::Spmd2:
            return 2;
        case Tier::Spmd4:
            return 4;
        case Tier::Spmd8:
            return 8;
        case Tier::AllSpmd:
            break;
    }
    return std::numeric_limits<std::uint32_t>::max();
}

Bench::Bench(std::string program) : program_(std::move(program)) {}

Bench& Bench::add(WorkloadSpec spec) {
    const auto refuse = [&](const std::string& why) {
        pto::detail::throw_error(ErrorCode::InvalidArgument,
                                 "Bench::add: workload '" + spec.name + "' " + why);
    };
    if (spec.name.empty()) refuse("has no name");
    if (spec.name == "all") refuse("is named like the option value that selects every workload");
    // ',' separates --case values and '/' the parts of a scenario id.
    if (spec.name.find_first_of(",/ \t") != std::string::npos)
        refuse("has a name with a comma, a slash or a space");
    for (const WorkloadSpec& w : workloads_)
        if (detail::same_case_name(w.name, spec.name)) refuse("is already registered");
    if (spec.schemes.empty()) refuse("has no scheme");
    for (auto s = spec.schemes.begin(); s != spec.schemes.end(); ++s)
        if (std::find(spec.schemes.begin(), s, *s) != s)
            refuse("lists the " + std::string(to_string(*s)) + " scheme twice");
    if (!spec.make) refuse("has no make function");
    workloads_.push_back(std::move(spec));
    return *this;
}

int Bench::run(int argc, char** argv) const {
    return detail::run_command_line(*this, argc, argv, detail::Stop::AfterRun);
}

}  // namespace pto::bench
