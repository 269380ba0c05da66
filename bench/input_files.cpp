// read_regular_file and is_same_file (input_files.h): POSIX open/fstat/read, so the type and size checked
// are those of the file actually read, not of whatever the path named a moment earlier.
#include "input_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace pto::bench {
namespace {

const char* type_name(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

std::string errno_text(int error) {
    if (error == ENOENT) return "no such file";
    return std::strerror(error);
}

/// Fd: closes the descriptor on every path out.
struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

FileText read_regular_file(const std::string& path, std::uint64_t max_bytes, const char* what) {
    FileText out;
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
    const Fd file{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
    if (file.fd < 0) {
        out.error = errno_text(errno);
        return out;
    }
    struct stat st {};
    if (::fstat(file.fd, &st) != 0) {
        out.error = errno_text(errno);
        return out;
    }
    if (!S_ISREG(st.st_mode)) {
        out.error = S_ISDIR(st.st_mode)
                        ? std::string("it is a directory")
                        : std::string("it is ") + type_name(st.st_mode) + ", not a regular file";
        return out;
    }
    const auto too_large = [&](std::uint64_t bytes, bool at_least) {
        out.text.clear();
        out.error = "it has " + std::string(at_least ? "more than " : "") + std::to_string(bytes) +
                    " bytes; " + what + " may have at most " + std::to_string(max_bytes);
        return out;
    };
    if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
        return too_large(static_cast<std::uint64_t>(st.st_size), false);
    try {
        out.text.resize(static_cast<std::size_t>(st.st_size));
        std::size_t length = 0;
        for (;;) {
            // Room for one byte past the cap tells a file that grew beyond it from one that fits exactly.
            if (length == out.text.size()) {
                if (length > max_bytes) return too_large(max_bytes, true);
                out.text.resize(std::min<std::uint64_t>(max_bytes + 1, length + 4096));
            }
            const ssize_t n = ::read(file.fd, out.text.data() + length, out.text.size() - length);
            if (n < 0) {
                if (errno == EINTR) continue;
                out.text.clear();
                out.error = "read error: " + errno_text(errno);
                return out;
            }
            if (n == 0) break;
            length += static_cast<std::size_t>(n);
        }
        if (length > max_bytes) return too_large(max_bytes, true);
        out.text.resize(length);
    } catch (const std::exception& e) {
        out.text.clear();
        out.error = std::string("cannot be read: ") + e.what();
    }
    return out;
}

bool is_same_file(const std::string& a, const std::string& b) {
    struct stat sa {};
    struct stat sb {};
    if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    try {
        std::error_code ea;
        std::error_code eb;
        const auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a, ea), ea);
        const auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b, eb), eb);
        if (ea || eb) return a == b;
        return ca == cb;
    } catch (const std::exception&) {
        return a == b;
    }
}

}  // namespace pto::bench
