// The two CPUs the machine probes (core_handoff.h, cpu_sharing.h, cpu_speed.h) measure between: the first
// two the calling thread may run on; which CPU it runs on; and pinning it to one CPU (the probes' threads,
// CpuPin).
#pragma once

#include <array>
#include <optional>

namespace pto::bench {

/// first_two_cpus: the first two CPUs of the calling thread's affinity mask; nothing with fewer than two.
[[nodiscard]] std::optional<std::array<int, 2>> first_two_cpus();

/// current_cpu: the CPU the calling thread runs on now; -1 if the system does not say.
[[nodiscard]] int current_cpu();

/// pin_to: pins the calling thread to `cpu` alone; false if the system refuses.
bool pin_to(int cpu);

}  // namespace pto::bench
