// Random template bodies for the equivalence tests: a random DAG of kernel and dependency-only nodes plus
// boundary edges into earlier iterations, built both as dynamic submissions and as a template, for manual
// and for tensormap boundaries. Replayable from the seed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "support/random_dag.h"
#include "pto/static_graph/instance.h"
#include "pto/static_graph/template.h"

namespace pto::test {

/// CarryEdge: node `consumer` of iteration i waits for node `producer` of iteration i - lag.
struct CarryEdge {
    std::uint32_t consumer;
    std::uint32_t producer;
    std::uint32_t lag;
};

struct RandomBody {
    std::vector<RandomNode> nodes;                               // kinds, cores, block_num
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;  // internal (producer, consumer), distinct
    std::vector<CarryEdge> carries;  // boundary edges (lag 1 only in tensormap mode)
    std::int32_t stateful = -1;  // tensormap mode: a node that inouts one buffer shared by every iteration
};

inline RandomBody random_body(std::uint64_t seed, bool tensormap) {
    std::mt19937_64 rng(seed);
    RandomDagOptions o;
    o.tasks = 1 + static_cast<std::uint32_t>(rng() % 14);
    o.max_fanin = 3;
    o.reach = o.tasks;
    o.dependency_only_share = 0.1;
    o.mix_share = 0.2;
    RandomBody body;
    body.nodes = random_dag(seed * 7919 + 1, o);
    std::set<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t k = 0; k < body.nodes.size(); ++k)
        for (std::uint32_t p : body.nodes[k].deps)
            edges.insert({p, k});
    body.edges.assign(edges.begin(), edges.end());
    const std::uint32_t carry_count = static_cast<std::uint32_t>(rng() % 4);
    std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
    for (std::uint32_t i = 0; i < carry_count; ++i) {
        const auto c = static_cast<std::uint32_t>(rng() % o.tasks);
        const auto p = static_cast<std::uint32_t>(rng() % o.tasks);
        if (!seen.insert({c, p}).second) continue;
        body.carries.push_back(CarryEdge{c, p, tensormap ? 1u : 1u + static_cast<std::uint32_t>(rng() % 2)});
    }
    if (tensormap && rng() % 2 == 0) body.stateful = static_cast<std::int32_t>(rng() % o.tasks);
    return body;
}

inline FuncId func_of(std::uint32_t node, std::uint32_t lane) {
    return FuncId{static_cast<std::uint16_t>((node * 3 + lane) % 7)};
}

/// Buffers: distinct fake buffer addresses (never dereferenced on the instant executor).
class FakeBuffers {
  public:
    explicit FakeBuffers(std::size_t count) : cells_(count * 8) {}
    [[nodiscard]] TensorView view(std::size_t i) {
        return TensorView::contiguous(&cells_[i * 8], DataType::F32, {8});
    }

  private:
    std::vector<float> cells_;
};

// ---- Manual boundaries -------------------------------------------------------------------------------

/// submit_manual_dynamic: `iterations` copies of the body with explicit deps (call in a MANUAL scope).
inline void submit_manual_dynamic(const RandomBody& body, std::uint32_t iterations) {
    const auto n = static_cast<std::uint32_t>(body.nodes.size());
    std::vector<TaskId> ids;
    std::vector<TaskId> deps;
    for (std::uint32_t it = 0; it < iterations; ++it) {
        for (std::uint32_t k = 0; k < n; ++k) {
            deps.clear();
            for (const auto& [p, c] : body.edges)
                if (c == k) deps.push_back(ids[it * n + p]);
            for (const CarryEdge& e : body.carries)
                if (e.consumer == k && it >= e.lag) deps.push_back(ids[(it - e.lag) * n + e.producer]);
            Args args;
            args.block_num(body.nodes[k].block_num).scalar(it).scalar(k).set_dependencies(deps);
            const RandomNode& node = body.nodes[k];
            if (node.kind == TaskKind::DependencyOnly) {
                Args plain;
                plain.set_dependencies(deps);
                ids.push_back(submit_dependency_only(plain).task_id());
            } else if (node.core == CoreType::MIX) {
                ids.push_back(submit_mix(func_of(k, 0), func_of(k, 1), func_of(k, 2), args).task_id());
            } else if (node.core == CoreType::AIC) {
                ids.push_back(submit_aic(func_of(k, 0), args).task_id());
            } else {
                ids.push_back(submit_aiv(func_of(k, 0), args).task_id());
            }
        }
    }
}

