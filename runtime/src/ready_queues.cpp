// ReadyQueues over boost::lockfree::queue: capacity reserved up front, pushes bounded so none allocates.
#include "ready_queues.h"

#include <boost/lockfree/queue.hpp>

#include "pto/runtime/detail/throw.h"

namespace pto::detail {

struct ReadyQueues::Queues {
    using Queue = boost::lockfree::queue<std::uint32_t>;
    explicit Queues(std::uint32_t capacity)
        : aic(capacity), aiv(capacity), mix(capacity), dependency_only(capacity) {}
    Queue aic, aiv, mix, dependency_only;

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

bool ReadyQueues::try_pop(Shape shape, std::uint32_t& slot) {
    return queues_->of(shape).pop(slot);
}

bool ReadyQueues::is_empty(Shape shape) const {
    return queues_->of(shape).empty();
}

bool ReadyQueues::all_empty() const {
    return queues_->aic.empty() && queues_->aiv.empty() && queues_->mix.empty() &&
           queues_->dependency_only.empty();
}

}  // namespace pto::detail
