// libFuzzer target: pto-bench's command line. The input is split at NUL bytes into argv (at most 32
// arguments) and handed to the bench library's command line with pto-bench's built-in workloads, told to
// stop once the options are parsed and checked, before measuring or writing anything. It must return 0
// (accepted,
// --help, --list) or 2 (a usage error), never crash, hang or throw. A --base-data value is also loaded as
// pto-bench would load it after measuring: whatever the path names (a device, a FIFO, a huge file), it must
// come back at once as a usable baseline or one warning.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

#include "base_data.h"
#include "builtin_workloads.h"
#include "command_line.h"

namespace {

constexpr std::size_t kMaxArguments = 32;

/// pto_bench_parse: pto-bench's command line, parsed and checked only.
int pto_bench_parse(int argc, char** argv) {
    static const pto::bench::Bench bench = [] {
        pto::bench::Bench b("pto-bench");
        for (pto::bench::WorkloadSpec& workload : pto::bench::builtin_workloads())
            b.add(std::move(workload));
        return b;
    }();
    return pto::bench::detail::run_command_line(bench, argc, argv, pto::bench::detail::Stop::AfterParsing);
}

/// NullBuffer: swallows pto-bench's usage text and listings, which would otherwise flood the fuzzer's log.
class NullBuffer : public std::streambuf {
  protected:
    int overflow(int c) override { return c; }
    std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

[[noreturn]] void bug(const std::string& what) {
    std::fprintf(stderr, "fuzz_bench_cli: %s\n", what.c_str());
    std::abort();
}

std::vector<std::string> split_arguments(std::string_view input) {
    std::vector<std::string> args{"pto-bench"};
    std::size_t start = 0;
    while (start <= input.size() && args.size() <= kMaxArguments) {
        const std::size_t end = std::min(input.find('\0', start), input.size());
        args.emplace_back(input.substr(start, end - start));
        start = end + 1;
    }
    return args;
}

/// base_data_value: the file a --base-data option names (the last one wins, as in CLI11), if any.
const std::string* base_data_value(const std::vector<std::string>& args, std::string& storage) {
    const std::string* found = nullptr;
    for (std::size_t i = 1; i < args.size(); ++i) {
        if (args[i] == "--base-data" && i + 1 < args.size()) {
            found = &args[i + 1];
        } else if (args[i].rfind("--base-data=", 0) == 0) {
            storage = args[i].substr(12);
            found = &storage;
        }
    }
    return found;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    static NullBuffer null;
    std::cout.rdbuf(&null);
    std::cerr.rdbuf(&null);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args =
        split_arguments(std::string_view(reinterpret_cast<const char*>(data), size));
    std::vector<char*> argv;
    for (std::string& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    int status = -1;
    try {
        status = pto_bench_parse(static_cast<int>(args.size()), argv.data());
    } catch (const std::exception& e) {
        bug(std::string("exception escaped pto-bench's option parsing: ") + e.what());
    }
    if (status != 0 && status != 2) bug("unexpected exit status " + std::to_string(status));

    std::string storage;
    if (const std::string* path = base_data_value(args, storage)) {
        const pto::bench::Baseline baseline = pto::bench::load_baseline(*path);
        if (!baseline.is_enabled() && baseline.warnings.size() != 1)
            bug("a disabled baseline without exactly one warning: " + *path);
    }
    return 0;
}
