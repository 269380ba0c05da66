// Progress line (see progress.h).
#include "progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace pto::bench {
namespace {

std::string clock_text(double seconds) {
    const long s = seconds < 0 ? 0 : static_cast<long>(seconds + 0.5);
    char buffer[32];
    if (s >= 3600)
        std::snprintf(buffer, sizeof buffer, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else
        std::snprintf(buffer, sizeof buffer, "%ld:%02ld", s / 60, s % 60);
    return buffer;
}

}  // namespace

std::string format_progress(std::size_t done, std::size_t total, double elapsed_s, const std::string& what,
                            std::size_t width) {
    std::string line =
        "[" + std::to_string(done) + "/" + std::to_string(total) + " " + clock_text(elapsed_s) + " elapsed";
    if (done > 0 && done < total)
        line += ", ~" +
                clock_text(elapsed_s / static_cast<double>(done) * static_cast<double>(total - done)) +
                " left";
    line += "] " + what;
    const std::size_t room = width > 1 ? width - 1 : 0;
    if (line.size() > room) line.resize(room);
    return line;
}

std::size_t terminal_width(int fd) {
    winsize size{};
    if (ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    if (const char* columns = std::getenv("COLUMNS")) {
        const long n = std::strtol(columns, nullptr, 10);
        if (n > 0) return static_cast<std::size_t>(n);
    }
    return 80;
}

Progress::Progress(std::size_t total)
    : tty_(isatty(STDERR_FILENO) != 0), total_(total), start_(std::chrono::steady_clock::now()) {}

void Progress::update(std::size_t done, const std::string& what) {
    if (!tty_) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    // Width read at every update: the terminal may have been resized.
    const std::string line = format_progress(done, total_, elapsed, what, terminal_width(STDERR_FILENO));
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    drawn_ = true;
}

void Progress::clear() {
    if (!tty_ || !drawn_) return;
    std::fprintf(stderr, "\r\033[K");
    std::fflush(stderr);
    drawn_ = false;
}

}  // namespace pto::bench
