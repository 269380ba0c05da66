// The runtime's spdlog logger ("pto"), writing to stderr at the level named by the environment variable
// PTO_LOG_LEVEL (trace, debug, info, warn, error, critical, off; default warn). Never used per task.
#pragma once

#include <spdlog/spdlog.h>

namespace pto::detail {

[[nodiscard]] spdlog::logger& logger();

}  // namespace pto::detail
