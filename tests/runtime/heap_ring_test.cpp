// docs/architecture.md, white-box: the heap ring carves aligned buffers in order, never splits one across the
// wrap, and refuses what does not fit until older buffers are released.
#include <catch2/catch.hpp>

#include <cstdint>

#include "heap_ring.h"

using pto::detail::HeapRing;

TEST_CASE("heap buffers are cache-line aligned and freed in order", "[runtime][heap]") {
    HeapRing heap(4096);
    void* a = heap.try_allocate(100);
    void* b = heap.try_allocate(1);
    REQUIRE(a != nullptr);
    REQUIRE(b != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(a) % 64 == 0);
    CHECK(static_cast<char*>(b) - static_cast<char*>(a) == 128);
    CHECK(heap.used_bytes() == 192);
    const std::uint64_t mark = heap.head();
    heap.release_until(mark);
    CHECK(heap.used_bytes() == 0);
}

TEST_CASE("a buffer that would straddle the wrap starts at the beginning instead", "[runtime][heap]") {
    HeapRing heap(1024);
    void* first = heap.try_allocate(768);
    REQUIRE(first != nullptr);
    heap.release_until(heap.head());        // the first buffer's task retired
    void* second = heap.try_allocate(512);  // 256 bytes left at the end: skipped
    REQUIRE(second != nullptr);
    CHECK(second == first);
    CHECK(heap.try_allocate(1024) == nullptr);  // only 512 free
}

TEST_CASE("a full heap refuses until the oldest buffer is released", "[runtime][heap]") {
    HeapRing heap(1024);
    REQUIRE(heap.try_allocate(512) != nullptr);
    const std::uint64_t after_first = heap.head();
    REQUIRE(heap.try_allocate(512) != nullptr);
    CHECK(heap.try_allocate(64) == nullptr);
    heap.release_until(after_first);
    CHECK(heap.try_allocate(64) != nullptr);
}
