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

TEST_CASE("a run of buffers lies where buffer-by-buffer allocation would put them, or is refused",
          "[runtime][heap]") {
    HeapRing by_buffer(1024);
    HeapRing by_run(1024);
    REQUIRE(by_buffer.try_allocate(128) != nullptr);
    auto* start = static_cast<std::byte*>(by_run.try_allocate(128));
    REQUIRE(start != nullptr);
    auto* a = static_cast<std::byte*>(by_buffer.try_allocate(64));
    REQUIRE(by_buffer.try_allocate(192) != nullptr);
    std::byte* run = by_run.try_allocate_run(256);
    REQUIRE(run != nullptr);
    CHECK(run - by_run.try_allocate_run(0) == -256);  // the head moved past the whole run
    CHECK(run - static_cast<std::byte*>(by_run.try_allocate(1)) ==
          a - static_cast<std::byte*>(by_buffer.try_allocate(1)));
    CHECK(by_run.head() == by_buffer.head());

    // A run that would reach past the ring's end is refused without moving anything (the caller then
    // allocates buffer by buffer, which skips the tail); so is one larger than the free room.
    const std::uint64_t head = by_run.head();
    CHECK(by_run.try_allocate_run(1024 - 448 + 64) == nullptr);
    CHECK(by_run.head() == head);
    by_run.release_until(head);
    CHECK(by_run.try_allocate_run(576) != nullptr);  // exactly up to the end
    CHECK(by_run.try_allocate_run(64) == start);     // the next run starts at the beginning
    CHECK(by_run.try_allocate_run(384) != nullptr);  // up to the oldest live byte
    CHECK(by_run.try_allocate_run(64) == nullptr);   // full
}
