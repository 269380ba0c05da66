// Cluster ownership and core numbering (docs/design/machine-model.md: cluster c belongs to scheduler thread c
// mod N).
#include "core_table.h"

namespace pto::detail {

std::vector<std::uint32_t> owned_clusters(const RuntimeConfig& config, std::uint32_t thread) {
    std::vector<std::uint32_t> clusters;
    for (std::uint32_t c = thread; c < config.cluster_count; c += config.scheduler_threads)
        clusters.push_back(c);
    return clusters;
}

std::uint32_t global_core_index(const RuntimeConfig& config, std::uint32_t cluster, std::uint32_t unit) {
    if (unit == 0) return cluster;
    return config.aic_count() + cluster * config.aiv_per_cluster + (unit - 1);
}

}  // namespace pto::detail
