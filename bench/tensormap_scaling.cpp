// pto-bench-tensormap: the cost of one tensormap lookup + insert against N live disjoint views of one
// buffer, N = 1 .. 4096 (docs/design/tensormap.md: it must not grow with N), beside a
// scan-every-view-of-the-buffer baseline. Prints a table of per-operation medians; --json FILE writes the
// same figures.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "pto/tensormap/overlap.h"
#include "pto/tensormap/tensormap.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kViewCounts[] = {1, 4, 16, 64, 256, 1024, 4096};
constexpr std::uint32_t kEntryCapacity = 8192;  // >= 2 x the largest view count

struct Options {
    int reps = 301;
    int warmup = 30;
    int batch = 512;
    bool is_scattered = true;  ///< visit views in a scattered order (k -> 5k + 1) rather than in turn
    std::string json_path;
};

struct Summary {
    double median_ns;
    double min_ns;
    double max_ns;
};

struct Row {
    const char* scenario;
    std::uint32_t views;
    Summary ns_per_op;
};

/// The views of a scenario: `count` disjoint views of one buffer.
using ViewMaker = pto::TensorView (*)(void* base, std::uint32_t index);

/// rows: view i is rows [16 i, 16 i + 16) of a matrix 64 wide, 1024 contiguous elements.
pto::TensorView row_view(void* base, std::uint32_t i) {
    return pto::TensorView::contiguous(base, pto::DataType::F32, {i + 1, 16, 64}).slice(0, i, 1);
}

/// tiles: view i is a 16 x 64 tile of a matrix 1024 wide (16 tiles per band of rows, so 16 views'
/// linear ranges interleave in every band).
pto::TensorView tile_view(void* base, std::uint32_t i) {
    const std::uint32_t band = i / 16;
    return pto::TensorView::contiguous(base, pto::DataType::F32, {(band + 1) * 16, 1024})
        .slice(0, band * 16, 16)
        .slice(1, (i % 16) * 64, 64);
}

/// The design docs/design/tensormap.md warns against: every view of a buffer in one list, scanned by every
/// lookup (here with a cheap linear-range test before the exact one, to be fair to it).
class BaseScanMap {
  public:
    explicit BaseScanMap(std::size_t capacity) { items_.reserve(capacity); }

    void find_producers(const pto::TensorView& v, pto::Direction d, std::vector<pto::TaskId>& out) const {
        const Span s = span_of(v);
        for (const Item& it : items_)
            if ((d != pto::Direction::In || it.is_writer) && it.span.lo <= s.hi && it.span.hi >= s.lo &&
                pto::views_overlap(it.view, v))
                out.push_back(pto::TaskId{it.task});
    }

    void record(const pto::TensorView& v, pto::Direction d, std::uint64_t task) {
        const Span s = span_of(v);
        const bool is_writer = d != pto::Direction::In;
        if (is_writer)
            std::erase_if(items_, [&](const Item& it) {
                return it.span.lo >= s.lo && it.span.hi <= s.hi && pto::view_covers(v, it.view);
            });
        items_.push_back({v, s, task, is_writer});
    }

  private:
    struct Span {
        std::int64_t lo;
        std::int64_t hi;
    };
    struct Item {
        pto::TensorView view;
        Span span;
        std::uint64_t task;
        bool is_writer;
    };
    static Span span_of(const pto::TensorView& v) {
        Span s{v.offset, v.offset};
        for (int d = 0; d < v.ndim; ++d) {
            const std::int64_t reach = std::int64_t{v.shape[d] - 1} * v.strides[d];
            (reach < 0 ? s.lo : s.hi) += reach;
        }
        return s;
    }
    std::vector<Item> items_;
};

Summary summarise(std::vector<double>& samples) {
    std::sort(samples.begin(), samples.end());
    return {samples[samples.size() / 2], samples.front(), samples.back()};
}

/// Times `opts.batch` prepare + lookup + insert triples per sample. Each pair rewrites one existing view
/// (InOut), so the write supersedes that view's entry and the map holds exactly `count` live disjoint views.
/// The scattered order k -> 5k + 1 mod count has full period for power-of-two counts and defeats the
/// locality that visiting views in turn would give.
template <class Map, class Op>
Summary run(Map& map, std::uint32_t count, ViewMaker make, const Options& opts, Op op,
            std::uint64_t& checksum) {
    void* base = reinterpret_cast<void*>(std::uintptr_t{0x40000000});
    std::vector<pto::TensorView> views;
    for (std::uint32_t i = 0; i < count; ++i)
        views.push_back(make(base, i));
    std::uint64_t task = 0;
    for (const pto::TensorView& v : views)
        op(map, v, task++);
    std::uint32_t k = 0;
    std::vector<double> samples;
    for (int rep = 0; rep < opts.warmup + opts.reps; ++rep) {
        const auto start = Clock::now();
        for (int i = 0; i < opts.batch; ++i) {
            checksum += op(map, views[k], task++);
            k = (opts.is_scattered ? 5 * k + 1 : k + 1) & (count - 1);
        }
        const auto elapsed = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
        if (rep >= opts.warmup) samples.push_back(elapsed / opts.batch);
    }
    return summarise(samples);
}