inline Template manual_template(const RandomBody& body, ScalarSlot& iteration) {
    TemplateBuilder b("random_manual", BoundaryMode::Manual);
    iteration = b.scalar_slot("iteration");
    for (std::uint32_t k = 0; k < body.nodes.size(); ++k) {
        const RandomNode& node = body.nodes[k];
        if (node.kind == TaskKind::DependencyOnly) {
            b.add_dependency_only();
            continue;
        }
        NodeArgs args;
        args.block_num(node.block_num).scalar(iteration).scalar_value(static_cast<std::uint64_t>(k));
        if (node.core == CoreType::MIX)
            b.add_mix(func_of(k, 0), func_of(k, 1), func_of(k, 2), args);
        else if (node.core == CoreType::AIC)
            b.add_aic(func_of(k, 0), args);
        else
            b.add_aiv(func_of(k, 0), args);
    }
    // Declared in reverse, with a duplicate, to show order and repetition do not matter.
    for (auto e = body.edges.rbegin(); e != body.edges.rend(); ++e)
        b.edge(e->first, e->second);
    if (!body.edges.empty()) b.edge(body.edges.front().first, body.edges.front().second);
    for (const CarryEdge& e : body.carries)
        b.boundary_input(e.consumer);
    return b.finalize();
}

/// submit_manual_template: the same iterations as instances (call in a MANUAL scope).
inline void submit_manual_template(const RandomBody& body, const Template& tpl, ScalarSlot iteration,
                                   std::uint32_t iterations) {
    Bindings b(tpl);
    std::vector<Instance> done;
    for (std::uint32_t it = 0; it < iterations; ++it) {
        b.scalar(iteration, it);
        for (const CarryEdge& e : body.carries)
            if (it >= e.lag) b.depend(e.consumer, done[it - e.lag].node(e.producer));
        done.push_back(instantiate(b));
    }
}

// ---- Tensormap boundaries ----------------------------------------------------------------------------
// Node k of iteration i writes out(i, k); each internal consumer reads it; a carry consumer of iteration i
// reads out(i - 1, producer); the stateful node inouts one shared buffer. Fresh outputs per iteration mean
// discovery finds exactly the declared edges.

struct TensormapLayout {
    std::uint32_t nodes;
    std::uint32_t iterations;
    [[nodiscard]] std::size_t state() const { return 0; }
    /// never_written: what iteration 0's carry inputs read (nothing produced it).
    [[nodiscard]] std::size_t never_written() const { return 1; }
    [[nodiscard]] std::size_t out(std::uint32_t it, std::uint32_t k) const {
        return 2 + std::size_t{it} * nodes + k;
    }
    [[nodiscard]] std::size_t buffers() const { return 2 + std::size_t{iterations} * nodes; }
    [[nodiscard]] std::size_t carry_in(std::uint32_t it, std::uint32_t producer) const {
        return it == 0 ? never_written() : out(it - 1, producer);
    }
};

inline void submit_tensormap_dynamic(const RandomBody& body, std::uint32_t iterations, FakeBuffers& buf) {
    const auto n = static_cast<std::uint32_t>(body.nodes.size());
    const TensormapLayout l{n, iterations};
    for (std::uint32_t it = 0; it < iterations; ++it) {
        for (std::uint32_t k = 0; k < n; ++k) {
            Args args;
            args.block_num(body.nodes[k].block_num).scalar(it).scalar(k);
            args.output(buf.view(l.out(it, k)));
            for (const auto& [p, c] : body.edges)
                if (c == k) args.input(buf.view(l.out(it, p)));
            for (const CarryEdge& e : body.carries)
                if (e.consumer == k) args.input(buf.view(l.carry_in(it, e.producer)));
            if (body.stateful == static_cast<std::int32_t>(k)) args.inout(buf.view(l.state()));
            const RandomNode& node = body.nodes[k];
            if (node.kind == TaskKind::DependencyOnly)
                submit_dependency_only(args.block_num(1));
            else if (node.core == CoreType::MIX)
                submit_mix(func_of(k, 0), func_of(k, 1), func_of(k, 2), args);
            else if (node.core == CoreType::AIC)
                submit_aic(func_of(k, 0), args);
            else
                submit_aiv(func_of(k, 0), args);
        }
    }
}

