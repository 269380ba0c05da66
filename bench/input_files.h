// Reading files named on pto-bench's command line without trusting them: regular files only, with a size
// cap, never blocking on a FIFO or a device; and telling whether two option values name one file.
#pragma once

#include <cstdint>
#include <string>

namespace pto::bench {

/// kMaxBaselineBytes: the largest --base-data file pto-bench reads (real baselines are a few KiB; a cap
/// keeps a wrong path such as a disk image from taking gigabytes of memory).
inline constexpr std::uint64_t kMaxBaselineBytes = 16ull << 20;

/// FileText: a file's contents, or why it could not be read (`error` non-empty; `text` then empty).
struct FileText {
    std::string text;
    std::string error;
};

/// read_regular_file: the whole of `path` if it is a regular file of at most `max_bytes` bytes. Opens
/// without blocking (a FIFO without writer, a terminal), checks the opened file's type and size (fstat), and
/// stops reading past the cap if the file grows meanwhile. Errors read like "no such file", "it is a
/// directory", "it is a FIFO, not a regular file", "it has 104857600 bytes; <what> may have at most
/// 16777216". Never throws.
FileText read_regular_file(const std::string& path, std::uint64_t max_bytes, const char* what);

/// is_same_file: whether `a` and `b` name one file: the same device and inode when both exist, otherwise
/// the same absolute, normalised path with symbolic links resolved as far as they exist. Never throws.
bool is_same_file(const std::string& a, const std::string& b);

}  // namespace pto::bench
