// TaskSlot: the hot per-task scheduling state, one 64-byte line per window slot, and the protocol of its
// atomic words. Cold per-task data (arguments, ids, retirement bookkeeping) lives in parallel arrays.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "pto/runtime/ids.h"
#include "pto/runtime/task_desc.h"

namespace pto::detail {

inline constexpr std::size_t kCacheLine = 64;
/// Separation between lines written by different threads: adjacent-line prefetch makes 64 too small.
inline constexpr std::size_t kFalseSharingRange = 128;

/// Shape: which ready queue a task waits in. Framework tasks other than alloc go to DependencyOnly.
enum class Shape : std::uint8_t { AIC = 0, AIV = 1, MIX = 2, DependencyOnly = 3 };
inline constexpr int kShapeCount = 4;

/// Outcome of a task, stored in TaskSlot::outcome. Ok until decided; Cancelled may be set by any producer
/// that failed (before it releases the consumer's fanin, so whoever makes the consumer ready sees it).
enum class Outcome : std::uint8_t { Ok = 0, Failed = 1, Cancelled = 2 };

// ---- The link word
//
// One 64-bit atomic per slot holds the producer side of the task:
//   bits  0..31  fanout head: 1 + index of the newest edge node in the fanout list, 0 = empty
//   bit  32      closed: the task completed and its fanout list was taken
//   bits 33..63  references that keep the task from retiring: one for its own completion and, if the task
//                allocated outputs from the heap ring, one per consumer until that consumer finishes (a
//                consumer may read them; retiring frees them). A task that allocated nothing retires once it
//                completed: its consumers hold no reference (EdgeNode's kUnreferenced bit says so) and
//                never touch its slot again. A template-internal consumer never holds one: no node of an
//                instance can be handed a buffer another node of it allocates (its address does not exist
//                when the instance's arguments are fixed). The scope's hold is not counted here: only the
//                orchestrator retires tasks, so it keeps that flag privately (TaskWindow, task_window.h).
//
// Transitions and owners:
//   link consumer     orchestrator, CAS: refs += 1 (a producer with outputs); if not closed, the node is
//                     pushed as the new head and the consumer waits for the producer (fanin); if closed, the
//                     consumer only holds a reference (no CAS at all without one). Producers below the
//                     retirement watermark are never linked.
//   close             completing thread, CAS: sets closed, clears the head, takes the list and drops the
//                     task's own completion reference, so it reads everything it needs of its own slot
//                     first; after it, only its consumers' slots and the edge nodes they own.
//   drop reference    consumer completion (if it holds one): fetch_sub.
//   retire            orchestrator only, in id order, when refs == 0 and no open scope holds the task; only
//                     then may the slot be reused, so no other thread touches a slot whose refs reached 0.
// Only the orchestrator pushes, so pushes never interleave (no ABA); a push that races with close either
// lands before it (and the completer walks the node) or sees closed, because both are CASes on one word.
inline constexpr std::uint64_t kLinkHeadMask = 0xffff'ffffull;
inline constexpr std::uint64_t kLinkClosed = 1ull << 32;
inline constexpr int kLinkRefShift = 33;
inline constexpr std::uint64_t kLinkRefUnit = 1ull << kLinkRefShift;

[[nodiscard]] constexpr std::uint64_t link_refs(std::uint64_t word) {
    return word >> kLinkRefShift;
}
[[nodiscard]] constexpr std::uint32_t link_head(std::uint64_t word) {
    return static_cast<std::uint32_t>(word & kLinkHeadMask);
}
[[nodiscard]] constexpr bool link_is_closed(std::uint64_t word) {
    return (word & kLinkClosed) != 0;
}

// ---- The fanin counter
//
// Before linking, the orchestrator stores in fanin_pending the exact number K of producers it is about to
// link (duplicates and retired producers already removed) plus the template-internal producers. Every
// producer that completes after the consumer was linked subtracts one (acq_rel). A producer that turns out
// to be closed already when the orchestrator links subtracts nothing, so the orchestrator subtracts the
// number of those, once, after linking (acq_rel). Whichever operation takes the counter to zero makes the
// task ready, exactly once. With K = 0 the orchestrator makes it ready directly, with no atomic operation.
// Publication: the first successful link CAS (a release the completer acquires) or the ready-queue push
// publishes the slot, so every field is written before linking starts and none after.

/// TaskSlot: hot state of one task. Written by the orchestrator while the slot is unpublished; afterwards
/// only the atomics change. Fields grouped: shared atomics first, then orchestrator-written constants.
struct alignas(kCacheLine) TaskSlot {
    // Shared atomics.
    std::atomic<std::int32_t> fanin_pending;     // see "The fanin counter"
    std::atomic<std::uint32_t> blocks_claimed;   // next block index to dispatch; see ReadyQueues
    std::atomic<std::uint64_t> link;             // see "The link word"
    std::atomic<std::uint32_t> blocks_finished;  // blocks whose subtask (all MIX lanes) ended
    std::atomic<Outcome> outcome;