struct TensormapSlots {
    ScalarSlot iteration;
    std::vector<TensorSlot> out;    // per node
    std::vector<TensorSlot> carry;  // per carry edge
};

inline Template tensormap_template(const RandomBody& body, TensormapSlots& slots, FakeBuffers& buf) {
    TemplateBuilder b("random_tensormap", BoundaryMode::Tensormap);
    const auto n = static_cast<std::uint32_t>(body.nodes.size());
    slots.iteration = b.scalar_slot("iteration");
    for (std::uint32_t k = 0; k < n; ++k)
        slots.out.push_back(b.tensor_slot("out" + std::to_string(k)));
    for (std::size_t c = 0; c < body.carries.size(); ++c)
        slots.carry.push_back(b.tensor_slot("carry" + std::to_string(c)));
    for (std::uint32_t k = 0; k < n; ++k) {
        NodeArgs args;
        const RandomNode& node = body.nodes[k];
        args.block_num(node.kind == TaskKind::DependencyOnly ? 1 : node.block_num)
            .scalar(slots.iteration)
            .scalar_value(static_cast<std::uint64_t>(k));
        args.output(slots.out[k]);
        std::uint32_t arg = 1;
        for (const auto& [p, c] : body.edges)
            if (c == k) {
                args.input(slots.out[p]);
                ++arg;
            }
        std::vector<std::uint32_t> carry_args;
        for (std::size_t c = 0; c < body.carries.size(); ++c)
            if (body.carries[c].consumer == k) {
                args.input(slots.carry[c]);
                carry_args.push_back(arg++);
            }
        std::int32_t state_arg = -1;
        if (body.stateful == static_cast<std::int32_t>(k)) {
            args.inout(
                buf.view(TensormapLayout{n, 0}.state()));  // a constant: the same buffer in every instance
            state_arg = static_cast<std::int32_t>(arg++);
        }
        if (node.kind == TaskKind::DependencyOnly)
            b.add_dependency_only(args);
        else if (node.core == CoreType::MIX)
            b.add_mix(func_of(k, 0), func_of(k, 1), func_of(k, 2), args);
        else if (node.core == CoreType::AIC)
            b.add_aic(func_of(k, 0), args);
        else
            b.add_aiv(func_of(k, 0), args);
        for (std::uint32_t a : carry_args)
            b.boundary_input(k, a);
        if (state_arg >= 0) {
            b.boundary_input(k, static_cast<std::uint32_t>(state_arg));
            b.boundary_output(k, static_cast<std::uint32_t>(state_arg));
        }
    }
    for (const auto& [p, c] : body.edges)
        b.edge(p, c);
    for (const CarryEdge& e : body.carries)
        b.boundary_output(e.producer, 0);
    return b.finalize();
}

inline void submit_tensormap_template(const RandomBody& body, const Template& tpl,
                                      const TensormapSlots& slots, std::uint32_t iterations,
                                      FakeBuffers& buf) {
    const auto n = static_cast<std::uint32_t>(body.nodes.size());
    const TensormapLayout l{n, iterations};
    Bindings b(tpl);
    for (std::uint32_t it = 0; it < iterations; ++it) {
        b.scalar(slots.iteration, it);
        for (std::uint32_t k = 0; k < n; ++k)
            b.tensor(slots.out[k], buf.view(l.out(it, k)));
        for (std::size_t c = 0; c < body.carries.size(); ++c)
            b.tensor(slots.carry[c], buf.view(l.carry_in(it, body.carries[c].producer)));
        instantiate(b);
    }
}

}  // namespace pto::test
