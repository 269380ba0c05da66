// The calibration search and the --fit command. Costs are fitted on a log scale because they span orders
// of magnitude (0.01 us per edge to several us per dispatch) and a relative error is what matters; the
// objective is the sum of squared log errors, so a 10 % miss weighs the same on a 2 ms span and on a ratio.
#include "fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <memory>
#include <ostream>

#include "catalog.h"
#include "pto/runtime/detail/throw.h"
#include "runner.h"

namespace pto::bench {
namespace {

constexpr const char* kMeasuredSchema = "pto-sim-measured/1";
constexpr const char* kProfileSchema = "pto-sim-profile/1";
constexpr std::uint32_t kEvaluationsPerRun = 60;  // per free parameter, per Nelder-Mead run

[[noreturn]] void bad(const std::string& message) {
    detail::throw_error(ErrorCode::InvalidArgument, message);
}

const CostParameter& parameter_named(const std::string& name) {
    const CostParameter* p = find_cost_parameter(name);
    if (p == nullptr) bad("fit: unknown cost parameter '" + name + "'");
    return *p;
}

/// Box: the free parameters' log ranges; a point is y in [0, 1]^n.
struct Box {
    std::vector<const CostParameter*> params;
    std::vector<double> log_lo, log_hi;
    std::vector<std::pair<const CostParameter*, const CostParameter*>> tied;  // follower, leader

    CostModel apply(CostModel cost, const std::vector<double>& y) const {
        for (std::size_t i = 0; i < params.size(); ++i) {
            const double t = std::clamp(y[i], 0.0, 1.0);
            cost.*params[i]->field = std::exp(log_lo[i] + t * (log_hi[i] - log_lo[i]));
        }
        for (const auto& [follower, leader] : tied)
            cost.*follower->field = cost.*leader->field;
        return cost;
    }
};

double objective_of(const std::vector<double>& predicted, const std::vector<FitTarget>& targets) {
    double sum = 0.0;
    for (std::size_t i = 0; i < targets.size(); ++i) {
        if (predicted[i] <= 0.0) return std::numeric_limits<double>::infinity();
        const double e = std::log(predicted[i] / targets[i].measured);
        sum += e * e;
    }
    return sum;
}

/// NelderMead: minimises f over [0, 1]^n (points are clamped before evaluation, so the simplex may lean
/// on a wall but never evaluates outside the box).
struct NelderMead {
    const FitProblem& problem;
    const Box& box;
    std::uint32_t evaluations = 0;

    double f(std::vector<double>& y) {
        for (double& v : y)
            v = std::clamp(v, 0.0, 1.0);
        ++evaluations;
        return objective_of(predict(problem, box.apply(problem.base, y)), problem.targets);
    }

