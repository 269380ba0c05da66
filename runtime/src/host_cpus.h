// How many CPUs this process may run on, and from it how many scheduler threads may be awake at once: the
// policy that keeps a host with fewer cores than threads from spending its cores on wake-ups and spinning.
#pragma once

#include <cstdint>

#include "pto/runtime/config.h"

namespace pto::detail {

/// usable_cpus: the CPUs in the calling thread's affinity mask (threads it starts inherit it), or
/// std::thread::hardware_concurrency() where the mask cannot be read; at least 1.
[[nodiscard]] std::uint32_t usable_cpus();

/// schedulers_beside_orchestrator: one scheduler thread per CPU but the orchestrator's, at least one and
/// at most `scheduler_threads`: how many can spin without taking CPU time from each other or from the
/// orchestrator.
[[nodiscard]] std::uint32_t schedulers_beside_orchestrator(std::uint32_t scheduler_threads,
                                                           std::uint32_t cpus);

/// awake_scheduler_limit: how many scheduler threads a push of ready work keeps awake, given the CPUs the
/// process may use. With the instant executor a subtask ends as it is placed, so any awake scheduler can
/// place any block on its own clusters: one awake thread per CPU but the orchestrator's is enough (at
/// least one), and more only share CPUs with each other and with the orchestrator. With the timed and compute
/// executors a block can only go to a thread with an idle core, which may be a sleeping one, so every
/// scheduler may be woken (the limit is the thread count).
[[nodiscard]] std::uint32_t awake_scheduler_limit(Executor executor, std::uint32_t scheduler_threads,
                                                  std::uint32_t cpus);

}  // namespace pto::detail
