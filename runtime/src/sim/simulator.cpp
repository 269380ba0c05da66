// The virtual-time model's event loop, its orchestrator (in-order submits, waiting on the window) and the
// completion protocol (fanout release, references, in-order retirement). The scheduler threads' back end
// of the shared pass is in scheduler_pass.cpp. See docs/design/virtual-time-model.md.
#include "simulator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "core_table.h"
#include "pto/runtime/detail/throw.h"

namespace pto::detail::sim {
namespace {

std::int64_t us_to_ns(double us) {
    return std::llround(us * 1000.0);
}

}  // namespace

Simulator::Simulator(const GraphRecord& graph, const SimGraph& sim_graph, const KernelDurations& durations,
                     const SimConfig& config)
    : graph_(graph),
      sim_graph_(sim_graph),
      durations_(durations),
      config_(config),
      serial_(config.machine.orchestration == OrchestrationMode::Serial),
      window_(serial_ ? std::numeric_limits<std::uint64_t>::max() : config.machine.window_tasks),
      submit_ns_(us_to_ns(config.cost.submit_us)),
      submit_edge_ns_(us_to_ns(config.cost.submit_edge_us)),
      lookup_ns_(us_to_ns(config.cost.tensormap_lookup_us)),
      insert_ns_(us_to_ns(config.cost.tensormap_insert_us)),
      dispatch_ns_(us_to_ns(config.cost.dispatch_us)),
      completion_ns_(us_to_ns(config.cost.completion_us)),
      fanout_edge_ns_(us_to_ns(config.cost.fanout_edge_us)),
      latency_ns_(us_to_ns(config.cost.start_latency_us)),
      pickup_ns_(us_to_ns(config.cost.core_pickup_us)),
      poll_ns_(us_to_ns(config.cost.poll_us)),
      kernel_names_(graph) {
    const std::size_t n = graph.tasks.size();
    tasks_.resize(n);
    ready_.blocks.resize(n);
    edge_linked_.assign(graph.producers.size(), 0);
    for (std::size_t i = 0; i < n; ++i) {
        const RecordedTask& t = graph.tasks[i];
        tasks_[i].shape = shape_of(t.kind, t.core);
        ready_.blocks[i].block_num = t.kind == TaskKind::Kernel ? t.block_num : 1;
        if (t.kind == TaskKind::Kernel) ++kernel_count_;
    }

    const RuntimeConfig& m = config.machine;
    scheds_.resize(m.scheduler_threads);
    for (std::uint32_t k = 0; k < m.scheduler_threads; ++k) {
        SchedState& s = scheds_[k];
        s.index = k;
        const std::vector<std::uint32_t> owned = owned_clusters(m, k);
        s.clusters.resize(owned.size());
        for (std::size_t i = 0; i < owned.size(); ++i) {
            SimCluster& c = s.clusters[i];
            c.units = m.aic_per_cluster + m.aiv_per_cluster;
            for (std::uint32_t u = 0; u < c.units; ++u)
                c.unit[u].global_index = global_core_index(m, owned[i], u);
        }
        s.pass.prepare(owned.size());
    }

    out_.task_end_ns.assign(n, 0);
    out_.submit_cost_ns.assign(n, 0);
    out_.sched_busy_ns.assign(m.scheduler_threads, 0);
    out_.ready.reserve(n);
    if (config.record_trace) {
        out_.trace.tracks.push_back("orchestrator");
        for (std::uint32_t k = 0; k < m.scheduler_threads; ++k)
            out_.trace.tracks.push_back("scheduler " + std::to_string(k));
    }
}

SimOutput Simulator::run() {
    dispatch_enabled_ = !serial_;
    orchestrator_next(0);
    while (!events_.empty()) {
        const Event e = events_.pop();
        switch (e.kind) {
            case EventKind::Publish:
                on_publish(e.a, e.time_ns);
                break;
            case EventKind::Release:
                on_release(e.a, e.time_ns);
                break;
            case EventKind::SchedulerStep: {
                SchedState& s = scheds_[e.a];
                if (e.b == s.generation) on_scheduler_step(s, e.time_ns);
                break;
            }
        }
    }
    PTO_ASSERT(closed_count_ == graph_.tasks.size(), "every task of the graph completes in the model");
    if (closed_count_ != graph_.tasks.size()) [[unlikely]]
        detail::throw_error(ErrorCode::InvalidArgument, "simulate: only " + std::to_string(closed_count_) +
                                                            " of " + std::to_string(graph_.tasks.size()) +
                                                            " tasks completed (model invariant broken)");
    for (const SchedState& s : scheds_)
        out_.sched_busy_ns[s.index] = s.busy_ns;
    std::sort(out_.timeline.begin(), out_.timeline.end(), [](const SubtaskRecord& a, const SubtaskRecord& b) {
        if (a.dispatch_ns != b.dispatch_ns) return a.dispatch_ns < b.dispatch_ns;
        if (a.core != b.core) return a.core < b.core;
        return a.start_ns < b.start_ns;
    });
    std::sort(out_.ready.begin(), out_.ready.end(),
              [](const ReadyMark& a, const ReadyMark& b) { return a.task < b.task; });
    return std::move(out_);
}

// ---- Orchestrator ---------------------------------------------------------------------------------------

bool Simulator::awaits_unfinished(std::int64_t now) {
    while (next_wait_ < sim_graph_.wait_before.size() && sim_graph_.wait_before[next_wait_] <= next_submit_) {
        // As the runtime: a serial orchestration runs everything submitted so far, then pauses the
        // schedulers again; a concurrent one waits for the awaited task only.
        const bool done =
            serial_ ? closed_count_ == next_submit_ : tasks_[sim_graph_.wait_awaited[next_wait_]].closed;
        if (!done) {
            if (serial_ && !dispatch_enabled_) {
                dispatch_enabled_ = true;
                wake_sleepers(now);
            }
            orch_awaiting_ = true;
            task_wait_start_ = now;
            ++out_.task_waits;
            return true;
        }
        ++next_wait_;
    }
    if (serial_ && next_submit_ < graph_.tasks.size()) dispatch_enabled_ = false;
    return false;
}

void Simulator::resume_after_wait(std::int64_t now) {
    const bool done =
        serial_ ? closed_count_ == next_submit_ : tasks_[sim_graph_.wait_awaited[next_wait_]].closed;
    if (!done) return;
    orch_awaiting_ = false;
    out_.task_wait_ns += now - task_wait_start_;
    if (config_.record_trace && now > task_wait_start_)
        out_.trace.slices.push_back(TraceSlice{0, "task wait", task_wait_start_, now, TaskId{}});
    orchestrator_next(now);
}

void Simulator::orchestrator_next(std::int64_t now) {
    const std::uint32_t n = static_cast<std::uint32_t>(graph_.tasks.size());
    // The orchestrator cannot submit past a wait before the awaited task's completion has been handled.
    if (awaits_unfinished(now)) return;
    if (next_submit_ == n) {
        out_.orchestration_end_ns = now;
        if (!dispatch_enabled_) {
            // Serial mode: the schedulers start once the orchestration function has returned.
            dispatch_enabled_ = true;
            wake_sleepers(now);
        }
        return;
    }
    if (next_submit_ - retired_count_ >= window_) {
        // Back-pressure: the window holds window_tasks unretired tasks; wait for the oldest to retire.
        orch_waiting_ = true;
        orch_wait_start_ = now;
        ++out_.window_waits;
        return;
    }
    const std::uint32_t i = next_submit_++;
    // Every scheme pays for the work it does: a submit, its dependency edges (named or discovered), and
    // its share of the run's tensormap lookups and inserts.
    std::int64_t cost = submit_ns_ + submit_edge_ns_ * graph_.tasks[i].producer_count;
    if (graph_.tasks[i].kind == TaskKind::Kernel) {
        const std::uint64_t k = kernels_submitted_++;
        cost += lookup_ns_ * static_cast<std::int64_t>(share_of(config_.tensormap_lookups, k, kernel_count_));
        cost += insert_ns_ * static_cast<std::int64_t>(share_of(config_.tensormap_inserts, k, kernel_count_));
    }
    out_.submit_cost_ns[i] = cost;
    out_.orch_busy_ns += cost;
    if (config_.record_trace)
        out_.trace.slices.push_back(TraceSlice{0, task_label(i), now, now + cost, graph_.tasks[i].id});
    events_.push(now + cost, EventKind::Publish, i);
}

void Simulator::on_publish(std::uint32_t i, std::int64_t now) {
    const RecordedTask& t = graph_.tasks[i];
    TaskState& task = tasks_[i];
    // Link to each producer as the runtime does: a retired producer is skipped, a live one gains a
    // reference, and only a producer that has not completed adds to the fanin.
    for (std::uint32_t e = t.first_producer; e < t.first_producer + t.producer_count; ++e) {
        const std::int64_t p = sim_graph_.producer_index[e];
        if (p < 0 || tasks_[static_cast<std::size_t>(p)].retired) continue;
        TaskState& producer = tasks_[static_cast<std::size_t>(p)];
        edge_linked_[e] = 1;
        ++producer.refs;
        if (!producer.closed) ++task.fanin;
    }
    task.refs += 1;  // its own completion
    published_count_ = i + 1;
    if (t.kind == TaskKind::Alloc) {
        close_task(i, now, now);  // completes at submission, on the orchestrator
    } else if (task.fanin == 0) {
        make_ready(i, now);
    }
    orchestrator_next(now);
}

// ---- Completion protocol --------------------------------------------------------------------------------

void Simulator::on_release(std::uint32_t i, std::int64_t now) {
    if (--tasks_[i].fanin == 0) make_ready(i, now);
}

void Simulator::make_ready(std::uint32_t i, std::int64_t now) {
    const RecordedTask& t = graph_.tasks[i];
    ready_.push(tasks_[i].shape, i);
    if (t.kind == TaskKind::Kernel) out_.ready.push_back(ReadyMark{t.id, t.core, t.block_num, now});
    wake_sleepers(now);
}

std::int64_t Simulator::close_task(std::uint32_t i, std::int64_t now, std::int64_t walk_start) {
    TaskState& task = tasks_[i];
    task.closed = true;
    ++closed_count_;
    if (graph_.tasks[i].kind != TaskKind::Kernel) out_.task_end_ns[i] = now;
    // The fanout list holds exactly the consumers published so far: publication is in id order, and each
    // of them found this task not yet completed, so counted it in its fanin.
    std::int64_t cost = 0;
    for (std::uint32_t k = sim_graph_.consumer_begin[i]; k < sim_graph_.consumer_begin[i + 1]; ++k) {
        const std::uint32_t c = sim_graph_.consumers[k];
        if (c >= published_count_) break;  // ascending: the rest will see this task completed
        cost += fanout_edge_ns_;
        events_.push(walk_start + cost, EventKind::Release, c);
    }
    const RecordedTask& t = graph_.tasks[i];
    for (std::uint32_t e = t.first_producer; e < t.first_producer + t.producer_count; ++e)
        if (edge_linked_[e] != 0) drop_reference(static_cast<std::uint32_t>(sim_graph_.producer_index[e]));
    drop_reference(i);
    try_retire(now);
    if (orch_awaiting_) resume_after_wait(now);
    return cost;
}

void Simulator::drop_reference(std::uint32_t i) {
    PTO_ASSERT(tasks_[i].refs > 0, "a reference is dropped once");
    --tasks_[i].refs;
}

void Simulator::try_retire(std::int64_t now) {
    // Retirement is in id order (the ring's watermark); scope references are not recorded, so a task
    // retires as soon as it completed and every linked consumer completed.
    const std::uint32_t n = static_cast<std::uint32_t>(graph_.tasks.size());
    while (retired_count_ < n && tasks_[retired_count_].closed && tasks_[retired_count_].refs == 0)
        tasks_[retired_count_++].retired = true;
    if (orch_waiting_ && next_submit_ - retired_count_ < window_) {
        orch_waiting_ = false;
        out_.orch_wait_ns += now - orch_wait_start_;
        if (config_.record_trace && now > orch_wait_start_)
            out_.trace.slices.push_back(TraceSlice{0, "window wait", orch_wait_start_, now, TaskId{}});
        orchestrator_next(now);
    }
}

std::uint64_t Simulator::share_of(std::uint64_t total, std::uint64_t k, std::uint64_t count) {
    if (count == 0) return 0;
    // floor((k + 1) * total / count) - floor(k * total / count), split into quotient and remainder so the
    // products stay below count^2 (tasks fit in 32 bits).
    const std::uint64_t q = total / count;
    const std::uint64_t rem = total % count;
    const auto upto = [&](std::uint64_t j) { return j * q + j * rem / count; };
    return upto(k + 1) - upto(k);
}

std::string Simulator::task_label(std::uint32_t i) const {
    const RecordedTask& t = graph_.tasks[i];
    if (t.kind == TaskKind::Alloc) return "alloc";
    if (t.kind == TaskKind::DependencyOnly) return "dependency-only";
    return kernel_names_(t.funcs[0]);
}

}  // namespace pto::detail::sim
