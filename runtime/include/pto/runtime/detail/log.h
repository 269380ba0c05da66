// The runtime's log, for the other pto libraries (not API). Cold paths only: never per task.
#pragma once

#include <string_view>

namespace pto::detail {

/// log_warning: one line on the "pto" logger at warning level (stderr; PTO_LOG_LEVEL filters it).
void log_warning(std::string_view message);

}  // namespace pto::detail
