// The tutorial's data (docs/tutorial.md): sizes, the buffers of a two-layer "softmax(x W) V" pipeline over
// row tiles, the views tasks take of them, and the plain sequential computation the graph must reproduce.
#pragma once

#include <cstdint>
#include <vector>

#include <pto/runtime/tensor.h>

namespace tutorial {

// [snippet:sizes]
inline constexpr std::uint32_t kRows = 32;                  // rows of x, processed in tiles
inline constexpr std::uint32_t kTileRows = 8;               // rows per tile
inline constexpr std::uint32_t kTiles = kRows / kTileRows;  // 4 tiles: one task chain per tile and layer
inline constexpr std::uint32_t kModel = 16;                 // columns of x (and of every layer's output)
inline constexpr std::uint32_t kHidden = 32;                // columns of the scores x W
inline constexpr std::uint32_t kLayers = 2;                 // layer l + 1 reads what layer l wrote

// SPMD widths: how many blocks (subtasks) each launch has, and how much of its output one block computes.
inline constexpr std::uint32_t kProjectBlocks = 4;  // columns of S in chunks of kHidden / 4
inline constexpr std::uint32_t kSoftmaxBlocks = 4;  // rows of a tile in chunks of kTileRows / 4
inline constexpr std::uint32_t kMixBlocks = 4;      // columns of Y in chunks of kModel / 4
// [/snippet]

/// Problem: every buffer of the pipeline and the views of them. Layer l reads activation l and writes
/// activation l + 1 through per-layer scores and probabilities; the result is the column means of the last
/// activation. Weights are untracked views: nothing writes them, so the tensormap never looks at them.
class Problem {
  public:
    /// Problem: deterministic pseudo-random input and weights; outputs poisoned (NaN).
    Problem();
    Problem(const Problem&) = delete;
    Problem& operator=(const Problem&) = delete;

    /// poison_outputs: fills everything the graph writes with NaN, so a task that does not run, or runs
    /// before its producers, shows up as a wrong result.
    void poison_outputs();

    /// activation(l): [kRows, kModel]; 0 is the input x, l > 0 the output of layer l - 1.
    [[nodiscard]] pto::TensorView activation(std::uint32_t l) const { return activation_[l]; }
    /// The views one (layer, tile) task chain touches: rows [t * kTileRows, (t + 1) * kTileRows).
    [[nodiscard]] pto::TensorView activation_tile(std::uint32_t l, std::uint32_t t) const;
    [[nodiscard]] pto::TensorView scores_tile(std::uint32_t l, std::uint32_t t) const;
    [[nodiscard]] pto::TensorView probs_tile(std::uint32_t l, std::uint32_t t) const;
    /// Weights of layer l: w [kModel, kHidden] and v [kHidden, kModel], untracked.
    [[nodiscard]] pto::TensorView w(std::uint32_t l) const { return w_[l]; }
    [[nodiscard]] pto::TensorView v(std::uint32_t l) const { return v_[l]; }
    /// means: [kModel], the column means of the last activation (the graph's result).
    [[nodiscard]] pto::TensorView means() const { return means_; }

    /// max_error: largest absolute difference between the graph's results (the last activation and the
    /// means) and the sequential computation; NaN if any result is NaN.
    [[nodiscard]] double max_error() const;

  private:
    std::vector<float> activation_data_[kLayers + 1];
    std::vector<float> scores_data_[kLayers];
    std::vector<float> probs_data_[kLayers];
    std::vector<float> w_data_[kLayers];
    std::vector<float> v_data_[kLayers];
    std::vector<float> means_data_;
    pto::TensorView activation_[kLayers + 1];
    pto::TensorView scores_[kLayers];
    pto::TensorView probs_[kLayers];
    pto::TensorView w_[kLayers];
    pto::TensorView v_[kLayers];
    pto::TensorView means_;
    std::vector<float> expected_activation_;  // the last activation, computed sequentially
    std::vector<float> expected_means_;
};

}  // namespace tutorial
