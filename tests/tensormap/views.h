// View builders for the tensormap tests: hand-written strided views over fake buffers (only geometry
// matters; the tensormap never dereferences a base) and brute-force element sets to check answers against.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "pto/runtime/tensor.h"

namespace pto::test {

/// buffer: a distinct fake base address per id.
inline void* buffer(int id) {
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(0x100000 + 0x1000 * id));
}

struct Dim {
    std::uint32_t size;
    std::int64_t stride;
};

/// strided: the view of `dims` (size, stride in elements) starting at element `offset` of `base`.
inline TensorView strided(void* base, std::int64_t offset, std::initializer_list<Dim> dims) {
    TensorView v = TensorView::contiguous(base, DataType::F32, {1});
    v.offset = offset;
    v.ndim = static_cast<std::uint8_t>(dims.size());
    int d = 0;
    for (const Dim& dim : dims) {
        v.shape[d] = dim.size;
        v.strides[d] = dim.stride;
        ++d;
    }
    return v;
}

/// range: the contiguous elements [begin, end) of `base`.
inline TensorView range(void* base, std::int64_t begin, std::int64_t end) {
    return strided(base, begin, {{static_cast<std::uint32_t>(end - begin), 1}});
}

/// tile: rows [row, row + rows) and columns [col, col + cols) of a row-major matrix `width` columns wide.
inline TensorView tile(void* base, std::uint32_t width, std::uint32_t row, std::uint32_t rows,
                       std::uint32_t col, std::uint32_t cols) {
    return strided(base, std::int64_t{row} * width + col, {{rows, width}, {cols, 1}});
}

/// elements: the sorted distinct element indices of `v`, by enumerating every index vector.
inline std::vector<std::int64_t> elements(const TensorView& v) {
    std::vector<std::int64_t> out;
    for (int d = 0; d < v.ndim; ++d)
        if (v.shape[d] == 0) return out;
    std::uint32_t index[kMaxTensorDims] = {};
    for (;;) {
        std::int64_t at = v.offset;
        for (int d = 0; d < v.ndim; ++d)
            at += std::int64_t{index[d]} * v.strides[d];
        out.push_back(at);
        int d = 0;
        for (; d < v.ndim && ++index[d] == v.shape[d]; ++d)
            index[d] = 0;
        if (d == v.ndim) break;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

inline bool sets_intersect(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
    auto i = a.begin();
    auto j = b.begin();
    while (i != a.end() && j != b.end()) {
        if (*i == *j) return true;
        if (*i < *j)
            ++i;
        else
            ++j;
    }
    return false;
}

inline bool set_includes(const std::vector<std::int64_t>& outer, const std::vector<std::int64_t>& inner) {
    return std::includes(outer.begin(), outer.end(), inner.begin(), inner.end());
}

/// describe: "offset 3, shape [2 4], strides [8 1]" for failure messages.
inline std::string describe(const TensorView& v) {
    std::string s = "offset ";
    s += std::to_string(v.offset);
    s += ", shape [";
    for (int d = 0; d < v.ndim; ++d) {
        if (d > 0) s += ' ';
        s += std::to_string(v.shape[d]);
    }
    s += "], strides [";
    for (int d = 0; d < v.ndim; ++d) {
        if (d > 0) s += ' ';
        s += std::to_string(v.strides[d]);
    }
    s += ']';
    return s;
}

}  // namespace pto::test
