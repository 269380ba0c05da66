// How long the tests that provoke a stall let a run go without progress before the watchdog calls it one.
#pragma once

#include <cstdint>

namespace pto::test {

/// kSanitizerSlowdown: under ThreadSanitizer on a loaded two-core machine, a scheduler thread was seen held
/// in the middle of its pass, with a popped task in hand, for more than a second (never in Release builds).
/// The likely holder is TSan matching a race against tests/tsan.supp (the benign races inside
/// Boost.Lockfree and oneTBB), which symbolizes the stack and, the first time, loads the binary's debug
/// information. A one-second watchdog rightly reports that as a stall, so under TSan the tests wait five
/// times longer; elsewhere a second is plenty.
#if defined(__SANITIZE_THREAD__)
inline constexpr std::uint32_t kSanitizerSlowdown = 5;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr std::uint32_t kSanitizerSlowdown = 5;
#else
inline constexpr std::uint32_t kSanitizerSlowdown = 1;
#endif
#else
inline constexpr std::uint32_t kSanitizerSlowdown = 1;
#endif

/// kStallTimeoutMs: RuntimeConfig::stall_timeout_ms for tests whose runs must stall, or must not: long
/// enough that a thread starved by a loaded machine is not mistaken for a stall in the runs that must not
/// stall; every stall test waits about 1.25 to 2.5 of it.
inline constexpr std::uint32_t kStallTimeoutMs = 1000 * kSanitizerSlowdown;

}  // namespace pto::test