    std::pair<std::vector<double>, double> run(std::vector<double> start, double step) {
        const std::size_t n = start.size();
        std::vector<std::vector<double>> x(n + 1, start);
        std::vector<double> fx(n + 1);
        for (std::size_t i = 0; i < n; ++i)
            x[i + 1][i] += start[i] + step <= 1.0 ? step : -step;
        for (std::size_t i = 0; i <= n; ++i)
            fx[i] = f(x[i]);
        const std::uint32_t budget = evaluations + kEvaluationsPerRun * static_cast<std::uint32_t>(n);
        while (evaluations < budget) {
            std::vector<std::size_t> order(n + 1);
            for (std::size_t i = 0; i <= n; ++i)
                order[i] = i;
            std::stable_sort(order.begin(), order.end(),
                             [&](std::size_t a, std::size_t b) { return fx[a] < fx[b]; });
            const std::size_t best = order[0];
            const std::size_t worst = order[n];
            const std::size_t second = order[n - 1];
            if (fx[worst] - fx[best] < 1e-12) break;
            std::vector<double> centroid(n, 0.0);
            for (std::size_t i = 0; i <= n; ++i)
                if (i != worst)
                    for (std::size_t d = 0; d < n; ++d)
                        centroid[d] += x[i][d] / static_cast<double>(n);
            const auto along = [&](double t) {
                std::vector<double> p(n);
                for (std::size_t d = 0; d < n; ++d)
                    p[d] = centroid[d] + t * (x[worst][d] - centroid[d]);
                return p;
            };
            std::vector<double> r = along(-1.0);
            const double fr = f(r);
            if (fr < fx[best]) {
                std::vector<double> e = along(-2.0);
                const double fe = f(e);
                if (fe < fr) {
                    x[worst] = e;
                    fx[worst] = fe;
                } else {
                    x[worst] = r;
                    fx[worst] = fr;
                }
                continue;
            }
            if (fr < fx[second]) {
                x[worst] = r;
                fx[worst] = fr;
                continue;
            }
            std::vector<double> c = fr < fx[worst] ? along(-0.5) : along(0.5);
            const double fc = f(c);
            if (fc < std::min(fr, fx[worst])) {
                x[worst] = c;
                fx[worst] = fc;
                continue;
            }
            for (std::size_t i = 0; i <= n; ++i) {  // shrink towards the best
                if (i == best) continue;
                for (std::size_t d = 0; d < n; ++d)
                    x[i][d] = x[best][d] + 0.5 * (x[i][d] - x[best][d]);
                fx[i] = f(x[i]);
            }
        }
        const std::size_t best =
            static_cast<std::size_t>(std::min_element(fx.begin(), fx.end()) - fx.begin());
        return {x[best], fx[best]};
    }
};

// ---- Measurement files ----------------------------------------------------------------------------

struct MeasuredRow {
    std::string id;
    Scenario scenario;
    bool pending_slots = true;
    bool drop_allocs = false;
    std::optional<double> span_us;
    std::optional<double> reported_span_us;  // a span recorded for reference only (not fitted)
};

struct Measurements {
    std::string name;
    std::string source;
    CostModel base;
    std::vector<FitParameter> free;
    std::vector<FitTie> tied;
    std::vector<MeasuredRow> rows;
    struct Ratio {
        std::string id, numerator, denominator;
        double value;
    };
    std::vector<Ratio> ratios;
};

Scenario scenario_for(const std::vector<Scenario>& catalog, const std::string& where,
                      const nlohmann::json& row) {
    const std::string case_name = row.at("case").get<std::string>();
    const auto scheme = parse_scheme(row.at("mode").get<std::string>());
    if (!scheme) bad(where + ": unknown mode " + row.at("mode").dump());
    std::optional<Tier> tier;
    if (row.contains("tier") && !row.at("tier").is_null()) {
        tier = parse_tier(row.at("tier").is_string() ? row.at("tier").get<std::string>()
                                                     : row.at("tier").dump());
        if (!tier) bad(where + ": unknown tier " + row.at("tier").dump());
    }
    for (const Scenario& s : catalog)
        if (s.workload->name == case_name && s.mode == *scheme && s.tier == tier) return s;
    bad(where + ": no scenario " + case_name + "/" + row.at("mode").get<std::string>() +
        (tier ? "/" + std::string(to_string(*tier)) : ""));
}

Measurements load_measurements(const std::vector<Scenario>& catalog, const std::string& path) {
    std::ifstream in(path);
    if (!in) bad("--fit " + path + ": cannot read the file");
    Measurements m;
    try {
        nlohmann::json j;
        in >> j;
        if (j.value("schema", "") != kMeasuredSchema)
            bad(path + ": expected \"schema\": \"" + kMeasuredSchema + "\"");
        m.name = j.at("name").get<std::string>();
        m.source = j.value("source", "");
        m.base = without_aicpu_costs(CostModel{});
        if (j.contains("fixed"))
            for (const auto& [key, value] : j.at("fixed").items())
                m.base.*parameter_named(key).field = value.get<double>();
        for (const auto& [key, range] : j.at("free").items()) {
            parameter_named(key);
            m.free.push_back(FitParameter{key, range.at(0).get<double>(), range.at(1).get<double>()});
        }
        if (j.contains("tied"))
            for (const auto& [follower, leader] : j.at("tied").items()) {
                parameter_named(follower);
                parameter_named(leader.get<std::string>());
                m.tied.push_back(FitTie{follower, leader.get<std::string>()});
            }
        for (const nlohmann::json& row : j.at("rows")) {
            MeasuredRow r;
            r.id = row.at("id").get<std::string>();
            r.scenario = scenario_for(catalog, path + ": row " + r.id, row);
            r.pending_slots = row.value("pending_slots", true);
            r.drop_allocs = row.value("drop_allocs", false);
            if (row.contains("span_us") && !row.at("span_us").is_null())
                r.span_us = row.at("span_us").get<double>();
            if (row.contains("reported_span_us"))
                r.reported_span_us = row.at("reported_span_us").get<double>();
            m.rows.push_back(std::move(r));
        }
        if (j.contains("ratios"))
            for (const nlohmann::json& ratio : j.at("ratios"))
                m.ratios.push_back(Measurements::Ratio{
                    ratio.at("id").get<std::string>(), ratio.at("numerator").get<std::string>(),
                    ratio.at("denominator").get<std::string>(), ratio.at("value").get<double>()});
    } catch (const nlohmann::json::exception& e) {
        bad(path + ": " + e.what());
    }
    return m;
}

/// LoadedProblem: a FitProblem with the graphs it points to.
struct LoadedProblem {
    Measurements measurements;
    std::vector<std::unique_ptr<GraphRecord>> graphs;
    FitProblem problem;
};

LoadedProblem load_problem(const std::vector<Scenario>& catalog, const std::string& path) {
    LoadedProblem lp;
    lp.measurements = load_measurements(catalog, path);
    const Measurements& m = lp.measurements;
    lp.problem.base = m.base;
    lp.problem.free = m.free;
    lp.problem.tied = m.tied;
    std::map<std::string, std::size_t> index;
    for (const MeasuredRow& r : m.rows) {
        RecordedGraph recorded = record_graph(r.scenario);
        auto graph = std::make_unique<GraphRecord>(r.drop_allocs ? without_alloc_tasks(recorded.graph)
                                                                 : std::move(recorded.graph));
        FitCase c;
        c.graph = graph.get();
        c.config.use_pending_slots = r.pending_slots;
        c.config.tensormap_lookups = recorded.stats.tensormap_lookups;
        c.config.tensormap_inserts = recorded.stats.tensormap_inserts;
        c.config.record_trace = false;
        index[r.id] = lp.problem.cases.size();
        lp.problem.cases.push_back(c);
        lp.graphs.push_back(std::move(graph));
        if (r.span_us) lp.problem.targets.push_back(FitTarget{r.id, index[r.id], std::nullopt, *r.span_us});
    }
    for (const Measurements::Ratio& ratio : m.ratios) {
        if (!index.contains(ratio.numerator) || !index.contains(ratio.denominator))
            bad(path + ": ratio " + ratio.id + " names a row that does not exist");
        lp.problem.targets.push_back(
            FitTarget{ratio.id, index.at(ratio.numerator), index.at(ratio.denominator), ratio.value});
    }
    return lp;
}

nlohmann::json residuals_json(const FitProblem& problem, const std::vector<double>& predicted) {
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t i = 0; i < problem.targets.size(); ++i) {
        const FitTarget& t = problem.targets[i];
        rows.push_back({{"id", t.id},
                        {"kind", t.denominator ? "ratio" : "span_us"},
                        {"measured", t.measured},
                        {"predicted", predicted[i]},
                        {"error_pct", 100.0 * (predicted[i] / t.measured - 1.0)}});
    }
    return rows;
}

}  // namespace

