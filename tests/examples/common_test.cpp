// docs/design/reference-graphs.md, conformance: the SPMD launch rule and the scheme / tier vocabulary shared
// by graphs and bench.
#include <catch2/catch.hpp>

#include <vector>

#include "pto/examples/common.h"

using namespace pto::examples;

TEST_CASE("the launch rule splits n chunks into launches of min(m, n) with a smaller tail",
          "[examples][spmd]") {
    auto l = launches(34, SpmdTier::Spmd8);
    REQUIRE(l.size() == 5);
    CHECK(l[0].chunk_base == 0);
    CHECK(l[0].block_num == 8);
    CHECK(l[4].chunk_base == 32);
    CHECK(l[4].block_num == 2);
    CHECK(launches(4, SpmdTier::AllSpmd).size() == 1);
    CHECK(launches(4, SpmdTier::Spmd8).size() == 1);
    CHECK(launches(4, SpmdTier::Spmd8)[0].block_num == 4);
    CHECK(launches(20, SpmdTier::NonSpmd).size() == 20);
    CHECK(launches(1, SpmdTier::Spmd2).size() == 1);
}

TEST_CASE("schemes and tiers parse from names, letters and flags", "[examples][names]") {
    CHECK(parse_scheme("B") == Scheme::Tensormap);
    CHECK(parse_scheme("c") == Scheme::StaticManual);
    CHECK(parse_scheme("static-tensormap") == Scheme::StaticTensormap);
    CHECK_FALSE(parse_scheme("E").has_value());
    CHECK(parse_tier("--spmd-4") == SpmdTier::Spmd4);
    CHECK(parse_tier("4") == SpmdTier::AllSpmd);
    CHECK(parse_tier("non-spmd") == SpmdTier::NonSpmd);
    CHECK_FALSE(parse_tier("spmd-3").has_value());
    CHECK(to_string(SpmdTier::AllSpmd) == "all-spmd");
    CHECK(letter(Scheme::StaticManual) == 'C');
}

TEST_CASE("scheme lists parse in order without repeats, and reject any unknown item", "[examples][names]") {
    using List = std::vector<Scheme>;
    CHECK(parse_schemes("all") ==
          List{Scheme::Manual, Scheme::Tensormap, Scheme::StaticManual, Scheme::StaticTensormap});
    CHECK(parse_schemes("C") == List{Scheme::StaticManual});
    CHECK(parse_schemes("D,a") == List{Scheme::StaticTensormap, Scheme::Manual});
    CHECK(parse_schemes("manual,A,static-manual") == List{Scheme::Manual, Scheme::StaticManual});
    for (const char* bad : {"", "A,", ",A", "A,E", "A;B", "all,A"}) {
        INFO(bad);
        CHECK_FALSE(parse_schemes(bad).has_value());
    }
}

TEST_CASE("virtual address ranges are distinct and aligned", "[examples][memory]") {
    VirtualAddressSpace space(1ull << 30);
    void* a = space.reserve(100);
    void* b = space.reserve(1);
    CHECK(a != b);
    CHECK(reinterpret_cast<std::uintptr_t>(b) % 64 == 0);
    CHECK(static_cast<char*>(b) - static_cast<char*>(a) == 128);
}
