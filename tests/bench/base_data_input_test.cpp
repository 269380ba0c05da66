// Hostile --base-data inputs (bench/input_files.h, bench/base_data_load.cpp): a FIFO, a device, an oversized
// file, nesting 60 000 levels deep and invalid UTF-8 each give one warning and a disabled comparison, at
// once and in bounded memory; the report stays writable as strict JSON. --emit-baseline naming the
// --base-data file is refused on the command line.
#include "base_data_cli.h"
#include "base_data_support.h"
#include "input_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/scratch.h"

using namespace pto::bench;
namespace fs = std::filesystem;

namespace {

void require_one_warning(const Baseline& baseline, const std::string& fragment) {
    INFO("warnings: "
         << nlohmann::json(baseline.warnings).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    REQUIRE_FALSE(baseline.is_enabled());
    REQUIRE(baseline.warnings.size() == 1);
    CHECK(baseline.warnings.front().find(fragment) != std::string::npos);
    CHECK(baseline.warnings.front().find("comparison disabled") != std::string::npos);
}

/// strict_dump_of_compared: the sample report compared with `baseline`, dumped with nlohmann's default
/// (throwing) UTF-8 handling, as any consumer of the report would.
std::string strict_dump_of_compared(const Baseline& baseline, const MachineOverride& machine = {}) {
    nlohmann::json report = test::sample_report();
    apply_baseline(report, baseline, machine);
    REQUIRE(report.contains("base_data"));
    return report.dump();
}

void write_file(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

BaseDataOptions parse(const std::vector<std::string>& args) {
    CLI::App app{"pto-bench"};
    BaseDataOptions options;
    add_base_data_options(app, options);
    std::vector<const char*> argv{"pto-bench"};
    for (const auto& arg : args)
        argv.push_back(arg.c_str());
    app.parse(static_cast<int>(argv.size()), argv.data());
    return options;
}

}  // namespace

TEST_CASE("a FIFO given as the baseline is refused at once instead of blocking",
          "[bench][base_data][input]") {
    const fs::path fifo = pto::test::scratch_dir("pto-base-data-fifo") / "baseline.json";
    fs::remove(fifo);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);  // no writer will ever open it
    require_one_warning(load_baseline(fifo.string()), "FIFO, not a regular file");
    fs::remove(fifo);
}

TEST_CASE("a device given as the baseline is refused instead of read without end",
          "[bench][base_data][input]") {
    require_one_warning(load_baseline("/dev/zero"), "character device, not a regular file");
}

TEST_CASE("a baseline file over the size cap is refused before it is read", "[bench][base_data][input]") {
    const fs::path big = pto::test::scratch_dir("pto-base-data-big") / "baseline.json";
    write_file(big, "");
    fs::resize_file(big, 100ull << 20);  // sparse: costs no disk, and the loader must not read it
    const Baseline baseline = load_baseline(big.string());
    require_one_warning(
        baseline, "104857600 bytes; a baseline file may have at most " + std::to_string(kMaxBaselineBytes));
    fs::remove(big);
    const FileText fits = read_regular_file("/proc/self/status", kMaxBaselineBytes, "a test file");
    CHECK(fits.error.empty());  // a regular file whose size stat reports as 0 is still read whole
    CHECK_FALSE(fits.text.empty());
}

TEST_CASE("a baseline nested 60 000 levels deep is refused without recursion", "[bench][base_data][input]") {
    // A valid baseline but for one record key nested 60 000 levels deep.
    std::string deep = R"({"format": "pto-bench-baseline", "version": 1, "primary_metric": "orch_ns_per_task",
                          "records": [{"case": "qwen3", "metrics": {"orch_ns_per_task": 1.0}, "key": )";
    for (int i = 0; i < 60000; ++i)
        deep += R"({"k": )";
    deep += "1";
    for (int i = 0; i < 60000; ++i)
        deep += "}";
    deep += "}]}";
    const Baseline baseline = parse_baseline(deep, "deep.json");
    require_one_warning(baseline, "nested deeper than " + std::to_string(kMaxBaselineDepth) + " levels");
    (void)strict_dump_of_compared(baseline);
    std::string arrays(60000, '[');
    arrays += std::string(60000, ']');
    require_one_warning(parse_baseline(arrays, "arrays.json"), "nested deeper");
    // Real nesting well inside the cap still loads.
    const Baseline fine = load_baseline(test::fixture("exact.json"));
    CHECK(fine.is_enabled());
}

TEST_CASE(
    "invalid UTF-8 in the baseline file or path or in the vendor and platform keeps the report strict JSON",
    "[bench][base_data][input]") {
    const fs::path dir = pto::test::scratch_dir("pto-base-data-utf8");
    const fs::path bad_text = dir / "bad_text.json";
    write_file(bad_text, "{\"format\": \"pto-bench-\xff\xfe\", \"version\": 1}");
    const Baseline broken = load_baseline(bad_text.string());
    require_one_warning(broken, "bad_text.json");
    CHECK_NOTHROW(strict_dump_of_compared(broken));

    const fs::path bad_name = dir / "base\xff\xc3.json";
    fs::copy_file(test::fixture("exact.json"), bad_name, fs::copy_options::overwrite_existing);
    const Baseline loaded = load_baseline(bad_name.string());
    REQUIRE(loaded.is_enabled());
    MachineOverride machine;
    machine.vendor = std::string(
        "ven\xc0\xaf"
        "dor");
    machine.platform = std::string("plat\xed\xa0\x80");
    std::string dumped;
    CHECK_NOTHROW(dumped = strict_dump_of_compared(loaded, machine));
    CHECK(dumped.find("\xef\xbf\xbd") != std::string::npos);  // U+FFFD where the bytes were
}

TEST_CASE("an emitted baseline naming the compared baseline file is a usage error",
          "[bench][base_data][input]") {
    const fs::path dir = pto::test::scratch_dir("pto-base-data-same");
    const fs::path base = dir / "base.json";
    fs::copy_file(test::fixture("exact.json"), base, fs::copy_options::overwrite_existing);
    const fs::path link = dir / "link.json";
    fs::remove(link);
    fs::create_symlink(base, link);
    const std::string dotted = (dir / "." / "base.json").string();
    for (const std::string& emit : {base.string(), dotted, link.string()}) {
        INFO(emit);
        CHECK_THROWS_AS(parse({"--base-data", base.string(), "--emit-baseline", emit}), CLI::ValidationError);
    }
    const std::string fresh = (dir / "new.json").string();
    CHECK_THROWS_AS(parse({"--emit-baseline=" + fresh, "--base-data", fresh}), CLI::ValidationError);
    const BaseDataOptions distinct = parse({"--base-data", base.string(), "--emit-baseline", fresh});
    CHECK(distinct.emit_baseline_path == fresh);
}
