// ReleaseBatch: the consumer releases of one batch of completions, summed per consumer, so a consumer that
// several of the batch's tasks feed takes one atomic decrement instead of one per edge.
//
// Why: every edge ends in a locked decrement of its consumer's fanin counter, and locked instructions run
// one after another. Fan-in is common (Qwen3's output projection waits for every attention launch of its
// tile, the down projection for every SiLU chunk), and a scheduler pass completes many of those producers
// at once: on Qwen3 tier 0 the decrements were four fifths of the completion path's time (perf).
#pragma once

#include <array>
#include <cstdint>

namespace pto::detail {

class ReleaseBatch {
  public:
    /// Distinct consumers held at once; a batch with more is applied in parts (add returns false).
    static constexpr std::uint32_t kCapacity = 64;

    /// add: one release of `consumer`; false, holding nothing new, when kCapacity distinct consumers are
    /// held already and `consumer` is not one of them (the caller applies the batch, then adds again).
    bool add(std::uint32_t consumer) {
        for (std::uint32_t probe = 0, i = consumer & kMask; probe < kTable; ++probe, i = (i + 1) & kMask) {
            Bucket& b = table_[i];
            if (b.count != 0 && b.consumer == consumer) {
                ++b.count;
                return true;
            }
            if (b.count == 0) {
                if (used_count_ == kCapacity) return false;
                b = Bucket{consumer, 1};
                used_[used_count_++] = static_cast<std::uint8_t>(i);
                return true;
            }
        }
        return false;
    }
    [[nodiscard]] bool is_empty() const { return used_count_ == 0; }

    /// drain: calls release(consumer, count) for every held consumer, in the order they were first added,
    /// and empties the batch.
    template <class Release>
    void drain(Release&& release) {
        for (std::uint32_t k = 0; k < used_count_; ++k) {
            Bucket& b = table_[used_[k]];
            release(b.consumer, b.count);
            b.count = 0;
        }
        used_count_ = 0;
    }

  private:
    // Twice the capacity, so probes stay short while the batch fills.
    static constexpr std::uint32_t kTable = 2 * kCapacity;
    static constexpr std::uint32_t kMask = kTable - 1;
    struct Bucket {
        std::uint32_t consumer = 0;
        std::uint32_t count = 0;  // 0: empty
    };
    std::array<Bucket, kTable> table_{};
    std::array<std::uint8_t, kCapacity> used_{};
    std::uint32_t used_count_ = 0;
};

}  // namespace pto::detail
