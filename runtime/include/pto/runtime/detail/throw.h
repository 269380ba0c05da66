// Out-of-line throw helpers shared by every pto library (not API): hot paths call these so no message
// formatting is inlined (docs/contributing.md). PTO_ASSERT checks internal invariants in Debug and sanitizer
// builds.
#pragma once

#include <string>

#include "pto/runtime/error.h"

namespace pto::detail {

/// throw_error: throws Error{code, message}; [[noreturn]] and never inlined into callers.
[[noreturn]] void throw_error(ErrorCode code, std::string message);

/// check_not_reentrant: throws ReentrantCall naming `call` when the calling thread belongs to a runtime (a
/// scheduler thread, or a compute worker inside a kernel): task-level calls from there would wait on the
/// very run that is calling them. One thread-local load; every layer's entry points call it on their
/// cold path.
void check_not_reentrant(const char* call);

}  // namespace pto::detail

// PTO_ASSERT: internal invariants (our bugs, not misuse). On in Debug and sanitizer builds.
#if !defined(NDEBUG) || defined(PTO_ENABLE_ASSERTS)
#define PTO_ASSERT(cond, msg)                                             \
    do {                                                                  \
        if (!(cond)) [[unlikely]]                                         \
            ::pto::detail::assert_failed(#cond, msg, __FILE__, __LINE__); \
    } while (0)
namespace pto::detail {
[[noreturn]] void assert_failed(const char* cond, const char* msg, const char* file, int line);
}
#else
#define PTO_ASSERT(cond, msg) \
    do {                      \
    } while (0)
#endif
