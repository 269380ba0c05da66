// CpuPin: keeps the calling thread on the CPU it runs on for the lifetime of the object. The serial
// orchestration figures are measured pinned: unpinned, a process on this kind of machine (a 2-vCPU guest)
// settles at a fast or a slow level 1.4-2x apart from one process to the next, depending on where the
// scheduler places and migrates it; pinned, repeated processes agree. The runtime's own threads, created
// before, keep their affinity.
#pragma once

#include <optional>

namespace pto::bench {

class CpuPin {
  public:
    CpuPin();
    ~CpuPin();
    CpuPin(const CpuPin&) = delete;
    CpuPin& operator=(const CpuPin&) = delete;

    /// cpu: the CPU the thread is pinned to, or nothing if pinning failed (the figures are then unpinned).
    [[nodiscard]] std::optional<int> cpu() const { return cpu_; }

  private:
    std::optional<int> cpu_;
    bool restore_ = false;
    unsigned char saved_[128] = {};  // the thread's previous cpu_set_t (opaque here)
};

}  // namespace pto::bench
