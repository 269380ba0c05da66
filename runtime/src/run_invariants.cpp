// What must hold once a run has drained and retired, checked after every run in every build: every pool is
// empty again and every submitted task was counted exactly once. A violation is a bug in the runtime (a
// leaked slot, edge node, heap or argument byte, a task counted twice or never), and it would otherwise only
// show up runs later as a capacity error or a wrong report, far from its cause; so it stops the process at
// once with what was found. The checks are a handful of comparisons per run, nothing per task.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime_impl.h"

namespace pto {

void Runtime::Impl::check_drained(std::uint64_t counted) const {
    std::string broken;
    const auto expect = [&](bool holds, const char* what) {
        if (!holds) broken += std::string(broken.empty() ? "" : "; ") + what;
    };
    expect(window.all_retired(), "a task did not retire");
    expect(counted == window.submitted(), "completed + failed + cancelled != submitted");
    expect(engine.edges.free_nodes() == engine.edges.capacity(), "edge nodes are still in use");
    expect(heap.used_bytes() == 0, "heap bytes are still allocated");
    expect(engine.args.free_bytes() == engine.args.capacity(), "argument-ring bytes are still in use");
    expect(linker.is_drained(), "edges are still staged");
    expect(edge_table_holds.held() == 0, "template edge tables are still held");
    expect(engine.ready.all_empty(), "a ready queue is not empty");
    expect(!engine.ready.has_staged(), "ready tasks are still staged by the orchestrator");
    if (broken.empty()) [[likely]]
        return;
    std::fprintf(stderr,
                 "pto internal error: after the run of tasks %llu..%llu drained: %s. Please report this with "
                 "the program that triggered it.\n",
                 static_cast<unsigned long long>(window.run_first_id()),
                 static_cast<unsigned long long>(window.next_id()), broken.c_str());
    std::abort();
}

}  // namespace pto
