// Output path checks and atomic writes (see output_paths.h).
#include "output_paths.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace pto::bench {

std::string why_unwritable(const std::string& path) {
    namespace fs = std::filesystem;
    if (path.empty()) return "the path is empty";
    std::error_code ec;
    const fs::path p(path);
    if (fs::is_directory(p, ec)) return "it is a directory";
    fs::path dir = p.parent_path();
    if (dir.empty()) dir = ".";
    if (!fs::exists(dir, ec)) return "directory " + dir.string() + " does not exist";
    if (!fs::is_directory(dir, ec)) return dir.string() + " is not a directory";
    if (access(dir.c_str(), W_OK) != 0)
        return "directory " + dir.string() + " is not writable (" + std::strerror(errno) + ")";
    if (fs::exists(p, ec) && access(p.c_str(), W_OK) != 0)
        return "the file exists and is not writable (" + std::string(std::strerror(errno)) + ")";
    return {};
}

std::vector<std::string> check_outputs(const std::vector<OutputRequest>& requests) {
    std::vector<std::string> problems;
    for (const OutputRequest& r : requests) {
        if (r.path.empty()) continue;
        const std::string reason = why_unwritable(r.path);
        if (!reason.empty()) problems.push_back("cannot write " + r.option + " " + r.path + ": " + reason);
    }
    return problems;
}

namespace {

/// write_in_place: for paths that must not be replaced by a rename: devices (/dev/null, /dev/stdout),
/// pipes, and symbolic links (the link stays, its target is written).
std::string write_in_place(const std::string& path, const std::function<void(std::ostream&)>& write) {
    std::ofstream out(path);
    if (!out) return "cannot open " + path + ": " + std::strerror(errno);
    try {
        write(out);
    } catch (const std::exception& e) {
        return e.what();
    }
    out.flush();
    return out ? std::string() : "write error on " + path;
}

}  // namespace

std::string write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
    std::error_code ec;
    const auto status = std::filesystem::symlink_status(path, ec);
    if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
        return write_in_place(path, write);
    const std::string temporary = path + ".tmp-" + std::to_string(getpid());
    {
        std::ofstream out(temporary);
        if (!out) return "cannot create " + temporary + ": " + std::strerror(errno);
        try {
            write(out);
        } catch (const std::exception& e) {
            out.close();
            std::remove(temporary.c_str());
            return e.what();
        }
        out.flush();
        if (!out) {
            std::remove(temporary.c_str());
            return "write error on " + temporary;
        }
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const std::string reason = std::strerror(errno);
        std::remove(temporary.c_str());
        return "cannot rename " + temporary + " to " + path + ": " + reason;
    }
    return {};
}

}  // namespace pto::bench
