// Creates the "pto" logger once, on first use.
#include "logging.h"

#include "pto/runtime/detail/log.h"

#include <cstdlib>
#include <string>

#include <spdlog/sinks/stdout_color_sinks.h>

namespace pto::detail {

spdlog::logger& logger() {
    static std::shared_ptr<spdlog::logger> instance = [] {
        auto existing = spdlog::get("pto");
        auto log = existing ? existing : spdlog::stderr_color_mt("pto");
        const char* level = std::getenv("PTO_LOG_LEVEL");
        log->set_level(level != nullptr ? spdlog::level::from_str(level) : spdlog::level::warn);
        return log;
    }();
    return *instance;
}

void log_warning(std::string_view message) {
    logger().warn("{}", message);
}

}  // namespace pto::detail
