// CpuPin: keeps the calling thread on one CPU (the one it runs on, or one given) for the lifetime of the
// object; threads it starts meanwhile inherit the pin. The serial orchestration figures are measured with the
// orchestrating thread and the runtime's scheduler threads on that one CPU: otherwise, on this kind of
// machine (a 2-vCPU guest), a run's orchestration first pulls back every line the previous run's scheduling
// left in the other CPU's cache, and the figures land 1.4-2x apart from run to run depending on where the
// operating system put the schedulers. Threads started before the pin keep their affinity.
#pragma once

#include <optional>

namespace pto::bench {

class CpuPin {
  public:
    CpuPin();
    /// CpuPin(cpu): keeps the calling thread on `cpu` instead (cpu() is nothing if that fails).
    explicit CpuPin(int cpu);
    ~CpuPin();
    CpuPin(const CpuPin&) = delete;
    CpuPin& operator=(const CpuPin&) = delete;

    /// cpu: the CPU the thread is pinned to, or nothing if pinning failed (the figures are then unpinned).
    [[nodiscard]] std::optional<int> cpu() const { return cpu_; }

  private:
    /// pin: saves the thread's affinity, then keeps it on `cpu`.
    void pin(int cpu);

    std::optional<int> cpu_;
    bool restore_ = false;
    unsigned char saved_[128] = {};  // the thread's previous cpu_set_t (opaque here)
};

}  // namespace pto::bench
