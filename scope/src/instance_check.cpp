// The dependency checker's hook for static-template instances: each node is checked against its
// internal edges (offsets from the node) and its external producers, then recorded.
#include <string>
#include <vector>

#include "orchestrator_state.h"
#include "pto/scope/detail/dependency_check.h"

namespace pto::detail {

bool is_checking_dependencies() {
    const detail::OrchestratorState* s = current_state();
    return s != nullptr && s->checker != nullptr;
}

void check_instance(TaskId base, std::span<const InstanceNode> nodes, InstanceDescriber describe,
                    const void* context) {
    detail::OrchestratorState& s = require_state("instantiate");
    if (s.checker == nullptr) return;
    DependencyChecker& checker = *s.checker;
    const DependencyChecker::Mark mark = checker.mark();
    std::uint32_t missing = 0;
    std::vector<TaskId> producers;
    for (std::uint32_t k = 0; k < nodes.size(); ++k) {
        const InstanceNode& node = nodes[k];
        const TaskId id = base.plus(k);
        producers.clear();
        for (std::uint32_t d : node.producer_offsets)
            producers.push_back(TaskId{id.value - d});
        producers.insert(producers.end(), node.external_producers.begin(), node.external_producers.end());
        const std::string origin = describe(context, k) + " of the instance at task " +
                                   std::to_string(base.value) + ", " + s.describe_scope();
        missing += checker.check(id, node.spec, producers, producers, origin, true);
        checker.record(id, node.spec.tensors);
    }
    // The instance is submitted already (its ids are one reservation), so Error mode reports afterwards.
    if (missing != 0 && checker.mode() == DependencyCheck::Error) checker.throw_first_missing(mark);
}

}  // namespace pto::detail
