// The files pto-bench writes: checked before anything is measured (so a typo costs seconds, not a sweep),
// written through a temporary file and a rename (so a reader never sees half a file), and announced.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace pto::bench {

/// OutputRequest: one file the command line asks for, with the option that named it.
struct OutputRequest {
    std::string option;  ///< e.g. "--json"
    std::string path;
};

/// why_unwritable: empty if a file can be created at `path` (its directory exists and is writable and the
/// path is not a directory), else the reason, e.g. "directory /nonexistent does not exist".
[[nodiscard]] std::string why_unwritable(const std::string& path);

/// check_outputs: one message "cannot write <option> <path>: <reason>" per request that cannot be written.
[[nodiscard]] std::vector<std::string> check_outputs(const std::vector<OutputRequest>& requests);

/// write_atomically: writes `write`'s output to `<path>.tmp-<pid>` and renames it over `path`. A path that
/// exists and is not a regular file (a device such as /dev/null, a pipe, a symbolic link) is written in
/// place instead: renaming over it would replace the device or the link. Returns an empty string on
/// success, else the reason (the temporary file is removed).
[[nodiscard]] std::string write_atomically(const std::string& path,
                                           const std::function<void(std::ostream&)>& write);

}  // namespace pto::bench
