// Core-to-core hand-off (core_handoff.h): two threads pinned to the probes' CPU pair (cpu_pair.h).
#include "core_handoff.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include "cpu_pair.h"

namespace pto::bench {
namespace {

constexpr int kRoundTrips = 20000;
constexpr int kTrials = 5;
/// A trial ends after this long even if its round trips are not done: on a loaded machine the partner's CPU
/// may be busy with another process for whole time slices, and the probe must stay short.
constexpr auto kTrialLimit = std::chrono::milliseconds(20);
constexpr int kClockEvery = 64;                     // round trips between reads of the clock
constexpr std::uint32_t kSpinsPerClockRead = 4096;  // polls of a pass that has not come back

/// round_trip_ns: the mean round trip of a cache line passed from the caller (pinned to `first`) to a thread
/// pinned to `second` and back, over kRoundTrips passes or kTrialLimit, whichever ends first; nothing if
/// either pin fails. Odd values go out, even values come back, so each side waits only for the other's
/// last store.
std::optional<double> round_trip_ns(int first, int second) {
    alignas(128) std::atomic<int> ball{0};
    std::atomic<bool> ready{false};
    std::atomic<bool> stop{false};
    std::thread partner([&] {
        if (!pin_to(second)) {
            stop.store(true);
            return;
        }
        ready.store(true);
        for (int i = 0; i < kRoundTrips; ++i) {
            while (ball.load(std::memory_order_acquire) != 2 * i + 1)
                if (stop.load(std::memory_order_relaxed)) return;
            ball.store(2 * i + 2, std::memory_order_release);
        }
    });
    while (!ready.load() && !stop.load())
        std::this_thread::yield();
    if (stop.load() || !pin_to(first)) {
        stop.store(true);
        partner.join();
        return std::nullopt;
    }
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + kTrialLimit;
    const auto past_deadline = [&] { return std::chrono::steady_clock::now() > deadline; };
    // The clock is read while a pass is out too: under valgrind, or with the partner's CPU taken, one pass
    // can take a time slice or more.
    const auto came_back = [&](int value) {
        for (std::uint32_t spins = 1; ball.load(std::memory_order_acquire) != value; ++spins)
            if (spins % kSpinsPerClockRead == 0 && past_deadline()) return false;
        return true;
    };
    int done = 0;
    while (done < kRoundTrips) {
        if (done % kClockEvery == 0 && past_deadline()) break;
        ball.store(2 * done + 1, std::memory_order_release);
        if (!came_back(2 * done + 2)) break;
        ++done;
    }
    const auto end = std::chrono::steady_clock::now();
    stop.store(true);
    partner.join();
    if (done == 0) return std::nullopt;
    return std::chrono::duration<double, std::nano>(end - start).count() / done;
}

}  // namespace

std::optional<CoreHandoff> measure_core_handoff() {
    const std::optional<std::array<int, 2>> pair = first_two_cpus();
    if (!pair) return std::nullopt;
    const std::array<int, 2> cpus = *pair;

    // Measured on a thread of its own, so the caller's affinity is never changed.
    std::optional<CoreHandoff> result;
    std::thread measurer([&] {
        // A trial with no pass back in time (the other CPU busy with another process) is left out.
        std::vector<double> trials;
        for (int t = 0; t < kTrials; ++t)
            if (const std::optional<double> ns = round_trip_ns(cpus[0], cpus[1])) trials.push_back(*ns);
        if (trials.empty()) return;
        std::sort(trials.begin(), trials.end());
        result = CoreHandoff{cpus[0], cpus[1], trials[trials.size() / 2] / 2.0};
    });
    measurer.join();
    return result;
}

nlohmann::json core_handoff_json(const std::optional<CoreHandoff>& before,
                                 const std::optional<CoreHandoff>& after) {
    if (!before || !after) return nullptr;
    return {{"cpus", {before->first, before->second}}, {"before", before->ns}, {"after", after->ns}};
}

void print_core_handoff(std::ostream& out, const nlohmann::json& core_to_core_ns) {
    if (!core_to_core_ns.is_object()) return;
    char line[192];
    std::snprintf(line, sizeof line,
                  "cache line between CPUs %d and %d: %.0f ns before the sweep, %.0f ns after (end-to-end "
                  "figures move with it)\n",
                  core_to_core_ns.at("cpus").at(0).get<int>(), core_to_core_ns.at("cpus").at(1).get<int>(),
                  core_to_core_ns.at("before").get<double>(), core_to_core_ns.at("after").get<double>());
    out << line;
}

}  // namespace pto::bench
