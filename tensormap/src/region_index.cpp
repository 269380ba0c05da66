// RegionIndex: bucket chains, per-buffer entry lists and buffer records (see region_index.h).
#include "region_index.h"

#include "pto/runtime/detail/throw.h"

#include <algorithm>
#include <cstring>
#include <new>

namespace pto::detail {
namespace {

// Starting sizes of the used part of the head arrays (16 KiB and 1 KiB): room for 2048 registrations and
// 128 buffers before the first doubling.
constexpr std::uint32_t kInitialBuckets = 4096;
constexpr std::uint32_t kInitialBufferSlots = 1024;

/// heads: room for `count` heads of which only the first `used` are zeroed; the growth paths zero the
/// part they start to use. Not calloc: once glibc has raised its mmap threshold (a map freed and built
/// again, as a benchmark does per run), calloc takes a large block from the heap and clears all of it,
/// which cost more than the rest of building the map.
std::uint32_t* heads(std::size_t count, std::size_t used) {
    void* p = std::malloc(count * sizeof(std::uint32_t));
    if (p == nullptr) [[unlikely]]
        throw std::bad_alloc();
    std::memset(p, 0, used * sizeof(std::uint32_t));
    return static_cast<std::uint32_t*>(p);
}

}  // namespace

RegionIndex::RegionIndex(EntryPool& pool, std::uint32_t capacity)
    : pool_(pool),
      heads_(heads(std::size_t{capacity} * 2, std::min(capacity * 2, kInitialBuckets))),
      bucket_mask_(std::min(capacity * 2, kInitialBuckets) - 1),
      max_buckets_(capacity * 2),
      chain_(std::make_unique_for_overwrite<ChainLink[]>(std::size_t{capacity} * 2)),
      chain_prev_(std::make_unique_for_overwrite<std::uint32_t[]>(std::size_t{capacity} * 2)),
      members_(std::make_unique_for_overwrite<BufferLink[]>(capacity)),
      buffers_(std::make_unique_for_overwrite<Buffer[]>(capacity)),
      grids_(std::make_unique_for_overwrite<GridClasses[]>(capacity)),
      extents_(std::make_unique_for_overwrite<Extents[]>(capacity)),
      buffer_heads_(heads(capacity, std::min(capacity, kInitialBufferSlots))),
      buffer_mask_(std::min(capacity, kInitialBufferSlots) - 1),
      max_buffer_slots_(capacity),
      memo_ids_(std::make_unique_for_overwrite<std::uint32_t[]>(std::size_t{kReadMemos} * kReadMemo)) {}

std::uint32_t RegionIndex::acquire_buffer(std::uintptr_t base, BufferRef ref) {
    // A missing record stays missing until one is acquired (insert's contract); a found one was released.
    PTO_ASSERT(ref.buffer != kNoEntry || is_current(ref, base), "a stale BufferRef of a missing record");
    std::uint32_t b = ref.buffer == kNoEntry ? kNoEntry : find_buffer(base);
    if (b != kNoEntry) return b;
    recent_acquires_[acquires_ % kRecentAcquires] = base;
    ++acquires_;
    // A record lives only while its buffer has an entry, so there are never more records than entries.
    if (free_buffer_ != kNoEntry) {
        b = free_buffer_;
        free_buffer_ = buffers_[b].next;
    } else {
        PTO_ASSERT(fresh_buffer_ < max_buffer_slots_, "more buffer records than tensormap entries");
        b = fresh_buffer_++;
    }
    std::uint32_t& head = buffer_heads_[buffer_slot(base)];
    buffers_[b] =
        Buffer{base, {0, 0}, 0, {kNoEntry, kNoEntry}, 0, 0, {0, 0}, head, false, false, true, false};
    head = b + 1;
    last_base_ = base;
    last_buffer_ = b;
    if (++buffer_count_ > buffer_mask_ + 1 && buffer_mask_ + 1 < max_buffer_slots_) [[unlikely]]
        grow_buffer_slots();
    return b;
}

void RegionIndex::release_buffer(std::uint32_t b) {
    std::uint32_t* link = &buffer_heads_[buffer_slot(buffers_[b].base)];
    while (*link != b + 1)
        link = &buffers_[*link - 1].next;
    *link = buffers_[b].next;
    if (last_buffer_ == b) last_buffer_ = kNoEntry;
    ++releases_;
    buffers_[b].is_live = false;
    buffers_[b].next = free_buffer_;
    free_buffer_ = b;
    --buffer_count_;
}

void RegionIndex::link(std::uint32_t reg, std::uint32_t hash) {
    std::uint32_t& head = heads_[hash & bucket_mask_];
    chain_[reg] = ChainLink{head, hash};
    chain_prev_[reg] = 0;
    if (head != 0) chain_prev_[head - 1] = reg + 1;
    head = reg + 1;
    ++registrations_;
}

void RegionIndex::grow_buckets() {
    // Relinking the pool's linked entries (of indexed buffers; link_pending grows after linking) rebuilds
    // every chain. O(live entries), amortised over the registrations that filled the table.
    const std::uint32_t buckets = std::min(max_buckets_, (bucket_mask_ + 1) * 4);
    bucket_mask_ = buckets - 1;
    std::memset(heads_.get(), 0, std::size_t{buckets} * sizeof(std::uint32_t));
    registrations_ = 0;
    for (std::uint32_t e = pool_.oldest(); e != kNoEntry; e = pool_.younger(e)) {
        if (!buffers_[members_[e].buffer].is_indexed || !pool_.entry(e).is_linked) continue;
        link(2 * e, chain_[2 * e].hash);
        if (pool_.entry(e).is_grid) link(2 * e + 1, chain_[2 * e + 1].hash);
    }
}

void RegionIndex::grow_if_crowded() {
    if (registrations_ * 2 > bucket_mask_ + 1 && bucket_mask_ + 1 < max_buckets_) [[unlikely]]
        grow_buckets();
}

inline void RegionIndex::link_entry(std::uint32_t e) {
    Entry& en = pool_.entry(e);
    en.is_linked = true;
    const std::int64_t block = en.lo >> en.level;
    link(2 * e,
         block_hash(family_hash(en.base, en.level, en.is_writer, en.is_grid ? kWide : kFlat, 0), block));
    if (en.is_grid)
        link(2 * e + 1, grid_hash(family_hash(en.base, en.level, en.is_writer, kGrid, en.col_level), block,
                                  en.window.phase >> en.col_level));
}

void RegionIndex::link_pending(std::uint32_t b, int k) {
    Buffer& rec = buffers_[b];
    std::uint32_t e = rec.first_entry[k];
    for (std::uint32_t n = rec.unlinked[k]; n != 0; --n) {
        PTO_ASSERT(e != kNoEntry && !pool_.entry(e).is_linked, "unlinked entries lead their list");
        link_entry(e);
        e = members_[e].next;
    }
    rec.unlinked[k] = 0;
    grow_if_crowded();
}

void RegionIndex::index_buffer(std::uint32_t b) {
    buffers_[b].is_indexed = true;
    extents_[b].kind[0].reset();
    extents_[b].kind[1].reset();
    extents_[b].latest = kNoEntry;
    extents_[b].writer_count = 0;
    for (const std::uint32_t head : buffers_[b].first_entry)
        for (std::uint32_t e = head; e != kNoEntry; e = members_[e].next)
            register_entry(e);
}

void RegionIndex::grow_buffer_slots() {
    const std::uint32_t slots = std::min(max_buffer_slots_, (buffer_mask_ + 1) * 4);
    buffer_mask_ = slots - 1;
    std::memset(buffer_heads_.get(), 0, std::size_t{slots} * sizeof(std::uint32_t));
    for (std::uint32_t b = 0; b < fresh_buffer_; ++b) {
        if (!buffers_[b].is_live) continue;
        std::uint32_t& head = buffer_heads_[buffer_slot(buffers_[b].base)];
        buffers_[b].next = head;
        head = b + 1;
    }
}

void RegionIndex::unlink(std::uint32_t reg) {
    const ChainLink link = chain_[reg];
    const std::uint32_t prev = chain_prev_[reg];
    if (prev != 0)
        chain_[prev - 1].next = link.next;
    else
        heads_[link.hash & bucket_mask_] = link.next;
    if (link.next != 0) chain_prev_[link.next - 1] = prev;
    --registrations_;
}

void RegionIndex::erase(std::uint32_t e) {
    ++erases_;
    const BufferLink member = members_[e];
    PTO_ASSERT(member.buffer != kNoEntry, "erasing a tensormap entry that is not indexed");
    const Entry& en = pool_.entry(e);
    Buffer& rec = buffers_[member.buffer];
    if (rec.is_indexed) {
        if (en.is_linked) {
            unlink(2 * e);
            if (en.is_grid) unlink(2 * e + 1);
        } else {
            --rec.unlinked[en.is_writer ? 1 : 0];
        }
        Extents& x = extents_[member.buffer];
        if (x.latest == e) x.latest = kNoEntry;
        if (en.is_writer) --x.writer_count;
    }
    if (member.prev != kNoEntry)
        members_[member.prev].next = member.next;
    else
        rec.first_entry[en.is_writer ? 1 : 0] = member.next;
    if (member.next != kNoEntry) members_[member.next].prev = member.prev;
    members_[e].buffer = kNoEntry;
    if (en.is_grid) --rec.grid_count;
    if (--rec.entry_count == 0) release_buffer(member.buffer);
}

void RegionIndex::reset() {
    ++erases_;
    // The heads in use are exactly those of the pool's linked entries and of their buffers: clearing them
    // (instead of unlinking entry by entry) empties every chain at once.
    for (std::uint32_t e = pool_.oldest(); e != kNoEntry; e = pool_.younger(e)) {
        if (buffers_[members_[e].buffer].is_indexed && pool_.entry(e).is_linked) {
            heads_[chain_[2 * e].hash & bucket_mask_] = 0;
            if (pool_.entry(e).is_grid) heads_[chain_[2 * e + 1].hash & bucket_mask_] = 0;
        }
        buffer_heads_[buffer_slot(pool_.entry(e).base)] = 0;
        members_[e].buffer = kNoEntry;
    }
    free_buffer_ = kNoEntry;
    fresh_buffer_ = 0;
    buffer_count_ = 0;
    ++releases_;  // every record is gone; missing ones stay missing
    registrations_ = 0;
    last_buffer_ = kNoEntry;
}

}  // namespace pto::detail
