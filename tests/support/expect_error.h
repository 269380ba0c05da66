// expect_error: the one check of a misuse (docs/reliability.md): the call throws pto::Error with the expected
// code and a message containing every given part (the task, slot, node or knob it must name).
#pragma once

#include <catch2/catch.hpp>

#include <initializer_list>
#include <string>

#include "pto/runtime/error.h"

namespace pto::test {

template <class Fn>
void expect_error(Fn&& fn, ErrorCode code, std::initializer_list<std::string> parts) {
    try {
        fn();
        FAIL("no pto::Error thrown; expected " << to_string(code));
    } catch (const Error& e) {
        INFO(e.what());
        CHECK(e.code() == code);
        for (const std::string& p : parts)
            CHECK(std::string(e.message()).find(p) != std::string::npos);
    }
}

}  // namespace pto::test
