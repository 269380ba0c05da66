// pto-bench's charts, HTML report, progress line and output checks, on hand-made reports: axes fit the
// data, unmeasured tiers are not drawn, a chart without data says why, and bad paths are caught up front.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "charts.h"
#include "html_report.h"
#include "output_paths.h"
#include "plot.h"
#include "progress.h"
#include "pto/runtime/error.h"
#include "support/scratch.h"

using namespace pto::bench;

namespace {

nlohmann::json summary(double median, double min, double max) {
    return {{"median", median}, {"min", min}, {"max", max}};
}

nlohmann::json qwen3(const std::string& mode, const std::string& tier, double orch, double makespan,
                     double bound) {
    return {{"case", "qwen3"},
            {"mode", mode},
            {"tier", tier},
            {"peer", nullptr},
            {"orch_ns_per_task", summary(orch, orch * 0.9, orch * 1.2)},
            {"e2e_ns_per_task", summary(orch * 2, orch * 1.8, orch * 2.5)},
            {"sim", {{"makespan_us", makespan}, {"lower_bound_us", bound}}}};
}

nlohmann::json paged(const std::string& mode, double orch) {
    return {{"case", "paged_attention"},
            {"mode", mode},
            {"tier", nullptr},
            {"peer", nullptr},
            {"orch_ns_per_task", summary(orch, orch * 0.9, orch * 1.1)},
            {"e2e_ns_per_task", summary(orch * 3, orch * 2.9, orch * 3.3)}};
}

nlohmann::json report_of(nlohmann::json results) {
    return {{"schema", "pto-bench/1"},
            {"machine", {{"cpu", "test cpu"}, {"cores", 2}, {"date", "2026-01-01"}, {"git_sha", "abc"}}},
            {"results", std::move(results)}};
}

const Chart& chart(const std::vector<Chart>& charts, const std::string& id) {
    for (const Chart& c : charts)
        if (c.id == id) return c;
    FAIL("no chart " << id);
    return charts.front();
}

/// ticks: the numbers of a chart's value axis labels.
std::vector<double> ticks(const std::string& svg) {
    std::vector<double> values;
    const std::regex tick("class='tick'[^>]*>([0-9.]+)<");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick); it != std::sregex_iterator(); ++it)
        values.push_back(std::stod((*it)[1]));
    return values;
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1))
        ++n;
    return n;
}

}  // namespace

TEST_CASE("value axes end just above the data, on a round step", "[bench][report]") {
    CHECK(nice_axis(515).top == Approx(600));
    CHECK(nice_axis(515).step == Approx(100));
    CHECK(nice_axis(9805).top == Approx(10000));
    CHECK(nice_axis(1.5).top == Approx(1.6));
    CHECK(nice_axis(0).top == Approx(1));
    for (double v : {0.003, 0.7, 1.0, 3.3, 47.0, 101.0, 515.0, 999.0, 1001.0, 9805.0, 123456.0}) {
        INFO(v);
        const AxisScale a = nice_axis(v);
        CHECK(a.top >= v);
        CHECK(a.top <= v * 1.25);  // the data fills at least 80% of the axis
        CHECK(a.top / a.step <= 8.0 + 1e-9);
    }
}

TEST_CASE("the orchestration chart draws only measured tiers, with whiskers, scaled to the data",
          "[bench][report]") {
    const nlohmann::json report =
        report_of({qwen3("manual", "spmd-8", 515, 900, 800), qwen3("manual", "non-spmd", 300, 1000, 950),
                   qwen3("tensormap", "non-spmd", 410, 1100, 1000)});
    const std::vector<Chart> charts = report_charts(report);
    const Chart& orch = chart(charts, "orchestration");
    REQUIRE(orch.missing.empty());
    CHECK(count(orch.svg, "data-chart='orchestration'") == 1);
    CHECK(count(orch.svg, "class='category'") == 2);  // non-spmd and spmd-8 only
    CHECK(orch.svg.find(">non-spmd<") < orch.svg.find(">spmd-8<"));
    CHECK(orch.svg.find("spmd-4") == std::string::npos);
    CHECK(orch.svg.find("data-series='manual' data-points='2'") != std::string::npos);
    CHECK(orch.svg.find("data-series='tensormap' data-points='1'") != std::string::npos);
    CHECK(count(orch.svg, "class='whisker'") == 3);
    // max whisker 515 x 1.2 = 618: the axis ends at 700, not 1000.
    CHECK(ticks(orch.svg).back() == Approx(700));

    const Chart& makespan = chart(charts, "makespan");
    REQUIRE(makespan.missing.empty());
    CHECK(makespan.svg.find("data-series='manual lower bound'") != std::string::npos);
    CHECK(makespan.svg.find("stroke-dasharray") != std::string::npos);
    CHECK(ticks(makespan.svg).back() == Approx(1200));
}

