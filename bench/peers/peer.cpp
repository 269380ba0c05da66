// The peer-independent parts of peer.h: peer names and the PeerProbe test hook.
#include "peer.h"

namespace pto::bench {

std::string_view to_string(Peer peer) noexcept {
    switch (peer) {
        case Peer::TbbFlowGraph:
            return "tbb_flow_graph";
        case Peer::OmpDepend:
            return "omp_depend";
    }
    return "?";
}

PeerProbe::PeerProbe(std::size_t tasks)
    : size_(tasks),
      start_(std::make_unique<std::atomic<std::uint64_t>[]>(tasks)),
      end_(std::make_unique<std::atomic<std::uint64_t>[]>(tasks)),
      runs_(std::make_unique<std::atomic<std::uint32_t>[]>(tasks)) {
    clear();
}

void PeerProbe::clear() noexcept {
    sequence_.store(0, std::memory_order_relaxed);
    for (std::size_t i = 0; i < size_; ++i) {
        start_[i].store(0, std::memory_order_relaxed);
        end_[i].store(0, std::memory_order_relaxed);
        runs_[i].store(0, std::memory_order_relaxed);
    }
}

}  // namespace pto::bench
