// RegionIndex: bucket chains, per-buffer entry lists and buffer records (see region_index.h).
#include "region_index.h"

#include "pto/runtime/detail/throw.h"

namespace pto::detail {

RegionIndex::RegionIndex(EntryPool& pool, std::uint32_t capacity)
    : pool_(pool),
      heads_(std::size_t{capacity} * 2, kNoEntry),
      bucket_mask_(capacity * 2 - 1),
      chain_(capacity),
      chain_prev_(capacity),
      members_(capacity, BufferLink{kNoEntry, kNoEntry, kNoEntry}),
      buffers_(capacity),
      buffer_heads_(capacity, kNoEntry),
      buffer_mask_(capacity - 1),
      free_buffer_(0) {
    for (std::uint32_t b = 0; b < capacity; ++b)
        buffers_[b].next = b + 1 < capacity ? b + 1 : kNoEntry;
}

std::uint32_t RegionIndex::buffer_slot(std::uintptr_t base) const {
    std::uint64_t h = static_cast<std::uint64_t>(base);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return static_cast<std::uint32_t>(h) & buffer_mask_;
}

std::uint32_t RegionIndex::find_buffer(std::uintptr_t base) const {
    std::uint32_t b = buffer_heads_[buffer_slot(base)];
    while (b != kNoEntry && buffers_[b].base != base)
        b = buffers_[b].next;
    return b;
}

std::uint32_t RegionIndex::acquire_buffer(std::uintptr_t base) {
    std::uint32_t b = find_buffer(base);
    if (b != kNoEntry) return b;
    // A record lives only while its buffer has an entry, so there are never more records than entries.
    b = free_buffer_;
    PTO_ASSERT(b != kNoEntry, "more buffer records than tensormap entries");
    Buffer& rec = buffers_[b];
    free_buffer_ = rec.next;
    const std::uint32_t slot = buffer_slot(base);
    rec = Buffer{base, {0, 0}, kNoEntry, 0, buffer_heads_[slot]};
    buffer_heads_[slot] = b;
    ++buffer_count_;
    return b;
}

void RegionIndex::release_buffer(std::uint32_t b) {
    std::uint32_t* link = &buffer_heads_[buffer_slot(buffers_[b].base)];
    while (*link != b)
        link = &buffers_[*link].next;
    *link = buffers_[b].next;
    buffers_[b].next = free_buffer_;
    free_buffer_ = b;
    --buffer_count_;
}

bool RegionIndex::probes_exceed(std::int64_t lo, std::int64_t hi, std::uint64_t writer_levels,
                                std::uint64_t reader_levels, std::uint32_t limit) {
    std::int64_t probes = 0;
    for (std::uint64_t levels : {writer_levels, reader_levels}) {
        for (; levels != 0; levels &= levels - 1) {
            const int level = std::countr_zero(levels);
            probes += (hi >> level) - (lo >> level) + 2;
            if (probes > limit) return true;
        }
    }
    return false;
}

void RegionIndex::insert(std::uint32_t e) {
    Entry& en = pool_.entry(e);
    en.level = static_cast<std::uint8_t>(std::bit_width(static_cast<std::uint64_t>(en.hi - en.lo)));

    const std::uint32_t b = acquire_buffer(en.base);
    Buffer& rec = buffers_[b];
    rec.levels[en.is_writer ? 1 : 0] |= std::uint64_t{1} << en.level;
    members_[e] = BufferLink{b, kNoEntry, rec.first_entry};
    if (rec.first_entry != kNoEntry) members_[rec.first_entry].prev = e;
    rec.first_entry = e;
    ++rec.entry_count;

    const std::uint32_t hash = key_hash(en.base, en.level, en.lo >> en.level, en.is_writer);
    std::uint32_t& head = heads_[hash & bucket_mask_];
    chain_[e] = ChainLink{head, hash};
    chain_prev_[e] = kNoEntry;
    if (head != kNoEntry) chain_prev_[head] = e;
    head = e;
}

void RegionIndex::erase(std::uint32_t e) {
    const BufferLink member = members_[e];
    PTO_ASSERT(member.buffer != kNoEntry, "erasing a tensormap entry that is not indexed");
    const ChainLink link = chain_[e];
    if (chain_prev_[e] != kNoEntry)
        chain_[chain_prev_[e]].next = link.next;
    else
        heads_[link.hash & bucket_mask_] = link.next;
    if (link.next != kNoEntry) chain_prev_[link.next] = chain_prev_[e];

    Buffer& rec = buffers_[member.buffer];
    if (member.prev != kNoEntry)
        members_[member.prev].next = member.next;
    else
        rec.first_entry = member.next;
    if (member.next != kNoEntry) members_[member.next].prev = member.prev;
    members_[e].buffer = kNoEntry;
    if (--rec.entry_count == 0) release_buffer(member.buffer);
}

}  // namespace pto::detail
