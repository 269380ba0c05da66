// The golden check of the compute mode: the error bound the F32 kernels must meet against the double
// reference, the element-wise comparison, and the dump of both tensors to outputs/golden_mismatch/.
#include "pto/examples/paged_attention.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>

#include "pto/runtime/detail/throw.h"

namespace pto::examples::paged_attention {
namespace {

std::string safe_file_name(std::string_view name) {
    std::string s(name);
    for (char& c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
    return s.empty() ? std::string("tensor") : s;
}

std::string index_string(std::int64_t flat, std::span<const std::uint32_t> shape) {
    std::string s = "]";
    for (std::size_t d = shape.size(); d-- > 0;) {
        const std::uint64_t n = shape[d] == 0 ? 1 : shape[d];
        s.insert(0, (d == 0 ? "[" : ", ") + std::to_string(static_cast<std::uint64_t>(flat) % n));
        flat = static_cast<std::int64_t>(static_cast<std::uint64_t>(flat) / n);
    }
    return s;
}

bool write_tensor(const std::string& path, std::string_view name, std::string_view which,
                  std::span<const float> values, std::span<const float> golden, std::span<const float> actual,
                  std::span<const std::uint32_t> shape, const GoldenResult& r) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) return false;
    std::string dims;
    for (std::size_t d = 0; d < shape.size(); ++d)
        dims += (d ? ", " : "") + std::to_string(shape[d]);
    std::fprintf(f, "# pto golden mismatch (paged attention)\n# name: %.*s\n# tensor: %.*s\n# shape: [%s]\n",
                 static_cast<int>(name.size()), name.data(), static_cast<int>(which.size()), which.data(),
                 dims.c_str());
    std::fprintf(f, "# dtype: f32\n# tolerance_abs: %.6g\n# max_abs_error: %.6g\n# max_rel_error: %.6g\n",
                 r.tolerance, r.max_abs_error, r.max_rel_error);
    const auto bad = static_cast<std::size_t>(r.first_bad);
    std::fprintf(f, "# first_bad_index: %lld %s (golden %.9g, actual %.9g)\n",
                 static_cast<long long>(r.first_bad), index_string(r.first_bad, shape).c_str(),
                 static_cast<double>(golden[bad]), static_cast<double>(actual[bad]));
    std::fprintf(f, "# layout: row-major, one row of the last dimension per line, after its leading index\n");
    const std::size_t row = shape.empty() || shape.back() == 0 ? values.size() : shape.back();
    for (std::size_t i = 0; i < values.size(); i += row) {
        const std::string at = index_string(static_cast<std::int64_t>(i), shape);
        std::fprintf(f, "%s", at.c_str());
        for (std::size_t j = i; j < i + row && j < values.size(); ++j)
            std::fprintf(f, " %.9g", static_cast<double>(values[j]));
        std::fprintf(f, "\n");
    }
    return std::fclose(f) == 0;
}

}  // namespace

// Derivation of the bound, with u = 2^-24 (F32 unit roundoff), inputs in [-1, 1], context L, head_dim d:
// - a score q.k sums d products of magnitude <= 1: error <= d * u * d; scaled by 1/sqrt(d) that is
//   delta <= d^1.5 u. p = exp(score - max) carries both errors: relative error <= 2 delta + 2u (exp).
// - li and every element of the PV sum add at most L non-negative (resp. p-weighted) terms: relative error
//   <= L u of sum(p), the recursive-summation bound; each online merge adds a few u (two exps, one fma).
// - out = o / l with |out| <= max |v| <= 1: absolute error <= (L + 2 d^1.5 + 8) u to first order.
// We allow twice that. A missing dependency leaves stale or partial sums, off by O(1e-2) or more, far above.
double golden_tolerance(const Shape& shape) {
    const double u = 0x1p-24;
    const double d = shape.head_dim;
    return 4.0 * (static_cast<double>(shape.max_context_len()) + 2.0 * d * std::sqrt(d) + 16.0) * u;
}

GoldenResult compare_with_golden(std::string_view name, std::span<const float> actual,
                                 std::span<const float> golden, std::span<const std::uint32_t> shape,
                                 double tolerance, std::string_view dir) {
    std::uint64_t elements = 1;
    for (std::uint32_t n : shape)
        elements *= n;
    if (actual.size() != golden.size() || golden.size() != elements)
        detail::throw_error(ErrorCode::InvalidArgument,
                            "compare_with_golden(" + std::string(name) + "): actual has " +
                                std::to_string(actual.size()) + " elements, golden " +
                                std::to_string(golden.size()) + ", shape " + std::to_string(elements));
    GoldenResult r;
    r.tolerance = tolerance;
    for (std::size_t i = 0; i < golden.size(); ++i) {
        const double a = actual[i], g = golden[i];
        double err = std::fabs(a - g);
        if (std::isnan(err)) err = std::numeric_limits<double>::infinity();
        const double rel =
            err == 0.0 ? 0.0 : (g == 0.0 ? std::numeric_limits<double>::infinity() : err / std::fabs(g));
        r.max_abs_error = std::max(r.max_abs_error, err);
        r.max_rel_error = std::max(r.max_rel_error, rel);
        if (!(err <= tolerance) && r.first_bad < 0) r.first_bad = static_cast<std::int64_t>(i);
    }
    r.ok = r.first_bad < 0;
    if (!r.ok) {
        std::error_code ec;
        std::filesystem::create_directories(std::filesystem::path(dir), ec);
        const std::string prefix = (std::filesystem::path(dir) / safe_file_name(name)).string();
        const bool written =
            !ec && write_tensor(prefix + ".golden.txt", name, "golden", golden, golden, actual, shape, r) &&
            write_tensor(prefix + ".actual.txt", name, "actual", actual, golden, actual, shape, r);
        if (written) r.dump_prefix = prefix;
    }
    return r;
}

GoldenResult check_golden(const Problem& problem, std::string_view name, std::string_view dir) {
    const Shape& s = problem.shape();
    const std::vector<float> golden = dense_reference(problem);
    const std::uint32_t shape[] = {s.batch, s.num_heads, s.head_dim};
    return compare_with_golden(name, problem.out_values(), golden, shape, golden_tolerance(s), dir);
}

}  // namespace pto::examples::paged_attention
