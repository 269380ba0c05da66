// TensorMap: hazard rules (RAW, WAW, WAR), superseding writes and lazy reclamation, composed from EntryPool
// (storage, age order), RegionIndex (which entries can meet a view) and shape_overlap (whether they do).
#include "pto/tensormap/tensormap.h"

#include "entry_pool.h"
#include "pto/runtime/detail/throw.h"
#include "read_results.h"
#include "region_index.h"
#include "shape_overlap.h"
#include "view_shape.h"

#include <bit>
#include <new>
#include <string>
#include <type_traits>

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

/// Prepared: what TensorMap::Access holds: the view's normal form and row window, written by prepare long
/// before a lookup reads them (nothing is copied out of the shape right after it is built: such copies
/// stalled on store forwarding).
struct Prepared {
    detail::ViewShape shape;
    detail::RowWindow window;
    std::uintptr_t base;
    /// Set by find_producers for a write: RegionIndex::insert_count() then, and whether the lookup met an
    /// entry lying inside the view's range. Every entry a write can supersede lies there and so meets
    /// the range, so when none did and nothing was inserted into the buffer since, try_record has
    /// nothing to supersede and skips that pass.
    std::uint64_t looked_up_at;
    /// Set by find_producers: the view's buffer record then (RegionIndex::BufferRef, split so that the
    /// flags below fill the record index's word); try_record uses it while it is current.
    std::uint64_t buffer_epoch;
    /// The view's creator when the runtime allocated its buffer (0 otherwise): entries of older tasks
    /// belong to an earlier buffer at the same address and are ignored.
    std::uint64_t first_task;
    std::uint32_t buffer;
    bool has_looked_up;
    bool met_contained;
    bool is_writer;
    bool is_dense;
};

/// is_rows_shape: whether a bounded shape is rows, rank 2 with strides {1, pitch} (build_simple's Rows and
/// the same shape reached by the general path), which its range and row window determine.
bool is_rows_shape(const detail::ViewShape& s) {
    return s.rank == 2 && s.stride[0] == 1 && !s.is_opaque && !s.is_empty;
}

/// entry_shape: the normal form of entry `e`. Dense and rows entries store none (their range and window
/// say everything, and not copying 104 bytes per record spares two cache lines per entry): it is rebuilt
/// into `scratch`.
const detail::ViewShape& entry_shape(const detail::EntryPool& pool, std::uint32_t e,
                                     detail::ViewShape& scratch) {
    const detail::Entry& en = pool.entry(e);
    if (!en.is_dense && !en.is_rows) return pool.shape(e);
    scratch.first = en.lo;
    scratch.last = en.hi;
    scratch.stride[0] = 1;
    scratch.is_empty = false;
    scratch.is_opaque = false;
    scratch.is_chain = true;
    if (en.is_rows) {
        // hi = lo + (rows - 1) * pitch + width, and the row window's width is count[0] - 1.
        const std::int64_t pitch = en.window.pitch;
        scratch.count[0] = en.window.width + 1;
        scratch.stride[1] = pitch;
        scratch.count[1] = detail::exact_div(en.hi - en.lo - en.window.width, pitch) + 1;
        scratch.rank = 2;
        return scratch;
    }
    scratch.count[0] = en.hi - en.lo + 1;
    scratch.rank = en.lo == en.hi ? 0 : 1;
    return scratch;
}

/// shapes_meet: the general test of meets, out of line so that meets, and with it the lookup's visit,
/// stays small (the fast paths settle most candidates).
[[gnu::noinline]] bool shapes_meet(const detail::EntryPool& pool, std::uint32_t e, const Prepared& p) {
    detail::ViewShape scratch;
    return detail::shapes_overlap(entry_shape(pool, e, scratch), p.shape) != detail::Answer::No;
}