TEST_CASE("charts without data are not drawn and say why", "[bench][report]") {
    const std::vector<Chart> charts =
        report_charts(report_of({paged("manual", 80), paged("tensormap", 300)}));
    CHECK(chart(charts, "orchestration").svg.empty());
    CHECK_THAT(chart(charts, "orchestration").missing, Catch::Contains("--case qwen3"));
    CHECK_THAT(chart(charts, "peers").missing, Catch::Contains("--peers"));
    CHECK_THAT(chart(charts, "base_data").missing, Catch::Contains("--base-data"));
    const Chart& pa = chart(charts, "paged_attention");
    REQUIRE(pa.missing.empty());
    CHECK(pa.svg.find("data-series='orchestration' data-points='2'") != std::string::npos);
    CHECK(pa.svg.find("data-series='end to end' data-points='2'") != std::string::npos);
    CHECK(ticks(pa.svg).back() == Approx(1000));  // max 990
}

TEST_CASE("results of other workloads get a chart of their own, drawn only when there are some",
          "[bench][report]") {
    CHECK(report_charts(report_of({paged("manual", 80)})).size() == 5);

    nlohmann::json mine = paged("manual", 50);
    mine["case"] = "diamonds";
    nlohmann::json theirs = paged("tensormap", 70);
    theirs["case"] = "chain";
    const std::vector<Chart> charts = report_charts(report_of({paged("manual", 80), mine, theirs}));
    REQUIRE(charts.size() == 6);
    const Chart& workloads = chart(charts, "workloads");
    REQUIRE(workloads.missing.empty());
    CHECK(workloads.svg.find("data-series='orchestration' data-points='2'") != std::string::npos);
    CHECK(workloads.svg.find("data-series='end to end' data-points='2'") != std::string::npos);
    CHECK(workloads.svg.find("diamonds manual") != std::string::npos);
    CHECK(chart(charts, "paged_attention").svg.find("data-points='1'") != std::string::npos);
}

TEST_CASE("the peers and baseline charts appear when the report has peers and matches", "[bench][report]") {
    nlohmann::json ours = qwen3("manual", "non-spmd", 100, 1, 1);
    ours["vs_base"] = {{"matched", true}, {"compared_speedup", 1.7}};
    nlohmann::json peer = ours;
    peer["peer"] = "tbb_flow_graph";
    peer["e2e_ns_per_task"] = summary(900, 850, 1000);
    nlohmann::json report = report_of({ours, peer});
    report["base_data"] = {{"enabled", true}};
    const std::vector<Chart> charts = report_charts(report);
    const Chart& peers = chart(charts, "peers");
    REQUIRE(peers.missing.empty());
    CHECK(peers.svg.find("data-series='pto' data-points='1'") <
          peers.svg.find("data-series='tbb_flow_graph'"));
    const Chart& base = chart(charts, "base_data");
    REQUIRE(base.missing.empty());
    CHECK(base.svg.find("data-series='compared speedup' data-points='1'") != std::string::npos);
    CHECK(base.svg.find("class='reference'") != std::string::npos);
}

TEST_CASE("the --plot SVG stacks the charts with data and refuses a report without any", "[bench][report]") {
    std::ostringstream svg;
    write_plot(svg, report_of({paged("manual", 80)}));
    CHECK(count(svg.str(), "data-chart=") == 1);
    CHECK(svg.str().find("not drawn: orchestration: no Qwen3") != std::string::npos);
    std::ostringstream empty;
    CHECK_THROWS_AS(write_plot(empty, report_of(nlohmann::json::array())), pto::Error);
}