    // Written by the orchestrator before publication (the fanin add), read by schedulers.
    // The edges linked to this task at its submission (a template node: its boundary edges), `count` of them,
    // whose nodes [begin, begin + count) name its producers, unless it is a bundle member (EdgeLinker): then
    // it holds no reference, and nothing walks them.
    std::uint32_t fanin_edge_begin;
    std::uint32_t fanin_edge_count;
    // From here to the end: what a template node's slot holds in every instance, written from the plan's
    // image of it in one copy (SlotImage).
    TaskKind kind;
    Shape shape;
    std::uint16_t block_num;
    FuncId funcs[3];
    bool holds_references;  // one of those producers allocated outputs: it holds a reference on it
    std::uint16_t static_consumer_count;  // template-internal consumers, as offsets from this task's id
    const std::uint32_t* static_consumers;
};
static_assert(sizeof(TaskSlot) == kCacheLine,
              "hot per-task state must fit one cache line (docs/design/targets.md)");
static_assert(std::is_standard_layout_v<TaskSlot>, "SlotImage addresses members with offsetof");

/// SlotImage: the bytes of a TaskSlot from `kind` to its end, as a planned instance's node has them in every
/// instance (holds_references false until the linker stages an edge): the plan keeps one per node
/// (InstancePlan::Node::slot_image) and each instance copies it in whole instead of field by field.
struct SlotImage {
    static constexpr std::size_t kOffset = offsetof(TaskSlot, kind);
    static constexpr std::size_t kBytes = sizeof(TaskSlot) - kOffset;

    /// make: the image of a slot with these constants.
    static void make(std::byte (&out)[kBytes], TaskKind kind, Shape shape, std::uint16_t block_num,
                     const FuncId (&funcs)[3], std::uint16_t consumer_count, const std::uint32_t* consumers) {
        TaskSlot proto{};
        proto.kind = kind;
        proto.shape = shape;
        proto.block_num = block_num;
        for (int l = 0; l < 3; ++l)
            proto.funcs[l] = funcs[l];
        proto.holds_references = false;
        proto.static_consumer_count = consumer_count;
        proto.static_consumers = consumers;
        std::memcpy(out, reinterpret_cast<const std::byte*>(&proto) + kOffset, kBytes);
    }
    /// write: copies an image into slot `t` (unpublished: plain writes).
    static void write(TaskSlot& t, const std::byte (&image)[kBytes]) {
        std::memcpy(reinterpret_cast<std::byte*>(&t) + kOffset, image, kBytes);
    }
};

[[nodiscard]] constexpr Shape shape_of(TaskKind kind, CoreType core) {
    if (kind != TaskKind::Kernel) return Shape::DependencyOnly;
    switch (core) {
        case CoreType::AIC:
            return Shape::AIC;
        case CoreType::AIV:
            return Shape::AIV;
        case CoreType::MIX:
            return Shape::MIX;
        case CoreType::None:
            break;
    }
    return Shape::DependencyOnly;
}

}  // namespace pto::detail
