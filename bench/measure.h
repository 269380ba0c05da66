// The measurement protocol of pto-bench (docs/contributing.md): warm-up, repeated samples, median / min /
// max, peak RSS, and the machine description every report carries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pto::bench {

/// Summary: the spread of a sample set: min, P10, median, P90, max. The median of an even count is the mean
/// of the two middle values; P10 and P90 are the sorted samples at index round(p x (n - 1)).
struct Summary {
    double median = 0.0;
    double min = 0.0;
    double max = 0.0;
    double p10 = 0.0;
    double p90 = 0.0;
    std::size_t samples = 0;

    [[nodiscard]] nlohmann::json to_json() const {
        return {{"median", median}, {"min", min}, {"p10", p10},
                {"p90", p90},       {"max", max}, {"samples", samples}};
    }
};

[[nodiscard]] Summary summarize(std::vector<double> samples);

/// peak_rss_bytes: the process's peak resident set size so far (getrusage).
[[nodiscard]] std::uint64_t peak_rss_bytes();

/// machine_description: CPU model, vendor, platform, cores, compiler, flags, git SHA, date and the measured
/// cost of one uncontended locked read-modify-write (`locked_rmw_ns`), as the report's `machine` object.
[[nodiscard]] nlohmann::json machine_description();

/// Checksum: defeats dead-code elimination of measured work: fold values in, print the result.
class Checksum {
  public:
    void add(std::uint64_t v) { value_ = (value_ ^ v) * 0x100000001B3ull; }
    [[nodiscard]] std::uint64_t value() const { return value_; }

  private:
    std::uint64_t value_ = 0xcbf29ce484222325ull;
};

}  // namespace pto::bench
