// The tutorial's buffers and views, and the sequential computation (plain loops, no runtime) that the
// graph's results are compared with.
#include "problem.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tutorial {
namespace {

/// fill: deterministic values in [-scale, scale) from a linear congruential sequence.
void fill(std::vector<float>& data, std::uint32_t seed, float scale) {
    std::uint32_t state = seed;
    for (float& x : data) {
        state = state * 1664525u + 1013904223u;
        x = scale * (static_cast<float>(state >> 8) / static_cast<float>(1u << 24) * 2.0f - 1.0f);
    }
}

// [snippet:reference]
// One layer, sequentially: y = softmax(x w) v, row by row (w is [kModel, kHidden], v is [kHidden, kModel]).
std::vector<float> sequential_layer(const std::vector<float>& x, const std::vector<float>& w,
                                    const std::vector<float>& v) {
    std::vector<float> y(kRows * kModel);
    std::vector<float> p(kHidden);
    for (std::uint32_t i = 0; i < kRows; ++i) {
        float max = -std::numeric_limits<float>::infinity();
        for (std::uint32_t j = 0; j < kHidden; ++j) {
            float s = 0.0f;
            for (std::uint32_t k = 0; k < kModel; ++k)
                s += x[i * kModel + k] * w[k * kHidden + j];
            p[j] = s;
            max = std::max(max, s);
        }
        float sum = 0.0f;
        for (float& e : p)
            sum += (e = std::exp(e - max));
        for (std::uint32_t j = 0; j < kModel; ++j) {
            float acc = 0.0f;
            for (std::uint32_t k = 0; k < kHidden; ++k)
                acc += p[k] / sum * v[k * kModel + j];
            y[i * kModel + j] = acc;
        }
    }
    return y;
}
// [/snippet]

}  // namespace

Problem::Problem() {
    for (std::uint32_t l = 0; l <= kLayers; ++l)
        activation_data_[l].resize(kRows * kModel);
    fill(activation_data_[0], 1, 1.0f);
    for (std::uint32_t l = 0; l < kLayers; ++l) {
        scores_data_[l].resize(kRows * kHidden);
        probs_data_[l].resize(kRows * kHidden);
        w_data_[l].resize(kModel * kHidden);
        v_data_[l].resize(kHidden * kModel);
        fill(w_data_[l], 100 + l, 0.5f);
        fill(v_data_[l], 200 + l, 1.0f);
    }
    means_data_.resize(kModel);

    // [snippet:views]
    using pto::DataType;
    using pto::TensorView;
    for (std::uint32_t l = 0; l <= kLayers; ++l)
        activation_[l] = TensorView::contiguous(activation_data_[l].data(), DataType::F32, {kRows, kModel});
    for (std::uint32_t l = 0; l < kLayers; ++l) {
        scores_[l] = TensorView::contiguous(scores_data_[l].data(), DataType::F32, {kRows, kHidden});
        probs_[l] = TensorView::contiguous(probs_data_[l].data(), DataType::F32, {kRows, kHidden});
        // Weights are only read: untracked views cost the tensormap nothing.
        w_[l] = TensorView::contiguous(w_data_[l].data(), DataType::F32, {kModel, kHidden}).untracked();
        v_[l] = TensorView::contiguous(v_data_[l].data(), DataType::F32, {kHidden, kModel}).untracked();
    }
    means_ = TensorView::contiguous(means_data_.data(), DataType::F32, {kModel});
    // [/snippet]

    std::vector<float> x = activation_data_[0];
    for (std::uint32_t l = 0; l < kLayers; ++l)
        x = sequential_layer(x, w_data_[l], v_data_[l]);
    expected_activation_ = x;
    expected_means_.assign(kModel, 0.0f);
    for (std::uint32_t i = 0; i < kRows; ++i)
        for (std::uint32_t j = 0; j < kModel; ++j)
            expected_means_[j] += x[i * kModel + j] / kRows;
    poison_outputs();
}

void Problem::poison_outputs() {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (std::uint32_t l = 0; l < kLayers; ++l) {
        std::fill(activation_data_[l + 1].begin(), activation_data_[l + 1].end(), nan);
        std::fill(scores_data_[l].begin(), scores_data_[l].end(), nan);
        std::fill(probs_data_[l].begin(), probs_data_[l].end(), nan);
    }
    std::fill(means_data_.begin(), means_data_.end(), nan);
}

// [snippet:tiles]
pto::TensorView Problem::activation_tile(std::uint32_t l, std::uint32_t t) const {
    return activation_[l].slice(0, t * kTileRows, kTileRows);  // rows of tile t; no data moves
}
pto::TensorView Problem::scores_tile(std::uint32_t l, std::uint32_t t) const {
    return scores_[l].slice(0, t * kTileRows, kTileRows);
}
pto::TensorView Problem::probs_tile(std::uint32_t l, std::uint32_t t) const {
    return probs_[l].slice(0, t * kTileRows, kTileRows);
}
// [/snippet]

double Problem::max_error() const {
    double error = 0.0;
    const auto compare = [&](const std::vector<float>& actual, const std::vector<float>& expected) {
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const double d = std::fabs(static_cast<double>(actual[i]) - static_cast<double>(expected[i]));
            if (std::isnan(d))
                error = std::numeric_limits<double>::quiet_NaN();
            else if (!std::isnan(error))
                error = std::max(error, d);
        }
    };
    compare(activation_data_[kLayers], expected_activation_);
    compare(means_data_, expected_means_);
    return error;
}

}  // namespace tutorial
