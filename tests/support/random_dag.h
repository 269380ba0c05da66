// Random task graphs for property tests: random core types, block_num and fan-in, edges only to earlier
// tasks (mostly recent ones, so small windows still see live producers). Replayable from the seed.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <vector>

#include "pto/runtime/ids.h"
#include "pto/runtime/task_desc.h"
#include "pto/scope/orchestration.h"

namespace pto::test {

struct RandomNode {
    TaskKind kind = TaskKind::Kernel;
    CoreType core = CoreType::AIV;
    std::uint32_t block_num = 1;
    std::vector<std::uint32_t> deps;  // indices of earlier nodes
};

struct RandomDagOptions {
    std::uint32_t tasks = 200;
    std::uint32_t max_fanin = 4;
    std::uint32_t max_block_num = 6;
    std::uint32_t reach = 16;  // deps come from the previous `reach` nodes
    double dependency_only_share = 0.05;
    double mix_share = 0.15;
    /// Share of nodes that name exactly the producer list of the node before them (as graph code does
    /// for every launch of a stage after all of the previous one): such consumers may share a bundle.
    double repeat_share = 0.0;
};

inline std::vector<RandomNode> random_dag(std::uint64_t seed, const RandomDagOptions& o) {
    std::mt19937_64 rng(seed);
    std::vector<RandomNode> nodes(o.tasks);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (std::uint32_t i = 0; i < o.tasks; ++i) {
        RandomNode& n = nodes[i];
        const double r = unit(rng);
        if (r < o.dependency_only_share) {
            n.kind = TaskKind::DependencyOnly;
            n.core = CoreType::None;
        } else if (r < o.dependency_only_share + o.mix_share) {
            n.core = CoreType::MIX;
        } else {
            n.core = unit(rng) < 0.5 ? CoreType::AIC : CoreType::AIV;
        }
        n.block_num =
            n.kind == TaskKind::Kernel ? 1 + static_cast<std::uint32_t>(rng() % o.max_block_num) : 1;
        if (i == 0) continue;
        if (o.repeat_share > 0.0 && unit(rng) < o.repeat_share) {
            n.deps = nodes[i - 1].deps;
            continue;
        }
        const std::uint32_t fanin = static_cast<std::uint32_t>(rng() % (o.max_fanin + 1));
        for (std::uint32_t k = 0; k < fanin; ++k) {
            const std::uint32_t back = 1 + static_cast<std::uint32_t>(rng() % std::min(i, o.reach));
            n.deps.push_back(i - back);
        }
    }
    return nodes;
}

/// submit_random_dag: submits `nodes` with explicit dependencies. With scope_size 0, outside any scope (each
/// submit links at once); otherwise in MANUAL scopes of that many tasks (edges are staged and spliced when
/// each scope ends). Every kernel lane runs `kernel`. Returns the ids.
inline std::vector<TaskId> submit_random_dag(const std::vector<RandomNode>& nodes, FuncId kernel,
                                             std::uint32_t scope_size = 0) {
    std::vector<TaskId> ids(nodes.size());
    std::vector<TaskId> deps;
    std::unique_ptr<ScopeGuard> scope;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (scope_size != 0 && i % scope_size == 0) {
            scope.reset();
            scope = std::make_unique<ScopeGuard>(ScopeMode::Manual);
        }
        const RandomNode& n = nodes[i];
        deps.clear();
        for (std::uint32_t d : n.deps)
            deps.push_back(ids[d]);
        Args args;
        args.block_num(n.block_num).scalar(static_cast<std::uint64_t>(i)).set_dependencies(deps);
        if (n.kind == TaskKind::DependencyOnly)
            ids[i] = submit_dependency_only(args).task_id();
        else if (n.core == CoreType::MIX)
            ids[i] = submit_mix(kernel, kernel, kernel, args).task_id();
        else if (n.core == CoreType::AIC)
            ids[i] = submit_aic(kernel, args).task_id();
        else
            ids[i] = submit_aiv(kernel, args).task_id();
    }
    return ids;
}

/// stress_scale: multiplier for stress iteration counts (environment PTO_STRESS_SCALE, default 1).
inline std::uint32_t stress_scale() {
    const char* s = std::getenv("PTO_STRESS_SCALE");
    const long v = s != nullptr ? std::strtol(s, nullptr, 10) : 1;
    return v > 0 ? static_cast<std::uint32_t>(v) : 1;
}

}  // namespace pto::test
