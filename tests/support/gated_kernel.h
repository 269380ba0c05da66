// gated_kernel: a compute kernel that runs until the flag given as its user pointer turns true, so a test
// can hold a task running (a consumer still reading) while it looks at what the runtime did meanwhile.
// Tests open the gate on every way out (an RAII guard), so a failed check never leaves a kernel spinning.
#pragma once

#include <atomic>
#include <initializer_list>
#include <thread>
#include <vector>

#include "pto/runtime/kernels.h"

namespace pto::test {

inline int gated_kernel(const KernelContext& ctx) {
    const auto& open = *static_cast<const std::atomic<bool>*>(ctx.user);
    while (!open.load())
        std::this_thread::yield();
    return 0;
}

/// OpenOnExit: opens the given gates when it goes out of scope, on every way out of a test's body.
class OpenOnExit {
  public:
    OpenOnExit(std::initializer_list<std::atomic<bool>*> gates) : gates_(gates) {}
    ~OpenOnExit() {
        for (std::atomic<bool>* gate : gates_)
            gate->store(true);
    }
    OpenOnExit(const OpenOnExit&) = delete;
    OpenOnExit& operator=(const OpenOnExit&) = delete;

  private:
    std::vector<std::atomic<bool>*> gates_;
};

}  // namespace pto::test
