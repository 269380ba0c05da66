// Golden comparison of a computed layer with the reference, and the dump of both to
// outputs/golden_mismatch/<label>/ when they differ.
//
// Tolerance (defaults in qwen3.h): the kernels compute in float32 with float accumulation, the reference
// in double. The longest accumulation is a dot product over hidden (640 reduced) or intermediate (544)
// terms of magnitude ~1, whose float rounding error is about sqrt(n) * 2^-24 * |terms| ~ 2e-6 typically
// and n * 2^-24 ~ 4e-5 at worst; six such stages feed the output through norms that keep values near 1.
// So abs 1e-4 + rel 1e-3 leaves a margin of 10-100x over rounding (measured errors: README.md), while a
// missing edge reads NaN-poisoned memory (Problem::reset) or stale values and misses by O(1) or NaN.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "pto/examples/qwen3.h"
#include "pto/runtime/detail/throw.h"

namespace pto::examples::qwen3 {
namespace {

struct Compared {
    TensorCheck check;
    std::vector<float> actual;
    const std::vector<float>* golden;
};

TensorCheck compare(std::string name, std::vector<std::uint32_t> shape, const std::vector<float>& actual,
                    const std::vector<float>& golden, Tolerance tol) {
    TensorCheck c;
    c.name = std::move(name);
    c.shape = std::move(shape);
    const double rel_floor = tol.rel > 0.0 ? std::max(tol.abs / tol.rel, 1e-12) : 1.0;
    for (std::size_t i = 0; i < golden.size(); ++i) {
        const double g = golden[i], a = actual[i];
        const double err = std::fabs(a - g);
        // Relative to |golden|, but not below abs / rel, where the tolerance itself turns absolute: near-zero
        // goldens would otherwise report huge relative errors for differences far inside the tolerance.
        const double rel = err / std::max(std::fabs(g), rel_floor);
        // NaN compares false everywhere: a NaN error fails and poisons the maxima on purpose.
        const bool good = err <= tol.abs + tol.rel * std::fabs(g);
        if (!good && c.first_bad_index < 0) c.first_bad_index = static_cast<std::int64_t>(i);
        if (!(err <= c.max_abs_error)) c.max_abs_error = err;
        if (!(rel <= c.max_rel_error)) c.max_rel_error = rel;
        c.ok = c.ok && good;
    }
    return c;
}

std::string shape_text(const std::vector<std::uint32_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

/// index_text: a row-major flat index as a multi-index, e.g. [3, 17].
std::string index_text(std::int64_t flat, const std::vector<std::uint32_t>& shape) {
    std::vector<std::uint64_t> idx(shape.size());
    auto rest = static_cast<std::uint64_t>(flat);
    for (std::size_t d = shape.size(); d-- > 0;) {
        idx[d] = rest % shape[d];
        rest /= shape[d];
    }
    std::string s = "[";
    for (std::size_t i = 0; i < idx.size(); ++i)
        s += (i ? ", " : "") + std::to_string(idx[i]);
    return s + "]";
}

std::string sanitize(std::string_view label) {
    std::string s(label.empty() ? "run" : label);
    for (char& ch : s)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_' && ch != '.') ch = '_';
    return s;
}

void write_binary(const std::filesystem::path& file, const std::vector<float>& data) {
    std::ofstream f(file, std::ios::binary);
    f.write(reinterpret_cast<const char*>(data.data()),
            static_cast<std::streamsize>(data.size() * sizeof(float)));
}

void dump(const std::filesystem::path& dir, const Compared& c, Tolerance tol) {
    const std::string& n = c.check.name;
    write_binary(dir / (n + ".golden.bin"), *c.golden);
    write_binary(dir / (n + ".actual.bin"), c.actual);
    std::ofstream h(dir / (n + ".txt"));
    h << "name: " << n << "\nshape: " << shape_text(c.check.shape)
      << "\ndtype: float32 (little-endian, row-major)"
      << "\nelements: " << c.golden->size() << "\nverdict: " << (c.check.ok ? "match" : "MISMATCH")
      << "\nmax_abs_error: " << c.check.max_abs_error << "\nmax_rel_error: " << c.check.max_rel_error
      << "\ntolerance: |actual - golden| <= " << tol.abs << " + " << tol.rel << " * |golden|\n";
    if (c.check.first_bad_index >= 0) {
        const auto i = static_cast<std::size_t>(c.check.first_bad_index);
        h << "first_bad_index: " << i << " = " << index_text(c.check.first_bad_index, c.check.shape)
          << "\ngolden_at_first_bad: " << (*c.golden)[i] << "\nactual_at_first_bad: " << c.actual[i] << "\n";
    } else {
        h << "first_bad_index: none\n";
    }
    h << "files: " << n << ".golden.bin, " << n << ".actual.bin\n";
}

}  // namespace

GoldenReport check_golden(const Problem& problem, const Golden& golden, std::string_view label, Tolerance tol,
                          const std::filesystem::path& dump_root) {
    if (!problem.has_memory())
        pto::detail::throw_error(
            ErrorCode::InvalidArgument,
            "qwen3 check_golden: the problem has fake addresses; use Problem::with_memory");
    const Shapes& s = problem.shapes();
    const Tensors& t = problem.tensors();
    const std::uint32_t H = s.hidden(), D = s.head_dim;

    std::vector<Compared> all(3);
    all[0].actual.assign(t.out.data<float>(), t.out.data<float>() + static_cast<std::size_t>(s.batch) * H);
    all[0].golden = &golden.out;
    for (std::size_t c = 1; c < 3; ++c) {
        const TensorView& cache = c == 1 ? t.k_cache : t.v_cache;
        for (std::uint32_t b = 0; b < s.batch; ++b)
            for (std::uint32_t h = 0; h < s.kv_heads; ++h) {
                const float* at =
                    cache.data<float>() + ((static_cast<std::uint64_t>(b) * s.kv_heads + h) * s.max_context +
                                           (s.context_len(b) - 1)) *
                                              D;
                all[c].actual.insert(all[c].actual.end(), at, at + D);
            }
        all[c].golden = c == 1 ? &golden.k_new : &golden.v_new;
    }
    all[0].check = compare("out", {s.batch, H}, all[0].actual, golden.out, tol);
    all[1].check = compare("k_cache_new", {s.batch, s.kv_heads, D}, all[1].actual, golden.k_new, tol);
    all[2].check = compare("v_cache_new", {s.batch, s.kv_heads, D}, all[2].actual, golden.v_new, tol);

    GoldenReport report;
    for (const Compared& c : all) {
        report.ok = report.ok && c.check.ok;
        report.tensors.push_back(c.check);
    }
    if (!report.ok) {
        report.dump_dir = dump_root / sanitize(label);
        std::filesystem::create_directories(report.dump_dir);
        for (const Compared& c : all)
            dump(report.dump_dir, c, tol);
    }
    return report;
}

std::string GoldenReport::summary() const {
    double max_abs = 0.0, max_rel = 0.0;
    const TensorCheck* bad = nullptr;
    for (const TensorCheck& c : tensors) {
        if (!(c.max_abs_error <= max_abs)) max_abs = c.max_abs_error;
        if (!(c.max_rel_error <= max_rel)) max_rel = c.max_rel_error;
        if (!c.ok && bad == nullptr) bad = &c;
    }
    char buf[160];
    if (bad == nullptr) {
        std::snprintf(buf, sizeof buf, "match (max abs %.1e, max rel %.1e)", max_abs, max_rel);
        return buf;
    }
    std::snprintf(buf, sizeof buf, "MISMATCH in %s at index %lld (max abs %.1e, max rel %.1e)",
                  bad->name.c_str(), static_cast<long long>(bad->first_bad_index), bad->max_abs_error,
                  bad->max_rel_error);
    std::string s = buf;
    if (!dump_dir.empty()) s += "; dumped to " + dump_dir.string();
    return s;
}

}  // namespace pto::examples::qwen3
