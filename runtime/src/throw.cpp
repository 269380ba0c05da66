// Out-of-line throw and assertion helpers (see throw.h).
#include "pto/runtime/detail/throw.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace pto::detail {

void throw_error(ErrorCode code, std::string message) {
    throw Error(code, std::move(message));
}

void assert_failed(const char* cond, const char* msg, const char* file, int line) {
    std::fprintf(stderr, "pto internal error: %s (%s) at %s:%d\n", msg, cond, file, line);
    std::abort();
}

}  // namespace pto::detail
