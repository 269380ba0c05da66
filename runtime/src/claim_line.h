// claim_line: asks the CPU for a cache line in exclusive state ahead of the stores that will write it.
// The orchestrator rewrites task slots and edge nodes that the scheduler threads wrote or read last, so each
// of those lines first has to come back from another CPU's cache: 40-250 ns a line on the 2-vCPU guests of
// docs/benchmarks.md, as much as a whole submit. A store waits in the store buffer for its line, and the
// next locked instruction (a link CAS, the fence before the sleeper check) waits for every store before
// it, so the orchestrator paid those transfers one after another. Claimed a few tasks ahead, they overlap
// with the submits in between. A hint only: nothing depends on it for correctness.
#pragma once

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace pto::detail {

/// can_claim_lines: whether this CPU has a prefetch for writing. On x86-64 it is a CPUID feature (PRFCHW);
/// callers check once and skip claim_line without it.
inline bool can_claim_lines() {
#if defined(__x86_64__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __get_cpuid(0x80000001u, &a, &b, &c, &d) != 0 && (c & bit_PRFCHW) != 0;
#else
    return true;
#endif
}

/// claim_line: the prefetch for writing of the line holding `address` (only where can_claim_lines()).
inline void claim_line(const void* address) {
#if defined(__x86_64__)
    // Inline assembly, not __builtin_prefetch: without -mprfchw GCC turns a write prefetch into a read one,
    // which fetches the line shared and leaves the store to invalidate the other copy anyway.
    asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(address)));
#else
    __builtin_prefetch(address, 1, 3);
#endif
}

}  // namespace pto::detail
