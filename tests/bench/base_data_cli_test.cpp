// docs/base-data.md conformance (bench/base_data_cli.h): the command-line spellings of --base-data and its
// companion options reach BaseDataOptions, and an empty file name is a missing file, not "option off".
#include "base_data_cli.h"

#include "base_data_support.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace pto::bench;

namespace {

BaseDataOptions parse(std::vector<std::string> args) {
    CLI::App app{"pto-bench"};
    BaseDataOptions options;
    add_base_data_options(app, options);
    std::vector<const char*> argv{"pto-bench"};
    for (const auto& arg : args) {
        argv.push_back(arg.c_str());
    }
    app.parse(static_cast<int>(argv.size()), argv.data());
    return options;
}

}  // namespace

TEST_CASE("the base-data option accepts both the FILE and the =FILE spelling", "[bench][base_data]") {
    CHECK(parse({"--base-data", "base.json"}).base_data_path == "base.json");
    CHECK(parse({"--base-data=base.json"}).base_data_path == "base.json");
    CHECK_FALSE(parse({}).base_data_path.has_value());
}

TEST_CASE("the emit-baseline, vendor and platform options fill BaseDataOptions", "[bench][base_data]") {
    const BaseDataOptions options =
        parse({"--emit-baseline=out.json", "--vendor", "T_Head", "--platform=XuanTie TH1520"});
    CHECK(options.emit_baseline_path == "out.json");
    CHECK(options.machine.vendor == "T_Head");
    CHECK(options.machine.platform == "XuanTie TH1520");
    CHECK_FALSE(options.base_data_path.has_value());
}

TEST_CASE("an empty --base-data file name gives one warning instead of being ignored", "[bench][base_data]") {
    nlohmann::json report = test::sample_report();
    const std::vector<std::string> warnings = run_base_data(report, parse({"--base-data", ""}));
    REQUIRE(warnings.size() == 1);
    CHECK(warnings.front().find("no file name given") != std::string::npos);
    CHECK(report["base_data"]["enabled"] == false);
}
