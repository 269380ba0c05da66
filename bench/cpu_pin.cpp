// CpuPin (cpu_pin.h) on Linux: sched_getcpu and pthread affinity of the calling thread.
#include "cpu_pin.h"

#include <pthread.h>
#include <sched.h>

#include <cstring>

#include "cpu_pair.h"

namespace pto::bench {

static_assert(sizeof(cpu_set_t) <= 128, "CpuPin::saved_ holds a cpu_set_t");

CpuPin::CpuPin() {
    const int here = current_cpu();
    if (here >= 0) pin(here);
}

CpuPin::CpuPin(int cpu) {
    pin(cpu);
}

void CpuPin::pin(int cpu) {
    cpu_set_t previous;
    if (pthread_getaffinity_np(pthread_self(), sizeof previous, &previous) != 0) return;
    if (!pin_to(cpu)) return;
    std::memcpy(saved_, &previous, sizeof previous);
    restore_ = true;
    cpu_ = cpu;
}

CpuPin::~CpuPin() {
    if (!restore_) return;
    cpu_set_t previous;
    std::memcpy(&previous, saved_, sizeof previous);
    pthread_setaffinity_np(pthread_self(), sizeof previous, &previous);
}

}  // namespace pto::bench
