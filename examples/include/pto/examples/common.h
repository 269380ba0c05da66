// Vocabulary shared by the reference graphs, pto-bench and the tests: the four dependency schemes, the
// five SPMD tiers and the launch rule of docs/design/reference-graphs.md, and fake address spaces for
// full-size graphs.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace pto::examples {

/// Scheme: how a reference graph is built (docs/design/reference-graphs.md). A-D in the design documents.
enum class Scheme : std::uint8_t {
    Manual,           ///< A: dynamic submission, PTO2_SCOPE(MANUAL), explicit edges
    Tensormap,        ///< B: dynamic submission, PTO2_SCOPE(), edges discovered from tensors
    StaticManual,     ///< C: static templates, boundary edges given by hand
    StaticTensormap,  ///< D: static templates, boundary edges discovered from tensors
};
inline constexpr Scheme kAllSchemes[] = {Scheme::Manual, Scheme::Tensormap, Scheme::StaticManual,
                                         Scheme::StaticTensormap};

/// to_string: "manual", "tensormap", "static-manual", "static-tensormap" (the JSON `mode` values).
[[nodiscard]] std::string_view to_string(Scheme s);
/// letter: 'A'..'D'.
[[nodiscard]] char letter(Scheme s);
/// parse_scheme: accepts the names above and the letters A-D (either case).
[[nodiscard]] std::optional<Scheme> parse_scheme(std::string_view text);
/// parse_schemes: "all" (A-D), or a comma-separated list of what parse_scheme accepts, in the given order
/// without repeats ("A,C", "manual,static-manual"); nullopt if any item is unknown or the list is empty.
[[nodiscard]] std::optional<std::vector<Scheme>> parse_schemes(std::string_view list);

/// SpmdTier: target SPMD width m = 1, 2, 4, 8, unlimited (docs/design/reference-graphs.md).
enum class SpmdTier : std::uint8_t { NonSpmd = 0, Spmd2 = 1, Spmd4 = 2, Spmd8 = 3, AllSpmd = 4 };
inline constexpr SpmdTier kAllTiers[] = {SpmdTier::NonSpmd, SpmdTier::Spmd2, SpmdTier::Spmd4, SpmdTier::Spmd8,
                                         SpmdTier::AllSpmd};

/// to_string: "non-spmd", "spmd-2", "spmd-4", "spmd-8", "all-spmd" (CLI flags without "--", JSON `tier`).
[[nodiscard]] std::string_view to_string(SpmdTier t);
/// parse_tier: accepts the names above, with or without "--", and the digits 0-4.
[[nodiscard]] std::optional<SpmdTier> parse_tier(std::string_view text);
/// target_width: m of the tier (all-spmd: no limit).
[[nodiscard]] std::uint32_t target_width(SpmdTier t);

/// Launch: one kernel launch covering chunks [chunk_base, chunk_base + block_num).
struct Launch {
    std::uint32_t chunk_base;
    std::uint32_t block_num;
};

/// launches: the launch rule of docs/design/reference-graphs.md: w = min(m, n); for base = 0, w, 2w, ... < n:
/// launch(block_num = min(w, n - base), chunk_base = base).
[[nodiscard]] std::vector<Launch> launches(std::uint32_t chunks, SpmdTier tier);

/// VirtualAddressSpace: hands out distinct, aligned, never-dereferenced buffer addresses, so full-size
/// graphs (gigabytes of weights) can be built for the instant and timed executors without memory. The
/// addresses come from a reserved, inaccessible range: a kernel that touched one would fault at once.
class VirtualAddressSpace {
  public:
    explicit VirtualAddressSpace(std::uint64_t bytes = 1ull << 40);
    ~VirtualAddressSpace();
    VirtualAddressSpace(const VirtualAddressSpace&) = delete;
    VirtualAddressSpace& operator=(const VirtualAddressSpace&) = delete;

    /// reserve: a fresh address range of `bytes` (64-byte aligned). Throws std::bad_alloc when exhausted.
    [[nodiscard]] void* reserve(std::uint64_t bytes);

  private:
    void* base_;
    std::uint64_t size_;
    std::uint64_t used_ = 0;
};

}  // namespace pto::examples
