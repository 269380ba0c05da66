// EventQueue: the virtual clock of the model. Events run in (time, class, sequence) order, so events at the
// same instant run in a fixed order and every simulation of the same inputs is identical. Single-threaded.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

namespace pto::detail::sim {

enum class EventKind : std::uint8_t {
    Publish,        ///< the orchestrator finished submitting task `a`
    Release,        ///< a completing producer decrements the fanin of task `a` (one fanout edge walked)
    SchedulerStep,  ///< scheduler thread `a` continues its pass; `b` is its generation (stale if changed)
};

/// Class 0 events change state other threads observe (a task published or made ready); they run before
/// class 1 (scheduler steps) at the same instant, so a pass that looks at the ready queues at time t sees
/// every task that became ready at t.
[[nodiscard]] constexpr std::uint8_t class_of(EventKind k) {
    return k == EventKind::SchedulerStep ? 1 : 0;
}

struct Event {
    std::int64_t time_ns;
    std::uint8_t cls;
    std::uint64_t seq;
    EventKind kind;
    std::uint32_t a;
    std::uint64_t b;
};

class EventQueue {
  public:
    void push(std::int64_t time_ns, EventKind kind, std::uint32_t a, std::uint64_t b = 0) {
        heap_.push(Event{time_ns, class_of(kind), next_seq_++, kind, a, b});
    }
    [[nodiscard]] bool empty() const { return heap_.empty(); }
    /// pop: the next event; the clock moves to its time (never backwards: events are never in the past).
    Event pop() {
        Event e = heap_.top();
        heap_.pop();
        return e;
    }

  private:
    struct Later {
        bool operator()(const Event& x, const Event& y) const {
            if (x.time_ns != y.time_ns) return x.time_ns > y.time_ns;
            if (x.cls != y.cls) return x.cls > y.cls;
            return x.seq > y.seq;
        }
    };
    std::priority_queue<Event, std::vector<Event>, Later> heap_;
    std::uint64_t next_seq_ = 0;
};

}  // namespace pto::detail::sim