double span_us(const GraphRecord& graph, const SimConfig& config) {
    const SimReport r = simulate(graph, config);
    if (r.timeline.empty()) return 0.0;
    std::int64_t first = std::numeric_limits<std::int64_t>::max();
    std::int64_t last = 0;
    for (const SubtaskRecord& s : r.timeline) {
        first = std::min(first, s.start_ns);
        last = std::max(last, s.end_ns);
    }
    return static_cast<double>(last - first) / 1000.0;
}

std::vector<double> case_spans(const FitProblem& problem, const CostModel& cost) {
    std::vector<double> spans(problem.cases.size());
    for (std::size_t i = 0; i < problem.cases.size(); ++i) {
        SimConfig c = problem.cases[i].config;
        c.cost = cost;  // kernel duration overrides, if any, are part of the candidate (from the base)
        c.record_trace = false;
        spans[i] = span_us(*problem.cases[i].graph, c);
    }
    return spans;
}

std::vector<double> predict(const FitProblem& problem, const CostModel& cost) {
    const std::vector<double> spans = case_spans(problem, cost);
    std::vector<double> out;
    out.reserve(problem.targets.size());
    for (const FitTarget& t : problem.targets)
        out.push_back(t.denominator ? spans[t.numerator] / spans[*t.denominator] : spans[t.numerator]);
    return out;
}