/// meets: whether entry `e`, whose linear range meets the prepared view's, shares an element with it.
/// Settled from the entry's own cache line where possible: a common first or last element (the same view
/// again, most often); a view filling its range that holds the other's first or last element; or row
/// windows proving tiles side by side disjoint. Only then are the shapes compared.
inline bool meets(const detail::EntryPool& pool, std::uint32_t e, const Prepared& p) {
    const detail::Entry& en = pool.entry(e);
    const std::int64_t lo = p.shape.first;
    const std::int64_t hi = p.shape.last;
    if (en.lo == lo || en.hi == hi) return true;
    if (p.is_dense && (en.lo >= lo || en.hi <= hi)) return true;
    if (en.is_dense && (lo >= en.lo || hi <= en.hi)) return true;
    if (detail::windows_disjoint(en.window, p.window)) return false;
    return shapes_meet(pool, e, p);
}

}  // namespace

struct TensorMap::Impl {
    detail::EntryPool pool;
    detail::RegionIndex index;
    detail::ReadResults results;
    std::uint64_t takeovers = 0;  ///< writer entries a write took over in place (see supersede)

    explicit Impl(std::uint32_t entries) : pool(checked_capacity(entries)), index(pool, entries) {}

    void remove(std::uint32_t e) {
        index.erase(e);
        pool.release(e);
    }

    /// is_reclaimable: the entry's task retired and succeeded, so no later access can depend on it. An
    /// entry of a retired task that failed or was cancelled stays: a later access that meets it must be
    /// cancelled (the runtime does so for a retired unsuccessful producer), which needs its id. It goes
    /// when a write covering it supersedes it (that writer is cancelled in turn, and its own entry stands
    /// in for it) or when the map is cleared at the end of the run.
    static bool is_reclaimable(const detail::Entry& en, const RetiredTasks& retired) {
        return en.task < retired.before.value && !retired.is_unsuccessful(TaskId{en.task});
    }

    /// Entries are allocated in nondecreasing task order and tasks retire in id order, so the retired
    /// entries not yet met by a lookup sit at the old end of the age list: amortised O(1) per entry. An
    /// entry of a task that failed or was cancelled is kept (its data is poisoned, see is_reclaimable) and
    /// moved to the young end, so it does not stop the walk; the walk ends when it meets one it moved.
    void reclaim_oldest(const RetiredTasks& retired) {
        std::uint32_t first_kept = detail::kNoEntry;
        for (std::uint32_t e = pool.oldest();
             e != detail::kNoEntry && e != first_kept && pool.entry(e).task < retired.before.value;
             e = pool.oldest()) {
            if (retired.is_unsuccessful(TaskId{pool.entry(e).task})) [[unlikely]] {
                if (first_kept == detail::kNoEntry) first_kept = e;
                pool.touch(e);
                continue;
            }
            remove(e);
        }
    }

    /// supersede: a write's superseding pass (see try_record), out of line so that the record's common
    /// path (nothing to supersede) keeps a small frame. Returns true when the write took over an entry of
    /// the very same view, which then stands for it: nothing is left to insert.
    [[gnu::noinline]] bool supersede(const Prepared& p, detail::RegionIndex::BufferRef ref, TaskId task,
                                     const RetiredTasks& retired);

    /// record: try_record of an active prepared access, for a valid task, after reclaim_oldest. Inline into
    /// both entry points.
    [[gnu::always_inline]] inline bool record(const Prepared& p, TaskId task, const RetiredTasks& retired);

    /// look_up: find_producers on a prepared access. Inline into both entry points (the lookup of a view
    /// just prepared then reads the shape from where prepare wrote it, in the same frame).
    [[gnu::always_inline]] inline void look_up(Prepared& p, const RetiredTasks& retired,
                                               std::vector<TaskId>& out);

