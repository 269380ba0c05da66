// RunState's cold transitions: claiming and releasing a run, and the quiet-period bookkeeping.
#include "run_state.h"

#include <utility>

namespace pto::detail {

bool RunState::claim_run(RunPhase& seen, bool& recovering) {
    seen = RunPhase::Idle;
    recovering = false;
    if (!phase_.compare_exchange_strong(seen, RunPhase::Starting, std::memory_order_acq_rel,
                                        std::memory_order_acquire)) [[unlikely]] {
        if (seen != RunPhase::Draining ||
            !phase_.compare_exchange_strong(seen, RunPhase::Starting, std::memory_order_acq_rel,
                                            std::memory_order_acquire))
            return false;
        recovering = true;
    }
    outer_owned_run_ = t_owned_run;
    t_owned_run = this;
    return true;
}

void RunState::release(RunPhase next) {
    PTO_ASSERT(owned_here(), "only the holder releases the run");
    PTO_ASSERT(is_legal_transition(phase_.load(std::memory_order_relaxed), next),
               "every phase change is in the RunPhase diagram");
    t_owned_run = outer_owned_run_;
    outer_owned_run_ = nullptr;
    // Release: pairs with the next claimant's CAS; nothing of this run is touched after it.
    phase_.store(next, std::memory_order_release);
}

void RunState::keep_stalls(std::vector<StallReport> reports) {
    for (StallReport& r : reports)
        pending_stalls_.push_back(std::move(r));
}

bool RunState::look_is_due(std::uint64_t progress, std::int64_t now_ns) {
    if (progress != quiet_progress_) {
        quiet_progress_ = progress;
        quiet_since_ns_ = now_ns;
        quiet_checked_ = false;
        return false;
    }
    if (quiet_checked_ || now_ns - quiet_since_ns_ < kDeadlockQuietNs) return false;
    quiet_checked_ = true;
    return true;
}

}  // namespace pto::detail
