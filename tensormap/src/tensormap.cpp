// TensorMap: hazard rules (RAW, WAW, WAR), superseding writes and lazy reclamation, composed from EntryPool
// (storage, age order), RegionIndex (which entries can meet a view) and shape_overlap (whether they do).
#include "pto/tensormap/tensormap.h"

#include "entry_pool.h"
#include "pto/runtime/detail/throw.h"
#include "region_index.h"
#include "shape_overlap.h"
#include "view_shape.h"

#include <bit>
#include <string>

namespace pto {
namespace {

constexpr std::uint32_t kMinEntries = 64;
constexpr std::uint32_t kMaxEntries = 1u << 26;  // RuntimeConfig::validate's limit; keeps 2x in 32 bits

std::uint32_t checked_capacity(std::uint32_t entries) {
    if (entries < kMinEntries || entries > kMaxEntries || !std::has_single_bit(entries)) [[unlikely]]
        detail::throw_error(ErrorCode::InvalidConfig,
                            "RuntimeConfig::tensormap_entries = " + std::to_string(entries) +
                                ": must be a power of two in " + std::to_string(kMinEntries) + ".." +
                                std::to_string(kMaxEntries));
    return entries;
}

[[noreturn]] void invalid_task() {
    detail::throw_error(ErrorCode::InvalidArgument, "TensorMap::try_record needs a valid TaskId");
}

}  // namespace

struct TensorMap::Impl {
    detail::EntryPool pool;
    detail::RegionIndex index;

    explicit Impl(std::uint32_t entries) : pool(checked_capacity(entries)), index(pool, entries) {}

    void remove(std::uint32_t e) {
        index.erase(e);
        pool.release(e);
    }

    /// Entries are allocated in nondecreasing task order and tasks retire in id order, so the retired
    /// entries not yet met by a lookup sit at the old end of the age list: amortised O(1) per entry.
    void reclaim_oldest(std::uint64_t retired_before) {
        for (std::uint32_t e = pool.oldest(); e != detail::kNoEntry && pool.entry(e).task < retired_before;
             e = pool.oldest())
            remove(e);
    }

    /// Cold path for a full pool: finds retired entries anywhere (callers may record out of task order).
    bool reclaim_anywhere(std::uint64_t retired_before) {
        bool freed = false;
        for (std::uint32_t e = pool.oldest(); e != detail::kNoEntry;) {
            const std::uint32_t next = pool.younger(e);
            if (pool.entry(e).task < retired_before) {
                remove(e);
                freed = true;
            }
            e = next;
        }
        return freed;
    }
};

TensorMap::TensorMap(std::uint32_t entry_capacity) : impl_(std::make_unique<Impl>(entry_capacity)) {}

TensorMap::~TensorMap() = default;

void TensorMap::find_producers(const TensorView& view, Direction direction, TaskId retired_before,
                               std::vector<TaskId>& out) {
    if (!view.is_tracked) return;
    const detail::ViewShape shape = detail::make_view_shape(view);
    if (shape.is_empty) return;
    const detail::RowWindow window = detail::row_window(shape);
    Impl& m = *impl_;
    auto visit = [&](std::uint32_t e) {
        const detail::Entry& en = m.pool.entry(e);
        if (en.task < retired_before.value) {
            m.remove(e);
            return;
        }
        // The window test settles tiles beside the query in its rows without loading their shapes.
        if (!detail::windows_disjoint(en.window, window) &&
            detail::shapes_overlap(m.pool.shape(e), shape) != detail::Answer::No)
            out.push_back(TaskId{en.task});
    };
    m.index.for_each_candidate(reinterpret_cast<std::uintptr_t>(view.base), shape.first, shape.last,
                               direction == Direction::In ? detail::RegionIndex::Match::Writers
                                                          : detail::RegionIndex::Match::Accesses,
                               visit);
}

bool TensorMap::try_record(const TensorView& view, Direction direction, TaskId task, TaskId retired_before) {
    if (!view.is_tracked) return true;
    if (!task.is_valid()) [[unlikely]]
        invalid_task();
    const detail::ViewShape shape = detail::make_view_shape(view);
    if (shape.is_empty) return true;
    Impl& m = *impl_;
    const auto base = reinterpret_cast<std::uintptr_t>(view.base);
    const bool is_writer = direction != Direction::In;
    m.reclaim_oldest(retired_before.value);

    if (is_writer) {
        // The caller looked this write up first, so it already depends on every entry it overlaps; those it
        // covers can never matter to a later access again (the new entry stands in for them).
        auto supersede = [&](std::uint32_t e) {
            if (m.pool.entry(e).task < retired_before.value ||
                detail::shape_covers(shape, m.pool.shape(e)) == detail::Answer::Yes)
                m.remove(e);
        };
        m.index.for_each_candidate(base, shape.first, shape.last, detail::RegionIndex::Match::Contained,
                                   supersede);
    }

    // Removing covered entries above only ever makes room, so a false return below has changed nothing.
    std::uint32_t e = m.pool.try_allocate();
    if (e == detail::kNoEntry) [[unlikely]] {
        if (!m.reclaim_anywhere(retired_before.value)) return false;
        e = m.pool.try_allocate();
    }
    detail::Entry& en = m.pool.entry(e);
    en.task = task.value;
    en.base = base;
    en.lo = shape.first;
    en.hi = shape.last;
    en.is_writer = is_writer;
    en.window = detail::row_window(shape);
    m.pool.shape(e) = shape;
    m.index.insert(e);
    return true;
}

void TensorMap::clear() {
    Impl& m = *impl_;
    while (m.pool.oldest() != detail::kNoEntry)
        m.remove(m.pool.oldest());
}

std::uint32_t TensorMap::live_entries() const {
    return impl_->pool.size();
}

std::uint32_t TensorMap::capacity() const {
    return impl_->pool.capacity();
}

}  // namespace pto