    struct LookupVisit;
    /// recall / keep: for a read whose candidates are those of index memo `memo`, what an earlier read that
    /// followed it reported, if that still holds (appended to `out`: true), and keeping what this read
    /// reported (ReadResults). Only reads of a dense view or rows (is_exact). Out of line: only reads the
    /// index probes reach them.
    [[gnu::noinline]] bool recall(const Prepared& p, const detail::RegionIndex::RememberedRead& memo,
                                  const RetiredTasks& retired, std::vector<TaskId>& out) const;
    [[gnu::noinline]] void keep(const Prepared& p, const detail::RegionIndex::RememberedRead& memo,
                                std::span<const TaskId> producers);
    /// is_exact: the view's range and row window fix its elements (a dense view or rows), so reads with
    /// the same ones and the same creator meet the same entries.
    static bool is_exact(const Prepared& p) { return p.is_dense || is_rows_shape(p.shape); }

    /// Cold path for a full pool: finds retired entries anywhere (callers may record out of task order).
    bool reclaim_anywhere(const RetiredTasks& retired) {
        bool freed = false;
        for (std::uint32_t e = pool.oldest(); e != detail::kNoEntry;) {
            const std::uint32_t next = pool.younger(e);
            if (is_reclaimable(pool.entry(e), retired)) {
                remove(e);
                freed = true;
            }
            e = next;
        }
        return freed;
    }
};

static_assert(std::is_trivially_copyable_v<Prepared> && std::is_trivially_destructible_v<Prepared>);

/// prepare_access: TensorMap::prepare, inline here so that prepare_and_find runs it and the lookup in one
/// frame.
inline bool TensorMap::prepare_access(const TensorView& view, Direction direction, Access& out) {
    static_assert(sizeof(Prepared) <= sizeof(Access::storage_) && alignof(Prepared) <= 8,
                  "TensorMap::Access holds a Prepared");
    out.is_active_ = false;
    if (!view.is_tracked) return false;
    Prepared* p = new (out.storage_) Prepared;  // trivial: nothing is zero-filled
    const detail::SimpleForm form = detail::build_simple(view, p->shape, p->window);
    if (form == detail::SimpleForm::None) {
        detail::build_general_shape(view, p->shape);
        if (p->shape.is_empty) return false;
        detail::set_row_window(p->shape, p->window);
        p->is_dense = detail::is_dense(p->shape);
    } else {
        p->is_dense = form == detail::SimpleForm::Range;
    }
    p->base = reinterpret_cast<std::uintptr_t>(view.base);
    p->is_writer = direction != Direction::In;
    p->first_task = view.creator.is_valid() ? view.creator.value : 0;
    p->has_looked_up = false;
    out.is_active_ = true;
    return true;
}

TensorMap::TensorMap(std::uint32_t entry_capacity) : impl_(std::make_unique<Impl>(entry_capacity)) {}

TensorMap::~TensorMap() = default;

void TensorMap::prepare(const TensorView& view, Direction direction, Access& out) const {
    prepare_access(view, direction, out);
}

/// LookupVisit: look_up's visit of a candidate entry: drops it if its task retired (or it belongs to an
/// earlier buffer at the address), reports it if it meets the access. For a read that makes or follows a
/// memo of the index, also recall and remember (RegionIndex::kRecalls), through ReadResults.
struct TensorMap::Impl::LookupVisit {
    Impl& m;
    Prepared& p;
    const RetiredTasks& retired;
    std::vector<TaskId>& out;
    std::size_t reported_from;  ///< out.size() before the lookup
    bool met_contained = false;

    void operator()(std::uint32_t e) {
        const detail::Entry& en = m.pool.entry(e);
        if (en.task < p.first_task) [[unlikely]] {
            // An access of an earlier buffer the runtime allocated at the same address.
            if (en.task < retired.before.value) m.remove(e);
            return;
        }
        if (en.task < retired.before.value) {
            if (Impl::is_reclaimable(en, retired)) [[likely]] {
                m.remove(e);
                return;
            }
            // Kept: reported like a live entry, so the runtime cancels this access's task.
        }
        if (en.lo >= p.shape.first && en.hi <= p.shape.last) met_contained = true;
        if (meets(m.pool, e, p)) out.push_back(TaskId{en.task});
    }
    bool recall(const detail::RegionIndex::RememberedRead& memo) { return m.recall(p, memo, retired, out); }
    void remember(const detail::RegionIndex::RememberedRead& memo) {
        m.keep(p, memo, std::span<const TaskId>(out.data() + reported_from, out.size() - reported_from));
    }
};

