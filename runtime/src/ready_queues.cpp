// ReadyQueues over Boost.Lockfree: a bounded MPMC queue per shape for every thread's pushes, and per kernel
// shape an spsc_queue the orchestrator fills in batches, whose single consumer side is taken in turn by a
// try-lock. Capacity is reserved up front, so no push allocates.
#include "ready_queues.h"

#include <atomic>
#include <boost/lockfree/queue.hpp>
#include <boost/lockfree/spsc_queue.hpp>

#include "pto/runtime/detail/throw.h"

namespace pto::detail {
namespace {

constexpr std::size_t kKernelShapes = 3;  // AIC, AIV, MIX: the shapes with a feed
static_assert(static_cast<std::size_t>(Shape::MIX) + 1 == kKernelShapes &&
              Shape::DependencyOnly > Shape::MIX);
/// Tasks the orchestrator stages per shape before a batch is published without waiting for publish().
constexpr std::uint32_t kStageBatch = 64;

/// feed_index: a kernel shape's feed; the shapes' values are 0..2 (task_slot.h).
std::size_t feed_index(Shape s) {
    PTO_ASSERT(s != Shape::DependencyOnly, "dependency-only tasks have no feed");
    return static_cast<std::size_t>(s);
}

}  // namespace

struct ReadyQueues::Queues {
    using Queue = boost::lockfree::queue<std::uint32_t>;
    using Feed = boost::lockfree::spsc_queue<std::uint32_t>;

    /// One kernel shape's feed: the ring, the flag that makes its reader single, and the orchestrator's
    /// batch, each on its own lines (the batch is the orchestrator's alone; the flag is the schedulers').
    struct alignas(kFalseSharingRange) FeedPart {
        explicit FeedPart(std::uint32_t capacity) : ring(capacity) {}
        Feed ring;
        alignas(kFalseSharingRange) std::atomic<bool> reading{false};
        alignas(kFalseSharingRange) std::uint32_t staged_count = 0;
        std::array<std::uint32_t, kStageBatch> staged{};

        /// publish_staged: pushes the batch; the ring holds every task that can be ready at once.
        void publish_staged() {
            const std::size_t pushed = ring.push(staged.data(), staged_count);
            PTO_ASSERT(pushed == staged_count, "a feed holds each task at most once, so it cannot be full");
            (void)pushed;
            staged_count = 0;
        }
        bool try_pop(std::uint32_t& slot) {
            // Test first: a thread that finds the feed empty or taken writes nothing. (read_available only
            // loads the two indices, so any thread may call it; the result may be stale.)
            if (ring.read_available() == 0 || reading.load(std::memory_order_relaxed) ||
                reading.exchange(true, std::memory_order_acquire))
                return false;
            const bool popped = ring.pop(slot);
            reading.store(false, std::memory_order_release);
            return popped;
        }
    };

    explicit Queues(std::uint32_t capacity)
        : aic(capacity),
          aiv(capacity),
          mix(capacity),
          dependency_only(capacity),
          feeds{FeedPart(capacity), FeedPart(capacity), FeedPart(capacity)} {}
    Queue aic, aiv, mix, dependency_only;
    std::array<FeedPart, kKernelShapes> feeds;

    Queue& of(Shape s) {
        switch (s) {
            case Shape::AIC:
                return aic;
            case Shape::AIV:
                return aiv;
            case Shape::MIX:
                return mix;
            case Shape::DependencyOnly:
                break;
        }
        return dependency_only;
    }
};

ReadyQueues::ReadyQueues(std::uint32_t capacity) : queues_(std::make_unique<Queues>(capacity + 1)) {}
ReadyQueues::~ReadyQueues() = default;

void ReadyQueues::push(Shape shape, std::uint32_t slot) {
    bool pushed = queues_->of(shape).bounded_push(slot);
    PTO_ASSERT(pushed, "a ready queue holds each task at most once, so it cannot be full");
    (void)pushed;
}

void ReadyQueues::stage(Shape shape, std::uint32_t slot) {
    if (shape == Shape::DependencyOnly) {
        push(shape, slot);
        return;
    }
    Queues::FeedPart& f = queues_->feeds[feed_index(shape)];
    f.staged[f.staged_count++] = slot;
    if (f.staged_count == kStageBatch) f.publish_staged();
}

void ReadyQueues::publish() {
    for (Queues::FeedPart& f : queues_->feeds)
        if (f.staged_count != 0) f.publish_staged();
}

bool ReadyQueues::has_staged() const {
    for (const Queues::FeedPart& f : queues_->feeds)
        if (f.staged_count != 0) return true;
    return false;
}

bool ReadyQueues::try_pop(Shape shape, std::uint32_t& slot) {
    if (queues_->of(shape).pop(slot)) return true;
    return shape != Shape::DependencyOnly && queues_->feeds[feed_index(shape)].try_pop(slot);
}

bool ReadyQueues::is_empty(Shape shape) const {
    if (!queues_->of(shape).empty()) return false;
    return shape == Shape::DependencyOnly || queues_->feeds[feed_index(shape)].ring.read_available() == 0;
}

bool ReadyQueues::all_empty() const {
    return is_empty(Shape::AIC) && is_empty(Shape::AIV) && is_empty(Shape::MIX) &&
           is_empty(Shape::DependencyOnly);
}

}  // namespace pto::detail
