// The dispatch policy: which ready block goes to which core of one scheduler's clusters. A pure function of
// the clusters' occupancy and a source of ready blocks; the threaded schedulers and the virtual-time model
// (sim/) both call it, so the model predicts the policy that actually runs.
#pragma once

#include <cstdint>
#include <span>

#include "task_slot.h"

namespace pto::detail {

/// kNoSlot: an empty core slot, or no task held.
inline constexpr std::uint32_t kNoSlot = ~0u;

/// Units of a cluster: 0 = the AIC core, 1 and 2 = the AIV cores (MIX lanes 0, 1, 2 in that order).
inline constexpr std::uint32_t kMaxUnitsPerCluster = 3;

/// ClusterOccupancy: what the policy needs to know of one cluster.
struct ClusterOccupancy {
    std::uint32_t units = 3;                 // 1 + aiv_per_cluster
    bool running[kMaxUnitsPerCluster] = {};  // the unit's running slot holds a subtask
    bool pending[kMaxUnitsPerCluster] = {};  // the unit's pending slot holds a subtask

    [[nodiscard]] bool is_idle() const {
        for (std::uint32_t u = 0; u < units; ++u)
            if (running[u] || pending[u]) return false;
        return true;
    }
    [[nodiscard]] std::uint32_t busy_units() const {
        std::uint32_t n = 0;
        for (std::uint32_t u = 0; u < units; ++u)
            n += running[u] ? 1 : 0;
        return n;
    }
};

/// Placement: one block (one lane of it, for MIX) assigned to a unit's running or pending slot.
struct Placement {
    std::uint32_t slot;
    std::uint32_t block;
    std::uint32_t cluster;  // index into the span given to plan_dispatch
    std::uint8_t unit;
    std::uint8_t lane;  // MIX lane (== unit); 0 for AIC and AIV tasks
    bool to_pending;
};

/// IdleElsewhere: idle AIC and AIV cores of the other scheduler threads (a snapshot; may be stale). Work that
/// one of them could start now is not parked in this thread's pending slots.
struct IdleElsewhere {
    std::uint32_t aic = 0;
    std::uint32_t aiv = 0;
};

/// plan_dispatch: fills idle units, then (if `use_pending_slots`) pending slots, from `source`:
///   1. MIX blocks onto wholly idle clusters (all lanes start together);
///   2. while MIX work remains, the least busy cluster is kept free of new AIC/AIV work so it drains for
///      MIX (MIX has priority without starving AIC/AIV on the other clusters);
///   3. AIC blocks onto idle AIC units, AIV blocks onto idle AIV units;
///   4. AIC/AIV blocks into free pending slots of busy units, but only for a core type no other thread has
///      an idle core of (idle cores always come before pending slots, across threads too).
/// The occupancy is updated to reflect the placements. Source must provide:
///   bool take(Shape, std::uint32_t& slot, std::uint32_t& block)  -- claims one block, false if none
///   bool has(Shape) const                                        -- whether take may succeed
/// `out` must hold at least 3 * clusters.size() * 2 placements; returns how many were written.
template <class Source>
std::uint32_t plan_dispatch(std::span<ClusterOccupancy> clusters, Source& source, bool use_pending_slots,
                            IdleElsewhere idle_elsewhere, Placement* out) {
    std::uint32_t n = 0;
    std::uint32_t slot = 0;
    std::uint32_t block = 0;
    const std::uint32_t count = static_cast<std::uint32_t>(clusters.size());

    for (std::uint32_t c = 0; c < count && source.has(Shape::MIX); ++c) {
        ClusterOccupancy& cl = clusters[c];
        if (!cl.is_idle() || !source.take(Shape::MIX, slot, block)) continue;
        for (std::uint32_t u = 0; u < cl.units; ++u) {
            out[n++] =
                Placement{slot, block, c, static_cast<std::uint8_t>(u), static_cast<std::uint8_t>(u), false};
            cl.running[u] = true;
        }
    }

    std::uint32_t reserved = count;  // none
    if (source.has(Shape::MIX)) {
        std::uint32_t least_busy = ~0u;
        for (std::uint32_t c = 0; c < count; ++c) {
            std::uint32_t busy = clusters[c].busy_units();
            if (busy < least_busy) {
                least_busy = busy;
                reserved = c;
            }
        }
    }

    for (std::uint32_t c = 0; c < count; ++c) {
        if (c == reserved) continue;
        ClusterOccupancy& cl = clusters[c];
        for (std::uint32_t u = 0; u < cl.units; ++u) {
            if (cl.running[u]) continue;
            const Shape shape = u == 0 ? Shape::AIC : Shape::AIV;
            if (!source.take(shape, slot, block)) continue;
            out[n++] = Placement{slot, block, c, static_cast<std::uint8_t>(u), 0, false};
            cl.running[u] = true;
        }
    }

    if (!use_pending_slots) return n;
    for (std::uint32_t c = 0; c < count; ++c) {
        if (c == reserved) continue;
        ClusterOccupancy& cl = clusters[c];
        for (std::uint32_t u = 0; u < cl.units; ++u) {
            if (!cl.running[u] || cl.pending[u]) continue;
            const Shape shape = u == 0 ? Shape::AIC : Shape::AIV;
            if ((u == 0 ? idle_elsewhere.aic : idle_elsewhere.aiv) != 0) continue;
            if (!source.take(shape, slot, block)) continue;
            out[n++] = Placement{slot, block, c, static_cast<std::uint8_t>(u), 0, true};
            cl.pending[u] = true;
        }
    }
    return n;
}

}  // namespace pto::detail