void TensorMap::Impl::look_up(Prepared& p, const RetiredTasks& retired, std::vector<TaskId>& out) {
    Impl& m = *this;
    const detail::RegionIndex::BufferRef ref = m.index.find(p.base);
    p.looked_up_at = m.index.insert_count();
    p.has_looked_up = true;
    if (ref.buffer == detail::kNoEntry) {
        // No entry of the buffer (the first access of a fresh one, most often): nothing to find.
        p.buffer = ref.buffer;
        p.buffer_epoch = ref.epoch;
        p.met_contained = false;
        return;
    }
    LookupVisit visit{m, p, retired, out, out.size()};
    m.index.for_each_candidate(
        ref, p.base, p.shape.first, p.shape.last, p.window,
        p.is_writer ? detail::RegionIndex::Match::Accesses : detail::RegionIndex::Match::Writers, visit);
    // A visit that erased the buffer's last entry released its record and so made `ref` stale.
    const detail::RegionIndex::BufferRef now = m.index.current(ref, p.base);  // `ref` names a record here
    p.buffer = now.buffer;
    p.buffer_epoch = now.epoch;
    p.met_contained = visit.met_contained;
}

bool TensorMap::Impl::recall(const Prepared& p, const detail::RegionIndex::RememberedRead& memo,
                             const RetiredTasks& retired, std::vector<TaskId>& out) const {
    return is_exact(p) && results.recall(memo, p.first_task, takeovers, retired.before.value, out);
}

void TensorMap::Impl::keep(const Prepared& p, const detail::RegionIndex::RememberedRead& memo,
                           std::span<const TaskId> producers) {
    if (is_exact(p)) results.keep(memo, p.first_task, takeovers, producers);
}

void TensorMap::find_producers(Access& access, const RetiredTasks& retired, std::vector<TaskId>& out) {
    if (!access.is_active_) return;
    impl_->look_up(*std::launder(reinterpret_cast<Prepared*>(access.storage_)), retired, out);
}

void TensorMap::prepare_and_find(const TensorView& view, Direction direction, Access& access,
                                 const RetiredTasks& retired, std::vector<TaskId>& out) {
    if (!prepare_access(view, direction, access)) return;
    impl_->look_up(*std::launder(reinterpret_cast<Prepared*>(access.storage_)), retired, out);
}

bool TensorMap::Impl::supersede(const Prepared& p, detail::RegionIndex::BufferRef ref, TaskId task,
                                const RetiredTasks& retired) {
    Impl& m = *this;
    // The caller looked this write up first, so it already depends on every entry it overlaps; those it
    // covers can never matter to a later access again (the new entry stands in for them). A writer
    // entry of the very same view is taken over instead (same index keys): no erase and insert.
    std::uint32_t same = detail::kNoEntry;
    detail::ViewShape scratch;
    auto visit = [&](std::uint32_t e) {
        const detail::Entry& en = m.pool.entry(e);
        if (Impl::is_reclaimable(en, retired)) {
            m.remove(e);
        } else if (same == detail::kNoEntry && en.is_writer && en.lo == p.shape.first &&
                   en.hi == p.shape.last && en.is_dense == p.is_dense &&
                   (en.is_dense || detail::same_layout(entry_shape(m.pool, e, scratch), p.shape))) {
            // Two dense views with the same range are the same elements.
            same = e;
        } else if (p.is_dense ||
                   detail::shape_covers(p.shape, entry_shape(m.pool, e, scratch)) == detail::Answer::Yes) {
            // A contained entry lies in the view's range, all of which a dense view holds.
            m.remove(e);
        }
    };
    m.index.for_each_candidate(ref, p.base, p.shape.first, p.shape.last, p.window,
                               detail::RegionIndex::Match::Contained, visit);
    if (same == detail::kNoEntry) return false;
    m.pool.entry(same).task = task.value;
    ++m.takeovers;  // the entry names another task now: what reads reported before is stale
    m.pool.touch(same);
    return true;
}