FitResult fit_costs(const FitProblem& problem) {
    if (problem.targets.empty()) bad("fit: nothing to fit (no measured span or ratio)");
    for (const FitTarget& t : problem.targets)
        if (!(t.measured > 0.0) || t.numerator >= problem.cases.size() ||
            (t.denominator && *t.denominator >= problem.cases.size()))
            bad("fit: target " + t.id + " needs a positive measurement of existing cases");
    Box box;
    for (const FitParameter& p : problem.free) {
        if (!(p.lo > 0.0) || !(p.hi > p.lo) || !std::isfinite(p.hi))
            bad("fit: parameter " + p.name + " needs 0 < lo < hi, got [" + std::to_string(p.lo) + ", " +
                std::to_string(p.hi) + "]");
        box.params.push_back(&parameter_named(p.name));
        box.log_lo.push_back(std::log(p.lo));
        box.log_hi.push_back(std::log(p.hi));
    }
    for (const FitTie& t : problem.tied)
        box.tied.emplace_back(&parameter_named(t.follower), &parameter_named(t.leader));
    NelderMead nm{problem, box};
    std::vector<double> best_y(box.params.size(), 0.5);
    double best_f = std::numeric_limits<double>::infinity();
    if (box.params.empty()) best_f = nm.f(best_y);
    for (const double start : {0.5, 0.25, 0.75}) {
        if (box.params.empty()) break;
        auto [y, fy] = nm.run(std::vector<double>(box.params.size(), start), 0.2);
        auto [y2, fy2] = nm.run(y, 0.05);  // restart: a fresh simplex around the point found
        if (fy2 < fy) {
            y = y2;
            fy = fy2;
        }
        if (fy < best_f) {
            best_f = fy;
            best_y = y;
        }
    }
    FitResult r;
    r.cost = box.apply(problem.base, best_y);
    // The model rounds every cost to the nanosecond, so rounding the result there loses nothing and keeps
    // the profile readable.
    for (const CostParameter& p : cost_parameters())
        if (p.field != &CostModel::duration_cv)
            r.cost.*p.field = std::round(r.cost.*p.field * 1000.0) / 1000.0;
    r.predicted = predict(problem, r.cost);
    r.objective = objective_of(r.predicted, problem.targets);
    r.evaluations = nm.evaluations;
    return r;
}

GraphRecord without_alloc_tasks(const GraphRecord& graph) {
    GraphRecord out;
    out.kernels = graph.kernels;
    std::vector<std::int64_t> new_id(graph.tasks.size(), -1);
    const std::uint64_t first_id = graph.tasks.empty() ? 0 : graph.tasks.front().id.value;
    for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
        const RecordedTask& t = graph.tasks[i];
        if (t.kind == TaskKind::Alloc) continue;
        new_id[i] = static_cast<std::int64_t>(first_id + out.tasks.size());
        RecordedTask copy = t;
        copy.id = TaskId{static_cast<std::uint64_t>(new_id[i])};
        copy.first_producer = static_cast<std::uint32_t>(out.producers.size());
        for (const TaskId p : graph.producers_of(t)) {
            const std::int64_t pi = graph.index_of(p);
            if (pi >= 0 && new_id[static_cast<std::size_t>(pi)] < 0) continue;  // an alloc task
            out.producers.push_back(
                pi >= 0 ? TaskId{static_cast<std::uint64_t>(new_id[static_cast<std::size_t>(pi)])} : p);
        }
        copy.producer_count = static_cast<std::uint32_t>(out.producers.size()) - copy.first_producer;
        out.tasks.push_back(copy);
    }
    return out;
}

