// Catch2 printers for pto value types, so failed checks show ids instead of {?}.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "pto/runtime/ids.h"

namespace Catch {
template <>
struct StringMaker<pto::TaskId> {
    static std::string convert(pto::TaskId id) {
        return id.is_valid() ? "task " + std::to_string(id.value) : std::string("invalid task");
    }
};
}  // namespace Catch
