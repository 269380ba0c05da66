// LocalReady: the kernel tasks a scheduler thread made ready itself during one pass, kept for that thread's
// own dispatch instead of a round trip through the shared ready queues.
//
// Why: with the instant executor a chain of tasks is released and dispatched by the same thread, and every
// hop through a shared lock-free queue moves its head, its tail and a pool node between CPUs. On hosts
// where one cache line crossing cores costs hundreds of nanoseconds that round trip, not the work, bounds
// end-to-end throughput. A pass takes from its stash before the shared queues and hands whatever is left
// to them when it ends, so between passes every ready task is in a shared queue, where any thread (and
// the watchdog, the abort path and the park test) can see it.
#pragma once

#include <array>
#include <cstdint>

#include "task_slot.h"

namespace pto::detail {

class LocalReady {
  public:
    /// Tasks kept per shape; a task made ready beyond that goes to the shared queue at once.
    static constexpr std::uint32_t kCapacity = 32;

    /// try_push: keeps kernel task `slot` (AIC, AIV or MIX); false when that shape's stash is full, and
    /// always for a dependency-only task.
    bool try_push(Shape shape, std::uint32_t slot) {
        if (index(shape) >= kShapes) return false;
        Fifo& f = fifos_[index(shape)];
        if (f.tail - f.head == kCapacity) return false;
        f.slots[f.tail++ % kCapacity] = slot;
        return true;
    }
    /// try_pop: the oldest kept task of `shape` (never a dependency-only one).
    bool try_pop(Shape shape, std::uint32_t& slot) {
        if (index(shape) >= kShapes) return false;
        Fifo& f = fifos_[index(shape)];
        if (f.head == f.tail) return false;
        slot = f.slots[f.head++ % kCapacity];
        return true;
    }
    [[nodiscard]] bool is_empty(Shape shape) const {
        if (index(shape) >= kShapes) return true;
        const Fifo& f = fifos_[index(shape)];
        return f.head == f.tail;
    }
    [[nodiscard]] bool is_empty() const {
        for (const Fifo& f : fifos_)
            if (f.head != f.tail) return false;
        return true;
    }
    /// drain: hands every kept task, oldest first per shape, to `push(shape, slot)`; true if there was any.
    template <class Push>
    bool drain(Push&& push) {
        bool any = false;
        for (std::uint32_t i = 0; i < kShapes; ++i) {
            Fifo& f = fifos_[i];
            any |= f.head != f.tail;
            for (; f.head != f.tail; ++f.head)
                push(static_cast<Shape>(i), f.slots[f.head % kCapacity]);
        }
        return any;
    }

  private:
    static constexpr std::uint32_t kShapes = 3;  // AIC, AIV, MIX: dependency-only tasks always go shared
    static std::uint32_t index(Shape s) { return static_cast<std::uint32_t>(s); }

    struct Fifo {
        std::uint32_t head = 0;
        std::uint32_t tail = 0;
        std::array<std::uint32_t, kCapacity> slots{};
    };
    std::array<Fifo, kShapes> fifos_{};
};

}  // namespace pto::detail