nlohmann::json evaluate_measurements(const std::vector<Scenario>& catalog, const std::string& measured_path,
                                     const CostModel& cost) {
    const LoadedProblem lp = load_problem(catalog, measured_path);
    return residuals_json(lp.problem, predict(lp.problem, cost));
}

int run_fit_command(const std::vector<Scenario>& catalog, const std::string& measured_path,
                    const std::string& out_path, std::ostream& out, std::ostream& err) {
    try {
        const LoadedProblem lp = load_problem(catalog, measured_path);
        const FitResult r = fit_costs(lp.problem);
        nlohmann::json costs = nlohmann::json::object();
        for (const CostParameter& p : cost_parameters())
            costs[p.name] = r.cost.*p.field;
        nlohmann::json free = nlohmann::json::object();
        for (const FitParameter& p : lp.problem.free)
            free[p.name] = {p.lo, p.hi};
        nlohmann::json tied = nlohmann::json::object();
        for (const FitTie& t : lp.problem.tied)
            tied[t.follower] = t.leader;
        const nlohmann::json residuals = residuals_json(lp.problem, r.predicted);
        nlohmann::json spans = nlohmann::json::array();
        const std::vector<double> predicted_spans = case_spans(lp.problem, r.cost);
        for (std::size_t i = 0; i < lp.measurements.rows.size(); ++i) {
            const MeasuredRow& row = lp.measurements.rows[i];
            nlohmann::json s = {{"id", row.id}, {"predicted_span_us", predicted_spans[i]}};
            if (row.span_us) s["measured_span_us"] = *row.span_us;
            if (row.reported_span_us) s["reported_span_us"] = *row.reported_span_us;
            spans.push_back(s);
        }
        const nlohmann::json profile = {
            {"schema", kProfileSchema},
            {"name", lp.measurements.name},
            {"source", lp.measurements.source},
            {"fitted_from", std::filesystem::path(measured_path).filename().string()},
            {"free", free},
            {"tied", tied},
            {"costs", costs},
            {"objective", r.objective},
            {"evaluations", r.evaluations},
            {"residuals", residuals},
            {"spans", spans}};

        out << "fit of " << lp.measurements.name << " (" << r.evaluations << " evaluations, objective "
            << std::setprecision(4) << r.objective << ")\n";
        for (const FitParameter& p : lp.problem.free)
            out << "  " << std::left << std::setw(22) << p.name << std::right << std::fixed
                << std::setprecision(4) << r.cost.*parameter_named(p.name).field << "  in [" << p.lo << ", "
                << p.hi << "]\n";
        out << std::left << std::setw(32) << "  target" << std::right << std::setw(12) << "measured"
            << std::setw(12) << "predicted" << std::setw(9) << "error%" << '\n';
        for (const nlohmann::json& row : residuals)
            out << "  " << std::left << std::setw(30) << row.at("id").get<std::string>() << std::right
                << std::setprecision(row.at("kind") == "ratio" ? 3 : 1) << std::setw(12)
                << row.at("measured").get<double>() << std::setw(12) << row.at("predicted").get<double>()
                << std::setprecision(1) << std::setw(9) << row.at("error_pct").get<double>() << '\n';
        for (const nlohmann::json& row : spans) {
            out << "  span " << std::left << std::setw(25) << row.at("id").get<std::string>() << std::right
                << std::setprecision(1) << " predicted " << row.at("predicted_span_us").get<double>()
                << " us";
            if (row.contains("reported_span_us"))
                out << " (reported on the device: " << row.at("reported_span_us").get<double>() << " us)";
            out << '\n';
        }
        out.unsetf(std::ios::fixed);
        if (!out_path.empty()) {
            std::ofstream file(out_path);
            file << profile.dump(2) << '\n';
            if (!file) {
                err << "pto-bench: cannot write " << out_path << '\n';
                return 1;
            }
            out << "profile written to " << out_path << '\n';
        }
        return 0;
    } catch (const Error& e) {
        err << "pto-bench: --fit: " << e.message() << '\n';
        return 1;
    }
}

}  // namespace pto::bench