std::vector<Row> measure(const Options& opts, std::uint64_t& checksum) {
    std::vector<pto::TaskId> deps;
    deps.reserve(256);
    // As the scope layer submits: the view is prepared (normalised) once for the lookup and the record.
    pto::TensorMap::Access access;
    auto tensormap_op = [&deps, &access](pto::TensorMap& map, const pto::TensorView& v, std::uint64_t task) {
        deps.clear();
        map.prepare(v, pto::Direction::InOut, access);
        map.find_producers(access, pto::TaskId{0}, deps);
        if (!map.try_record(access, pto::TaskId{task}, pto::TaskId{0})) std::abort();
        return deps.size() + (deps.empty() ? 0 : deps.front().value);
    };
    auto scan_op = [&deps](BaseScanMap& map, const pto::TensorView& v, std::uint64_t task) {
        deps.clear();
        map.find_producers(v, pto::Direction::InOut, deps);
        map.record(v, pto::Direction::InOut, task);
        return deps.size() + (deps.empty() ? 0 : deps.front().value);
    };
    std::vector<Row> rows;
    for (std::uint32_t count : kViewCounts) {
        pto::TensorMap rows_map(kEntryCapacity);
        rows.push_back({"rows", count, run(rows_map, count, row_view, opts, tensormap_op, checksum)});
        pto::TensorMap tiles_map(kEntryCapacity);
        rows.push_back({"tiles", count, run(tiles_map, count, tile_view, opts, tensormap_op, checksum)});
        BaseScanMap scan_map(kEntryCapacity);
        rows.push_back({"rows-base-scan", count, run(scan_map, count, row_view, opts, scan_op, checksum)});
    }
    return rows;
}

std::string cpu_model() {
    std::FILE* f = std::fopen("/proc/cpuinfo", "r");
    if (!f) return "unknown";
    char line[512];
    std::string model = "unknown";
    while (std::fgets(line, sizeof line, f)) {
        if (std::strncmp(line, "model name", 10) == 0) {
            const char* colon = std::strchr(line, ':');
            if (colon) model = std::string(colon + 2, std::strcspn(colon + 2, "\n"));
            break;
        }
    }
    std::fclose(f);
    return model;
}

void print_table(const std::vector<Row>& rows, const Options& opts) {
    std::printf(
        "tensormap lookup + insert, ns per operation: median [min, max] of %d samples of %d ops, "
        "%s order\n",
        opts.reps, opts.batch, opts.is_scattered ? "scattered" : "sequential");
    std::printf("%6s  %-24s  %-24s  %-24s\n", "views", "rows", "tiles", "rows-base-scan");
    for (std::size_t i = 0; i < rows.size(); i += 3) {
        std::printf("%6u", rows[i].views);
        for (std::size_t j = i; j < i + 3; ++j) {
            char cell[64];
            std::snprintf(cell, sizeof cell, "%.1f [%.1f, %.1f]", rows[j].ns_per_op.median_ns,
                          rows[j].ns_per_op.min_ns, rows[j].ns_per_op.max_ns);
            std::printf("  %-24s", cell);
        }
        std::printf("\n");
    }
}

bool write_json(const std::string& path, const std::vector<Row>& rows, const Options& opts,
                std::uint64_t checksum) {
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    for (const Row& r : rows)
        results.push_back({{"scenario", r.scenario},
                           {"views", r.views},
                           {"ns_per_op",
                            {{"median", r.ns_per_op.median_ns},
                             {"min", r.ns_per_op.min_ns},
                             {"max", r.ns_per_op.max_ns}}}});
    const nlohmann::ordered_json report = {{"schema", "pto-bench-tensormap/1"},
                                           {"machine",
                                            {{"cpu", cpu_model()},
                                             {"hardware_threads", std::thread::hardware_concurrency()},
                                             {"compiler", __VERSION__}}},
                                           {"reps", opts.reps},
                                           {"warmup", opts.warmup},
                                           {"batch", opts.batch},
                                           {"order", opts.is_scattered ? "scattered" : "sequential"},
                                           {"checksum", checksum},
                                           {"results", results}};
    std::ofstream out(path);
    out << report.dump(2) << '\n';
    return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
    Options opts;
    std::string order = "scattered";
    CLI::App app{"pto-bench-tensormap: tensormap lookup + insert cost against live views of one buffer"};
    app.add_option("--reps", opts.reps, "timed samples per point (default 301)")
        ->check(CLI::Range(1, 1000000));
    app.add_option("--batch", opts.batch, "lookup + insert pairs per sample (default 512)")
        ->check(CLI::Range(1, 1000000));
    app.add_option("--order", order, "visit the views scattered (default) or in turn")
        ->check(CLI::IsMember(std::vector<std::string>{"scattered", "sequential"}));
    app.add_option("--json", opts.json_path, "also write the figures as JSON (schema pto-bench-tensormap/1)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    opts.is_scattered = order == "scattered";
    std::uint64_t checksum = 0;
    const std::vector<Row> rows = measure(opts, checksum);
    print_table(rows, opts);
    std::printf("checksum %llu\n", static_cast<unsigned long long>(checksum));
    if (!opts.json_path.empty() && !write_json(opts.json_path, rows, opts, checksum)) {
        std::fprintf(stderr, "cannot write %s\n", opts.json_path.c_str());
        return 1;
    }
    return 0;
}
