// Scratch files for tests that run programs or write outputs: a directory per test name and process (so two
// ctest runs, from two build trees, never share one), running an executable into a file, reading it back.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace pto::test {

/// scratch_dir: <temp>/<name>-<pid>, created.
inline std::filesystem::path scratch_dir(const std::string& name) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir;
}

/// run_program: runs `exe arguments` with stdout and stderr to `out`; returns the exit status (-1 if killed).
inline int run_program(const std::string& exe, const std::string& arguments,
                       const std::filesystem::path& out) {
    const std::string command = exe + " " + arguments + " > " + out.string() + " 2>&1";
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// read_text: the whole file (empty if it cannot be read).
inline std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace pto::test
