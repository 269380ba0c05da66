// The progress line pto-bench draws on a terminal: done / total, elapsed time, an estimate of the time left
// and the scenario running, cut to the terminal's width so it never wraps (a wrapped line cannot be
// redrawn with \r and leaves one stale line per update).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace pto::bench {

/// format_progress: "[done/total 1:05 elapsed, ~2:10 left] what", at most `width - 1` characters (the last
/// column stays free: writing it makes some terminals wrap). No estimate before the first step is done.
[[nodiscard]] std::string format_progress(std::size_t done, std::size_t total, double elapsed_s,
                                          const std::string& what, std::size_t width);

/// terminal_width: the width of the terminal on `fd` (TIOCGWINSZ), else $COLUMNS, else 80.
[[nodiscard]] std::size_t terminal_width(int fd);

class Progress {
  public:
    /// Draws only when stderr is a terminal.
    explicit Progress(std::size_t total);
    void update(std::size_t done, const std::string& what);
    /// clear: erases the line (before other output and at the end).
    void clear();

  private:
    bool tty_;
    bool drawn_ = false;
    std::size_t total_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace pto::bench