bool TensorMap::Impl::record(const Prepared& p, TaskId task, const RetiredTasks& retired) {
    Impl& m = *this;

    // The lookup's buffer record while it is current (records the task's earlier accesses created, or
    // reclaiming released, may have changed it). Only entries leave from here to the insert below, so a
    // missing record stays missing.
    detail::RegionIndex::BufferRef ref =
        p.has_looked_up ? m.index.current({p.buffer, p.buffer_epoch}, p.base) : m.index.find(p.base);
    // Only a write supersedes.
    if (p.is_writer &&
        (!p.has_looked_up || p.met_contained || !m.index.is_untouched_since(ref, p.looked_up_at)) &&
        m.supersede(p, ref, task, retired))
        return true;

    // Removing covered entries above only ever makes room, so a false return below has changed nothing.
    std::uint32_t e = m.pool.try_allocate();
    if (e == detail::kNoEntry) [[unlikely]] {
        if (!m.reclaim_anywhere(retired)) return false;
        e = m.pool.try_allocate();
    }
    detail::Entry& en = m.pool.entry(e);
    en.task = task.value;
    en.base = p.base;
    en.lo = p.shape.first;
    en.hi = p.shape.last;
    en.is_writer = p.is_writer;
    en.is_dense = p.is_dense;
    en.window = p.window;
    en.is_rows = !p.is_dense && is_rows_shape(p.shape);
    if (!p.is_dense && !en.is_rows) detail::copy_shape(m.pool.shape(e), p.shape);
    m.index.insert(e, ref);  // if superseding or reclaiming released the record, insert looks it up
    return true;
}

bool TensorMap::try_record(const Access& access, TaskId task, const RetiredTasks& retired) {
    if (!access.is_active_) return true;
    if (!task.is_valid()) [[unlikely]]
        invalid_task();
    impl_->reclaim_oldest(retired);
    return impl_->record(*std::launder(reinterpret_cast<const Prepared*>(access.storage_)), task, retired);
}

std::uint32_t TensorMap::try_record(const Access* accesses, std::uint32_t mask, TaskId task,
                                    const RetiredTasks& retired) {
    if (mask == 0) return 0;
    if (!task.is_valid()) [[unlikely]]
        invalid_task();
    Impl& m = *impl_;
    // Once per task, not per access: with the same watermark a second walk could only meet entries
    // recorded out of task order that a superseding pass exposed, which a full pool still finds
    // (reclaim_anywhere).
    m.reclaim_oldest(retired);
    for (; mask != 0; mask &= mask - 1) {
        const Access& access = accesses[std::countr_zero(mask)];
        if (access.is_active_ && !m.record(*std::launder(reinterpret_cast<const Prepared*>(access.storage_)),
                                           task, retired)) [[unlikely]]
            return mask;
    }
    return 0;
}

void TensorMap::find_producers(const TensorView& view, Direction direction, const RetiredTasks& retired,
                               std::vector<TaskId>& out) {
    Access access;
    prepare_and_find(view, direction, access, retired, out);
}

bool TensorMap::try_record(const TensorView& view, Direction direction, TaskId task,
                           const RetiredTasks& retired) {
    if (!view.is_tracked) return true;
    if (!task.is_valid()) [[unlikely]]
        invalid_task();
    Access access;
    prepare(view, direction, access);
    return try_record(access, task, retired);
}

void TensorMap::clear() {
    Impl& m = *impl_;
    m.index.reset();
    m.pool.reset();
}

std::uint32_t TensorMap::live_entries() const {
    return impl_->pool.size();
}

std::uint32_t TensorMap::capacity() const {
    return impl_->pool.capacity();
}

}  // namespace pto
