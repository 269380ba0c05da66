// The simulated cores one scheduler thread owns: per core a running and a pending slot (a busy core may be
// pre-loaded with its next subtask), per cluster the MIX lane bookkeeping, and the cluster -> thread map.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "dispatch_policy.h"
#include "pto/runtime/config.h"

namespace pto::detail {

/// SubtaskRef: one block (one lane of a MIX block) held by a core slot.
struct SubtaskRef {
    std::uint32_t slot = kNoSlot;
    std::uint32_t block = 0;
    std::uint8_t lane = 0;
    std::int64_t dispatch_ns = 0;
    std::uint64_t dispatch_seq = 0;  // SubtaskRecord::dispatch_seq, when recording

    [[nodiscard]] bool is_empty() const { return slot == kNoSlot; }
};

/// CoreState: one simulated core. Owned by its scheduler thread, except `done`, `result`, `error` and
/// `body_start_ns`, which a compute worker writes before setting `done` (release; the scheduler reads with
/// acquire).
struct CoreState {
    SubtaskRef running;
    SubtaskRef pending;
    std::uint32_t global_index = 0;  // AIC cores 0..C-1, then AIV cores C.. (for traces)
    std::int64_t start_ns = 0;       // when `running` started
    std::int64_t end_ns = 0;         // timed executor: when `running` ends
    std::int64_t body_start_ns = 0;  // compute executor, when recording: when the kernel body began
    std::atomic<bool> done{false};   // compute executor: the kernel returned
    /// compute executor: jobs handed to the pool. The scheduler bumps it (release) before enqueueing and
    /// the worker reads it (acquire) first, so the hand-over is ordered by our own atomics rather than by
    /// the pool's internals (which ThreadSanitizer cannot see into).
    std::atomic<std::uint64_t> jobs_started{0};
    int result = 0;     // compute executor: kernel status, 0 = ok
    std::string error;  // compute executor: message of a failed kernel
};

/// ClusterState: the units of one cluster (0 = AIC, 1..2 = AIV) and the MIX block running on it, if any.
struct ClusterState {
    std::uint32_t units = 3;
    CoreState unit[kMaxUnitsPerCluster];
    std::uint32_t mix_lanes_left = 0;  // lanes of the running MIX block still running
    bool mix_failed = false;           // a lane of the running MIX block failed
};

/// owned_clusters: the clusters scheduler thread `thread` owns: every c with c mod threads == thread.
[[nodiscard]] std::vector<std::uint32_t> owned_clusters(const RuntimeConfig& config, std::uint32_t thread);

/// global_core_index: the trace index of unit `unit` of cluster `cluster`.
[[nodiscard]] std::uint32_t global_core_index(const RuntimeConfig& config, std::uint32_t cluster,
                                              std::uint32_t unit);

}  // namespace pto::detail
