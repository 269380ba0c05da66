// docs/contributing.md, conformance of the public headers: they include only the standard library and other
// pto headers (never Boost, oneTBB, spdlog or nlohmann-json, which are private dependencies), so an embedder
// needs nothing but the installed package. That each also compiles on its own is checked by the build:
// tests/docs/CMakeLists.txt compiles one generated translation unit per header into this executable.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = PTO_SOURCE_DIR;
const char* const kPublicIncludeDirs[] = {"runtime/include",      "tensormap/include", "scope/include",
                                          "static_graph/include", "examples/include",  "bench/include"};

std::vector<fs::path> public_headers() {
    std::vector<fs::path> out;
    for (const char* dir : kPublicIncludeDirs) {
        if (!fs::exists(kRoot / dir)) continue;
        for (const auto& entry : fs::recursive_directory_iterator(kRoot / dir))
            if (entry.is_regular_file() && entry.path().extension() == ".h") out.push_back(entry.path());
    }
    return out;
}

/// is_allowed_include: "pto/..." in either form, or a standard header (<name>: no directory, no extension).
bool is_allowed_include(const std::string& target, char open) {
    if (target.rfind("pto/", 0) == 0) return true;
    return open == '<' && target.find('/') == std::string::npos && target.find('.') == std::string::npos;
}

}  // namespace

TEST_CASE("public headers include only the standard library and other pto headers", "[docs][headers]") {
    const std::vector<fs::path> headers = public_headers();
    REQUIRE(headers.size() >= 10);
    for (const fs::path& header : headers) {
        std::ifstream in(header);
        std::string line;
        bool has_pragma_once = false;
        while (std::getline(in, line)) {
            if (line.rfind("#pragma once", 0) == 0) has_pragma_once = true;
            const auto at = line.find("#include");
            if (at != 0) continue;
            const auto open = line.find_first_of("<\"", at);
            REQUIRE(open != std::string::npos);
            const auto close = line.find_first_of(">\"", open + 1);
            const std::string target = line.substr(open + 1, close - open - 1);
            INFO(header.string() << " includes " << target);
            CHECK(is_allowed_include(target, line[open]));
        }
        INFO(header.string());
        CHECK(has_pragma_once);
    }
}
