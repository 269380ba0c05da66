// pto-bench-floor: the cost of the least an orchestrator of this design can do per task, measured on this
// machine, as the floor against which pto's orchestration figures are read (docs/benchmarks.md). One
// thread submits n tasks into a ring of 64-byte slots: write the descriptor, add the task to each
// producer's fanout list with a CAS (a producer may be completing concurrently), settle its fanin count with
// one atomic RMW, and push it to a lock-free ready queue when nothing is pending. Nothing else: no arguments
// ring, no validation, no scopes, no scheduler running alongside.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <vector>

#include <CLI/CLI.hpp>
#include <boost/lockfree/queue.hpp>

namespace {

constexpr std::uint32_t kWindow = 1u << 14;  // slots; more than any measured graph, so nothing retires
constexpr std::uint32_t kNoEdge = ~0u;

/// Slot: the hot per-task line of a PTO2-style runtime.
struct alignas(64) Slot {
    std::atomic<std::int32_t> fanin;
    std::atomic<std::uint32_t> fanout_head;  // index of the newest edge node, kNoEdge if none
    std::uint32_t func;
    std::uint32_t block_num;
    std::uint64_t task_id;
    std::uint64_t args[4];
};
static_assert(sizeof(Slot) == 64);

struct EdgeNode {
    std::uint32_t consumer;
    std::uint32_t next;
};

struct Floor {
    std::unique_ptr<Slot[]> slots{new Slot[kWindow]};
    std::vector<EdgeNode> edges = std::vector<EdgeNode>(kWindow * 4);
    boost::lockfree::queue<std::uint32_t, boost::lockfree::capacity<kWindow - 1>> ready;
    std::uint32_t edge_count = 0;

    void reset() {
        edge_count = 0;
        std::uint32_t drained;
        while (ready.pop(drained)) {
        }
    }

    /// submit: one task with `deps` producers (ids), as a PTO2-style orchestrator submits it.
    void submit(std::uint64_t id, const std::uint64_t* deps, std::uint32_t dep_count) {
        Slot& s = slots[id & (kWindow - 1)];
        s.func = 1;
        s.block_num = 1;
        s.task_id = id;
        s.args[0] = id;
        s.fanout_head.store(kNoEdge, std::memory_order_relaxed);
        s.fanin.store(static_cast<std::int32_t>(dep_count), std::memory_order_relaxed);
        for (std::uint32_t i = 0; i < dep_count; ++i) {
            Slot& producer = slots[deps[i] & (kWindow - 1)];
            const std::uint32_t node = edge_count++;
            edges[node].consumer = static_cast<std::uint32_t>(id & (kWindow - 1));
            // A scheduler may be completing the producer at the same moment, so the push is a CAS on its
            // fanout head (acq_rel: the completer that takes the list sees the node), as in the runtime.
            std::uint32_t head = producer.fanout_head.load(std::memory_order_relaxed);
            do {
                edges[node].next = head;
            } while (!producer.fanout_head.compare_exchange_weak(head, node, std::memory_order_acq_rel,
                                                                 std::memory_order_relaxed));
        }
        // Publication: one RMW subtracts the producers found complete while linking (none here, with no
        // scheduler running); whoever takes the count to zero makes the task ready.
        if (s.fanin.fetch_sub(0, std::memory_order_acq_rel) == 0)
            ready.push(static_cast<std::uint32_t>(id & (kWindow - 1)));
    }
};

double now_ns() {
    return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

/// run: ns per task of one graph of `tasks` tasks, each depending on the `fanin` tasks before it.
double run(Floor& f, std::uint32_t tasks, std::uint32_t fanin) {
    f.reset();
    std::uint64_t deps[8];
    const double start = now_ns();
    for (std::uint64_t id = 0; id < tasks; ++id) {
        const std::uint32_t n = static_cast<std::uint32_t>(std::min<std::uint64_t>(fanin, id));
        for (std::uint32_t d = 0; d < n; ++d)
            deps[d] = id - 1 - d;
        f.submit(id, deps, n);
    }
    return (now_ns() - start) / tasks;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "pto-bench-floor: ns per task of a minimal PTO2-style submit loop (ring slot, 64-byte "
        "descriptor, fan-in edges, ready push), a chain and three dependencies per task"};
    std::uint32_t tasks = 4096, reps = 200;
    app.add_option("--tasks", tasks, "tasks per graph (at most 16384)")->check(CLI::Range(1u, kWindow));
    app.add_option("--reps", reps, "measured repetitions after 10 warm-up runs")
        ->check(CLI::Range(1u, 100000u));
    CLI11_PARSE(app, argc, argv);

    auto floor = std::make_unique<Floor>();
    std::printf("%-22s %10s %10s\n", "graph", "median ns", "min ns");
    for (const std::uint32_t fanin : {1u, 3u}) {
        std::vector<double> samples;
        for (std::uint32_t r = 0; r < 10 + reps; ++r) {
            const double ns = run(*floor, tasks, fanin);
            if (r >= 10) samples.push_back(ns);
        }
        std::sort(samples.begin(), samples.end());
        std::printf("%-22s %10.1f %10.1f\n", fanin == 1 ? "chain (1 dependency)" : "3 dependencies",
                    samples[samples.size() / 2], samples.front());
    }
    return 0;
}
