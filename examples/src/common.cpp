// Scheme and tier names, the SPMD launch rule, and the virtual address space (an mmap'ed PROT_NONE range).
#include "pto/examples/common.h"

#include <sys/mman.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <new>
#include <string>

namespace pto::examples {

std::string_view to_string(Scheme s) {
    switch (s) {
        case Scheme::Manual:
            return "manual";
        case Scheme::Tensormap:
            return "tensormap";
        case Scheme::StaticManual:
            return "static-manual";
        case Scheme::StaticTensormap:
            return "static-tensormap";
    }
    return "?";
}

char letter(Scheme s) {
    return static_cast<char>('A' + static_cast<int>(s));
}

std::optional<Scheme> parse_scheme(std::string_view text) {
    if (text.size() == 1) {
        const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
        if (c >= 'A' && c <= 'D') return static_cast<Scheme>(c - 'A');
    }
    for (Scheme s : kAllSchemes)
        if (to_string(s) == text) return s;
    return std::nullopt;
}

std::optional<std::vector<Scheme>> parse_schemes(std::string_view list) {
    if (list == "all") return std::vector<Scheme>(std::begin(kAllSchemes), std::end(kAllSchemes));
    std::vector<Scheme> schemes;
    while (true) {
        const std::size_t comma = list.find(',');
        const std::optional<Scheme> s = parse_scheme(list.substr(0, comma));
        if (!s) return std::nullopt;
        if (std::find(schemes.begin(), schemes.end(), *s) == schemes.end()) schemes.push_back(*s);
        if (comma == std::string_view::npos) return schemes;
        list.remove_prefix(comma + 1);
    }
}

std::string_view to_string(SpmdTier t) {
    switch (t) {
        case SpmdTier::NonSpmd:
            return "non-spmd";
        case SpmdTier::Spmd2:
            return "spmd-2";
        case SpmdTier::Spmd4:
            return "spmd-4";
        case SpmdTier::Spmd8:
            return "spmd-8";
        case SpmdTier::AllSpmd:
            return "all-spmd";
    }
    return "?";
}

std::optional<SpmdTier> parse_tier(std::string_view text) {
    if (text.starts_with("--")) text.remove_prefix(2);
    if (text.size() == 1 && text[0] >= '0' && text[0] <= '4') return static_cast<SpmdTier>(text[0] - '0');
    for (SpmdTier t : kAllTiers)
        if (to_string(t) == text) return t;
    return std::nullopt;
}

std::uint32_t target_width(SpmdTier t) {
    switch (t) {
        case SpmdTier::NonSpmd:
            return 1;
        case SpmdTier::Spmd2:
            return 2;
        case SpmdTier::Spmd4:
            return 4;
        case SpmdTier::Spmd8:
            return 8;
        case SpmdTier::AllSpmd:
            break;
    }
    return std::numeric_limits<std::uint32_t>::max();
}

std::vector<Launch> launches(std::uint32_t chunks, SpmdTier tier) {
    std::vector<Launch> out;
    const std::uint32_t w = std::min(target_width(tier), chunks);
    for (std::uint32_t base = 0; base < chunks; base += w)
        out.push_back(Launch{base, std::min(w, chunks - base)});
    return out;
}

VirtualAddressSpace::VirtualAddressSpace(std::uint64_t bytes) : size_(bytes) {
    // Halve the request until it fits: ThreadSanitizer confines a process to a few TiB of address space,
    // where 1 TiB in one piece is not always free. Graphs that outgrow the smaller range still get
    // std::bad_alloc.
    for (;;) {
        base_ = mmap(nullptr, size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (base_ != MAP_FAILED) return;
        if (size_ <= (1ull << 30)) throw std::bad_alloc();
        size_ /= 2;
    }
}

VirtualAddressSpace::~VirtualAddressSpace() {
    munmap(base_, size_);
}

void* VirtualAddressSpace::reserve(std::uint64_t bytes) {
    const std::uint64_t size = std::max<std::uint64_t>(64, (bytes + 63) & ~std::uint64_t{63});
    if (used_ + size > size_) throw std::bad_alloc();
    void* p = static_cast<char*>(base_) + used_;
    used_ += size;
    return p;
}

}  // namespace pto::examples
