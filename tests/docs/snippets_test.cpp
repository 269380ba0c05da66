// Conformance of the docs: every C++ and CMake block in README.md and the docs this project
// compiles is a marked region of a source the build compiles (so the docs cannot drift from code that
// builds), and every relative link in them points at a file that exists.
//
// In a Markdown file, a code block is tied to its source by the line right above its opening fence:
//     <!-- snippet: examples/tutorial/graph_dynamic.cpp#manual -->
// In the source, the region is the lines between one containing `[snippet:manual]` and the matching one
// containing `[/snippet]` (regions may nest; marker lines are left out), minus their common indentation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kRoot = PTO_SOURCE_DIR;

/// The Markdown files whose code blocks must all be compiled snippets. The older notes (docs/design/,
/// graphs.md, base-data.md) quote pseudo-code and command lines and are not checked.
const char* const kCheckedDocs[] = {"README.md", "docs/architecture.md", "docs/api.md", "docs/tutorial.md",
                                    "docs/bench.md"};

/// The fence languages that must be snippets: code the build compiles or configures.
const char* const kCompiledLanguages[] = {"cpp", "c++", "cmake"};

std::vector<std::string> read_lines(const fs::path& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line))
        lines.push_back(line);
    return lines;
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    const auto e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

std::string join(const std::vector<std::string>& lines) {
    std::string out;
    for (const std::string& l : lines)
        out += l + "\n";
    return out;
}

/// Region: a snippet's lines (dedented), or an error saying why there is none.
struct Region {
    std::vector<std::string> lines;
    std::string error;
};

Region extract_region(const fs::path& source, const std::string& name) {
    Region r;
    if (!fs::exists(source)) {
        r.error = "no file " + source.string();
        return r;
    }
    const std::vector<std::string> lines = read_lines(source);
    const std::string open = "[snippet:" + name + "]";
    std::size_t i = 0;
    while (i < lines.size() && lines[i].find(open) == std::string::npos)
        ++i;
    if (i == lines.size()) {
        r.error = "no line containing " + open + " in " + source.string();
        return r;
    }
    int depth = 1;
    for (++i; i < lines.size(); ++i) {
        if (lines[i].find("[/snippet]") != std::string::npos) {
            if (--depth == 0) break;
            continue;
        }
        if (lines[i].find("[snippet:") != std::string::npos) {
            ++depth;
            continue;
        }
        r.lines.push_back(lines[i]);
    }
    if (depth != 0) {
        r.error = open + " in " + source.string() + " is never closed by [/snippet]";
        return r;
    }
    std::size_t indent = std::string::npos;
    for (const std::string& l : r.lines)
        if (!trim(l).empty()) indent = std::min(indent, l.find_first_not_of(' '));
    for (std::string& l : r.lines)
        l = trim(l).empty() ? "" : l.substr(indent);
    return r;
}

/// Block: one fenced code block of a Markdown file.
struct Block {
    std::size_t line = 0;  ///< 1-based line of the opening fence
    std::string language;
    std::string marker;  ///< "path#name" from the comment above the fence, or empty
    std::vector<std::string> lines;
};

std::vector<Block> fenced_blocks(const std::vector<std::string>& md) {
    std::vector<Block> blocks;
    for (std::size_t i = 0; i < md.size(); ++i) {
        const std::string t = trim(md[i]);
        if (t.rfind("```", 0) != 0) continue;
        Block b;
        b.line = i + 1;
        b.language = t.substr(3);
        if (i > 0) {
            const std::string above = trim(md[i - 1]);
            const std::string prefix = "<!-- snippet:";
            if (above.rfind(prefix, 0) == 0 && above.size() > prefix.size() + 4)
                b.marker = trim(above.substr(prefix.size(), above.size() - prefix.size() - 3));
        }
        for (++i; i < md.size() && trim(md[i]).rfind("```", 0) != 0; ++i)
            b.lines.push_back(md[i]);
        blocks.push_back(b);
    }
    return blocks;
}

bool is_compiled_language(const std::string& language) {
    return std::find(std::begin(kCompiledLanguages), std::end(kCompiledLanguages), language) !=
           std::end(kCompiledLanguages);
}

}  // namespace

TEST_CASE("every C++ and CMake block in the docs is a marked region of a compiled source", "[docs]") {
    std::size_t checked = 0;
    for (const char* doc : kCheckedDocs) {
        const fs::path path = kRoot / doc;
        INFO(doc);
        REQUIRE(fs::exists(path));
        for (const Block& block : fenced_blocks(read_lines(path))) {
            INFO(doc << ":" << block.line << " (```" << block.language << ")");
            if (block.marker.empty()) {
                CHECK_FALSE(is_compiled_language(block.language));
                continue;
            }
            const auto hash = block.marker.find('#');
            REQUIRE(hash != std::string::npos);
            const Region region =
                extract_region(kRoot / block.marker.substr(0, hash), block.marker.substr(hash + 1));
            INFO(region.error);
            REQUIRE(region.error.empty());
            CHECK(join(block.lines) == join(region.lines));
            ++checked;
        }
    }
    CHECK(checked > 0);
}

TEST_CASE("relative links in README and the docs point to files that exist", "[docs]") {
    for (const char* doc : kCheckedDocs) {
        const fs::path path = kRoot / doc;
        const std::vector<std::string> lines = read_lines(path);
        bool in_code = false;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            if (trim(lines[i]).rfind("```", 0) == 0) in_code = !in_code;
            if (in_code) continue;
            const std::string& l = lines[i];
            for (std::size_t at = l.find("]("); at != std::string::npos; at = l.find("](", at + 2)) {
                const auto end = l.find(')', at + 2);
                if (end == std::string::npos) break;
                std::string target = l.substr(at + 2, end - at - 2);
                if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
                target = target.substr(0, target.find('#'));
                if (target.empty()) continue;  // a link within the same file
                INFO(doc << ":" << i + 1 << " links to " << target);
                CHECK(fs::exists(path.parent_path() / target));
            }
        }
    }
}