TEST_CASE("the HTML report is one self-contained page with one panel per chart", "[bench][report]") {
    nlohmann::json report = report_of({qwen3("manual", "non-spmd", 100, 10, 9), paged("manual", 80)});
    report["run"] = {{"command_line", {"pto-bench", "--reps", "3"}}, {"warmup", 1}, {"reps", 3}};
    std::ostringstream html;
    write_html_report(html, report, "case  mode\nqwen3 <manual>\n");
    const std::string page = html.str();
    CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
    CHECK(page.find("<script") == std::string::npos);
    CHECK(page.find("http://") == page.find("http://www.w3.org/2000/svg"));  // the SVG namespace only
    CHECK(page.find("https://") == std::string::npos);
    CHECK(count(page, "<section class='panel'") == 5);
    CHECK(count(page, "data-chart=") == 3);  // orchestration, makespan, paged attention
    CHECK(count(page, "<p class='missing'>") == 2);
    CHECK(page.find("pto-bench --reps 3") != std::string::npos);
    CHECK(page.find("qwen3 &lt;manual&gt;") != std::string::npos);
}

TEST_CASE("the progress line shows elapsed time and an estimate, and never exceeds the terminal",
          "[bench][progress]") {
    CHECK(format_progress(0, 4, 0.0, "qwen3/manual/non-spmd", 120) ==
          "[0/4 0:00 elapsed] qwen3/manual/non-spmd");
    CHECK(format_progress(1, 4, 65.0, "x", 120) == "[1/4 1:05 elapsed, ~3:15 left] x");
    for (std::size_t width : {1u, 10u, 20u, 40u}) {
        INFO(width);
        CHECK(format_progress(2, 40, 3725.0, "paged_attention/static-tensormap", width).size() <=
              width - (width > 0));
    }
}

TEST_CASE("output paths are checked for a missing or unwritable directory", "[bench][outputs]") {
    const std::filesystem::path dir = pto::test::scratch_dir("pto-bench-outputs");
    CHECK(why_unwritable((dir / "ok.json").string()).empty());
    CHECK_THAT(why_unwritable("/nonexistent-pto-dir/x.json"),
               Catch::Contains("/nonexistent-pto-dir does not exist"));
    CHECK_THAT(why_unwritable(dir.string()), Catch::Contains("is a directory"));
    const auto problems = check_outputs({{"--json", "/nonexistent-pto-dir/x.json"}, {"--trace", ""}});
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems[0], Catch::Contains("--json /nonexistent-pto-dir/x.json"));

    const std::string path = (dir / "atomic.txt").string();
    CHECK(write_atomically(path, [](std::ostream& out) { out << "first\n"; }).empty());
    // A writer that fails leaves the previous file as it was and no temporary behind.
    const std::string error = write_atomically(path, [](std::ostream& out) {
        out << "half";
        throw std::runtime_error("the writer failed");
    });
    CHECK(error == "the writer failed");
    CHECK(pto::test::read_text(path) == "first\n");
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir))
        ++files;
    CHECK(files == 1);

    // A symbolic link is written through, not replaced by a rename (nor is a device such as /dev/null).
    const std::filesystem::path target = dir / "target.txt";
    const std::filesystem::path link = dir / "link.txt";
    std::filesystem::create_symlink(target, link);
    CHECK(write_atomically(link.string(), [](std::ostream& out) { out << "through\n"; }).empty());
    CHECK(std::filesystem::is_symlink(link));
    CHECK(pto::test::read_text(target) == "through\n");
}

TEST_CASE("a whisker far above the P90 is cut at the top of the axis and labelled", "[bench][report]") {
    nlohmann::json slow = qwen3("manual", "non-spmd", 100, 1, 1);
    slow["orch_ns_per_task"] = {{"median", 100}, {"min", 90}, {"p10", 95}, {"p90", 130}, {"max", 7500}};
    const std::vector<Chart> charts = report_charts(report_of({slow}));
    const Chart& orch = chart(charts, "orchestration");
    CHECK(ticks(orch.svg).back() == Approx(140));  // scaled to the P90, not to the one slow repetition
    CHECK(orch.svg.find("class='cut'") != std::string::npos);
    CHECK(orch.svg.find(">max 7500<") != std::string::npos);
}
