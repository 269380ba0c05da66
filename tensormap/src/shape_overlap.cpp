// Overlap as a bounded linear equation: do index vectors k (view a) and l (view b) exist with
// a.first + sum k_i a_i == b.first + sum l_j b_j? Solved exactly for stride chains by propagating the
// interval of reachable remainders from the smallest stride up; other strides are enumerated within a budget.
#include "shape_overlap.h"

#include "fast_divide.h"

#include <numeric>

namespace pto::detail {
namespace {

/// One distinct stride of the equation: the difference of the two views' indices along it lies in [lo, hi].
struct Term {
    std::int64_t stride;
    std::int64_t lo;
    std::int64_t hi;
};

constexpr int kMaxTerms = 2 * kMaxTensorDims;

/// Merges both views' sorted dimensions into terms of sum delta_s * s = b.first - a.first. A stride in
/// both views becomes one term whose delta = k - l ranges over [-(count_b - 1), count_a - 1].
int collect_terms(const ViewShape& a, const ViewShape& b, Term* out) {
    int i = 0;
    int j = 0;
    int n = 0;
    while (i < a.rank || j < b.rank) {
        if (j == b.rank || (i < a.rank && a.stride[i] < b.stride[j])) {
            out[n++] = {a.stride[i], 0, a.count[i] - 1};
            ++i;
        } else if (i == a.rank || b.stride[j] < a.stride[i]) {
            out[n++] = {b.stride[j], -(b.count[j] - 1), 0};
            ++j;
        } else {
            out[n++] = {a.stride[i], -(b.count[j] - 1), a.count[i] - 1};
            ++i;
            ++j;
        }
    }
    return n;
}

bool is_chain(const Term* terms, int n) {
    for (int i = 0; i + 1 < n; ++i)
        if (!divides(terms[i].stride, terms[i + 1].stride)) return false;
    return true;
}

/// Whether target == sum delta_i * stride_i has a solution with every delta_i in its interval, for terms
/// whose strides form a divisibility chain. Working in units of stride_i, the remainder still to be
/// produced by terms >= i lies in an interval [lo, hi]; term i takes some delta from it, and what is left
/// must be a multiple of r = stride_{i+1} / stride_i. The reachable remainders for the next level are the
/// multiples of r in [lo - hi_i, hi - lo_i] (a sum of two intervals is an interval), divided by r: again
/// one interval, so the test is exact and costs one division pair per term.
bool chain_feasible(std::int64_t target, const Term* terms, int n) {
    if (n == 0) return target == 0;
    if (!divides(terms[0].stride, target)) return false;
    std::int64_t lo = exact_div(target, terms[0].stride);
    std::int64_t hi = lo;
    for (int i = 0; i + 1 < n; ++i) {
        const std::int64_t r = exact_div(terms[i + 1].stride, terms[i].stride);
        lo = ceil_div(lo - terms[i].hi, r);
        hi = floor_div(hi - terms[i].lo, r);
        if (lo > hi) return false;
    }
    return lo <= terms[n - 1].hi && hi >= terms[n - 1].lo;
}

/// Terms outside a chain: keep a chain of the widest compatible terms (a set of strides is a chain when
/// each pair divides one way), enumerate the deltas of the others if their combinations fit the budget,
/// and run the chain test on each remainder. Keeping the widest terms keeps the enumeration smallest.
Answer solve_general(std::int64_t target, const Term* terms, int n, std::int64_t budget) {
    std::int64_t g = 0;
    for (int i = 0; i < n; ++i)
        g = std::gcd(g, terms[i].stride);
    if (target % g != 0) return Answer::No;

    // Widest first; insertion sort, as there are at most ten terms.
    int order[kMaxTerms];
    for (int i = 0; i < n; ++i) {
        int at = i;
        for (; at > 0 && terms[order[at - 1]].hi - terms[order[at - 1]].lo < terms[i].hi - terms[i].lo; --at)
            order[at] = order[at - 1];
        order[at] = i;
    }
    Term kept[kMaxTerms];
    Term split[kMaxTerms];
    int kept_n = 0;
    int split_n = 0;
    std::int64_t combinations = 1;
    for (int k = 0; k < n; ++k) {
        const Term& t = terms[order[k]];
        bool nests = true;
        for (int i = 0; i < kept_n && nests; ++i)
            nests = divides(kept[i].stride, t.stride) || divides(t.stride, kept[i].stride);
        if (nests) {
            int at = kept_n++;
            for (; at > 0 && kept[at - 1].stride > t.stride; --at)
                kept[at] = kept[at - 1];
            kept[at] = t;
            continue;
        }
        const std::int64_t width = t.hi - t.lo + 1;
        if (width > budget / combinations) return Answer::Maybe;
        combinations *= width;
        split[split_n++] = t;
    }
    std::int64_t kept_min = 0;
    std::int64_t kept_max = 0;
    for (int i = 0; i < kept_n; ++i) {
        kept_min += kept[i].lo * kept[i].stride;
        kept_max += kept[i].hi * kept[i].stride;
    }

    std::int64_t delta[kMaxTerms];
    for (int s = 0; s < split_n; ++s)
        delta[s] = split[s].lo;
    for (;;) {
        std::int64_t rest = target;
        for (int s = 0; s < split_n; ++s)
            rest -= delta[s] * split[s].stride;
        if (rest >= kept_min && rest <= kept_max && chain_feasible(rest, kept, kept_n)) return Answer::Yes;
        int s = 0;
        for (; s < split_n && ++delta[s] > split[s].hi; ++s)
            delta[s] = split[s].lo;
        if (s == split_n) return Answer::No;
    }
}

/// The elements of a chain shape's residue class, inside its bounding range, whose digit `i` is too large:
/// offsets count[i] * stride[i] .. stride[i+1] - 1 within every period of stride[i+1].
ViewShape hole_of(const ViewShape& outer, int i) {
    const std::int64_t unit = outer.stride[0];
    const std::int64_t period = outer.stride[i + 1];
    ViewShape hole{};
    hole.first = outer.first + outer.count[i] * outer.stride[i];
    const std::int64_t run = (period - outer.count[i] * outer.stride[i]) / unit;
    const std::int64_t periods = (outer.last - hole.first) / period + 1;
    if (run > 1) {
        hole.stride[hole.rank] = unit;
        hole.count[hole.rank++] = run;
    }
    if (periods > 1) {
        hole.stride[hole.rank] = period;
        hole.count[hole.rank++] = periods;
    }
    hole.last = hole.first + (run - 1) * unit + (periods - 1) * period;
    hole.is_chain = true;
    return hole;
}

}  // namespace

Answer shapes_overlap(const ViewShape& a, const ViewShape& b, std::int64_t budget) {
    if (a.is_empty || b.is_empty) return Answer::No;
    if (a.last < b.first || b.last < a.first) return Answer::No;
    if (a.is_opaque || b.is_opaque) return Answer::Maybe;
    // The ranges meet. A view that fills its range holds the other's first or last element when that
    // one lies inside it (a view's first and last are elements); otherwise the other straddles it.
    if (is_dense(a) && (b.first >= a.first || b.last <= a.last)) return Answer::Yes;
    if (is_dense(b) && (a.first >= b.first || a.last <= b.last)) return Answer::Yes;
    Term terms[kMaxTerms];
    const int n = collect_terms(a, b, terms);
    const std::int64_t target = b.first - a.first;
    if (is_chain(terms, n)) return chain_feasible(target, terms, n) ? Answer::Yes : Answer::No;
    return solve_general(target, terms, n, budget);
}

Answer shape_covers(const ViewShape& outer, const ViewShape& inner, std::int64_t budget) {
    if (inner.is_empty) return Answer::Yes;
    if (outer.is_empty) return Answer::No;
    if (outer.is_opaque || inner.is_opaque) return Answer::Maybe;
    if (inner.first < outer.first || inner.last > outer.last) return Answer::No;
    if (is_dense(outer) || same_layout(outer, inner)) return Answer::Yes;
    if (inner.rank == 0) return shapes_overlap(outer, inner, budget);
    if (!outer.is_chain) return Answer::Maybe;

    // outer.rank >= 1 here: a single-element outer passes the range test only for a single-element inner.
    const std::int64_t unit = outer.stride[0];
    if (!divides(unit, inner.first - outer.first)) return Answer::No;
    for (int j = 0; j < inner.rank; ++j)
        if (!divides(unit, inner.stride[j])) return Answer::No;
    Answer answer = Answer::Yes;
    for (int i = 0; i + 1 < outer.rank; ++i) {
        switch (shapes_overlap(inner, hole_of(outer, i), budget)) {
            case Answer::Yes:
                return Answer::No;
            case Answer::Maybe:
                answer = Answer::Maybe;
                break;
            case Answer::No:
                break;
        }
    }
    return answer;
}

}  // namespace pto::detail
