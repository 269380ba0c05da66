// Integer division helpers for the overlap arithmetic: floor/ceil/exact division and divisibility that
// shift instead of dividing when the divisor is a power of two (unit strides and row pitches nearly always
// are; a 64-bit idiv costs tens of cycles, and the chain test is on the tensormap lookup path).
#pragma once

#include <bit>
#include <cstdint>

namespace pto::detail {

// Every divisor r is > 0 and every dividend x satisfies |x| < 2^62 (see kElementLimit).

[[nodiscard]] inline bool is_pow2(std::int64_t r) {
    return (r & (r - 1)) == 0;
}

[[nodiscard]] inline int log2_of(std::int64_t r) {
    return std::countr_zero(static_cast<std::uint64_t>(r));
}

[[nodiscard]] inline std::int64_t floor_div(std::int64_t x, std::int64_t r) {
    if (is_pow2(r)) return x >> log2_of(r);  // arithmetic shift: rounds towards -infinity
    const std::int64_t q = x / r;
    return (x % r != 0 && x < 0) ? q - 1 : q;
}

[[nodiscard]] inline std::int64_t ceil_div(std::int64_t x, std::int64_t r) {
    return -floor_div(-x, r);
}

/// exact_div: x / r where r divides x.
[[nodiscard]] inline std::int64_t exact_div(std::int64_t x, std::int64_t r) {
    return is_pow2(r) ? x >> log2_of(r) : x / r;
}

/// divides: whether r divides x.
[[nodiscard]] inline bool divides(std::int64_t r, std::int64_t x) {
    return is_pow2(r) ? (x & (r - 1)) == 0 : x % r == 0;
}

}  // namespace pto::detail
