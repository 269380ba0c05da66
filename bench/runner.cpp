// One scenario's measurements. Orchestration cost comes from serial mode (schedulers idle until the
// orchestration function returns, window sized to hold the graph), and so does the schedulers' cost (the
// rest of each serial run); end-to-end cost from concurrent mode. All are medians over `reps` runs. Both
// come in rounds, one block of runs on a fresh Runtime each (after its own warm-up), which a sweep
// interleaves with the other scenarios' rounds. With --peers each end-to-end block is followed by a block
// of each peer's repetitions, every block after a pause (kSettle), so machine drift hits all systems alike
// while no runtime's idle workers spin beside another's measured runs. ScenarioMeasurement holds the steps;
// the exports, the model and the JSON live in scenario_exports.cpp, scenario_model.cpp and
// scenario_json.cpp.
#include "runner.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <thread>

#include "profile.h"
#include "pto/runtime/detail/throw.h"
#include "pto/scope/orchestration.h"
#include "scenario_run.h"

namespace pto::bench {
namespace {

std::uint32_t pow2_at_least(std::uint64_t n, std::uint32_t floor) {
    return static_cast<std::uint32_t>(std::bit_ceil(std::max<std::uint64_t>(n, floor)));
}

double per_task(std::int64_t ns, std::uint64_t tasks) {
    return tasks == 0 ? 0.0 : static_cast<double>(ns) / static_cast<double>(tasks);
}

RuntimeConfig serial_config(const Probe& p) {
    RuntimeConfig config;
    config.orchestration = OrchestrationMode::Serial;
    config.window_tasks = pow2_at_least(p.graph.tasks.size() + 1, 8);
    config.edge_capacity = pow2_at_least(p.stats.edges_linked + p.stats.edges_to_completed + 64, 64);
    config.tensormap_entries = pow2_at_least(p.stats.tensormap_inserts + 64, 64);
    config.argument_bytes = std::uint64_t{config.window_tasks} * 1024;
    config.heap_bytes = std::max<std::uint64_t>(2 * p.stats.heap_bytes_allocated + (1u << 20), 1u << 20);
    return config;
}

RuntimeConfig concurrent_config(const BenchOptions& o, const RuntimeConfig& serial) {
    RuntimeConfig config;
    config.executor = o.executor;
    if (o.scheduler_threads != 0) config.scheduler_threads = o.scheduler_threads;
    config.timed_scale = o.timed_scale;
    config.timed_jitter = o.jitter;
    config.heap_bytes = std::max<std::uint64_t>(config.heap_bytes, serial.heap_bytes);
    return config;
}

/// prepare: the probe and the run configurations of `scenario` for `workload`.
ScenarioRun prepare(const Scenario& scenario, const BenchOptions& o, Workload& workload) {
    ScenarioRun run{scenario, o, workload, probe(workload, scenario), {}, {}, {}, {}};
    run.counts = count_graph(run.probe.graph);
    run.serial = serial_config(run.probe);
    run.concurrent = concurrent_config(o, run.serial);
    run.body = [&workload, &scenario] { workload.orchestrate(scenario.mode, scenario.tier); };
    return run;
}

/// Samples: where timed_runs puts one figure per measured run: end to end and the orchestration within it,
/// or (serial mode) orchestration and, when asked for, the scheduling that followed it.
struct Samples {
    std::vector<double>* end_to_end = nullptr;
    std::vector<double>* end_to_end_orchestration = nullptr;
    std::vector<double>* orchestration = nullptr;
    std::vector<double>* scheduling = nullptr;
};

/// timed_runs: `warmup` unmeasured then `reps` measured runs of the workload on `rt`.
void timed_runs(const ScenarioRun& run, Runtime& rt, std::uint32_t warmup, std::uint32_t reps,
                Checksum& checksum, const Samples& out) {
    Orchestrator orchestrator(rt);
    for (std::uint32_t i = 0; i < warmup + reps; ++i) {
        run.workload.prepare_run();
        const RunReport r = orchestrator.run(run.body);
        checksum.add(r.completed);
        if (i < warmup) continue;
        // Orchestration cost excludes pto::wait: in serial mode a wait runs the graph submitted so far, which
        // is scheduling, as is everything from the end of orchestration to the end of the run.
        const std::int64_t orchestration_ns = r.orchestration_ns - r.orchestrator.wait_ns;
        if (out.end_to_end) out.end_to_end->push_back(per_task(r.end_to_end_ns, r.kernel_tasks));
        if (out.end_to_end_orchestration)
            out.end_to_end_orchestration->push_back(per_task(orchestration_ns, r.kernel_tasks));
        if (out.orchestration) out.orchestration->push_back(per_task(orchestration_ns, r.kernel_tasks));
        if (out.scheduling)
            out.scheduling->push_back(per_task(r.end_to_end_ns - orchestration_ns, r.kernel_tasks));
    }
}

/// share: round `round`'s part of `total` split over `rounds` (the first total % rounds rounds take one
/// more).
std::uint32_t share(std::uint32_t total, std::uint32_t rounds, std::uint32_t round) {
    return total / rounds + (round < total % rounds ? 1 : 0);
}

/// measure_serial_block: serial mode on a Runtime of its own, created on the caller's (pinned) thread so
/// that its scheduler threads share that CPU (cpu_pin.h says why): the orchestration function's time, then
/// the schedulers' time to run what it submitted, each alone.
void measure_serial_block(const ScenarioRun& run, std::uint32_t warmup, std::uint32_t reps, Measured& m) {
    Runtime rt(run.serial);
    run.workload.register_kernels(rt);
    timed_runs(run, rt, warmup, reps, m.checksum,
               {.orchestration = &m.orchestration, .scheduling = &m.scheduling});
}

/// run_peer: one repetition of a peer on the probe's graph; only a measured one is recorded (its figures
/// and its body calls, which the JSON's checksum reports).
void run_peer(const GraphRecord& graph, PeerSamples& ps, bool measured) {
    const PeerRun r = ps.peer == Peer::TbbFlowGraph ? run_tbb_flow_graph(graph) : run_omp_depend(graph);
    if (!measured) return;
    ps.body_calls += r.body_calls;
    ps.total.push_back(per_task(r.total_ns, r.kernel_tasks));
    if (r.build_ns) ps.build.push_back(per_task(*r.build_ns, r.kernel_tasks));
    if (r.run_ns) ps.run.push_back(per_task(*r.run_ns, r.kernel_tasks));
    if (r.replay_ns) ps.replay.push_back(per_task(*r.replay_ns, r.kernel_tasks));
    if (r.create_ns) ps.create.push_back(per_task(*r.create_ns, r.kernel_tasks));
}

/// The pause before each block with --peers. After a parallel region, libgomp's workers spin before they
/// sleep (up to milliseconds), and oneTBB's briefly too: on a 2-CPU machine they took the CPUs from the
/// next system's run, which measured up to 1.7x slower right after an OpenMP repetition than alone. Blocks
/// with a pause and one unmeasured repetition in front measure each system as it runs alone; the rounds
/// (kPeerRounds of them) still spread machine drift over all of them.
constexpr auto kSettle = std::chrono::milliseconds(10);

/// measure_end_to_end_block: concurrent mode on a Runtime of its own (created on an unpinned thread, so
/// its scheduler threads may use every CPU): `warmup` unmeasured then `reps` measured runs.
void measure_end_to_end_block(const ScenarioRun& run, std::uint32_t warmup, std::uint32_t reps, Measured& m) {
    Runtime rt(run.concurrent);
    run.workload.register_kernels(rt);
    timed_runs(run, rt, warmup, reps, m.checksum,
               {.end_to_end = &m.end_to_end, .end_to_end_orchestration = &m.end_to_end_orchestration});
}

/// measure_peer_blocks: --peers: for each peer, after a pause, one unmeasured and `reps` measured
/// repetitions of the probe's graph.
void measure_peer_blocks(const ScenarioRun& run, std::uint32_t reps, Measured& m) {
    for (PeerSamples& ps : m.peers) {
        std::this_thread::sleep_for(kSettle);
        for (std::uint32_t i = 0; i <= reps; ++i)
            run_peer(run.probe.graph, ps, i != 0);
    }
}

}  // namespace

Probe probe(Workload& workload, const Scenario& scenario) {
    // Start small (memory: every window slot costs ~130 bytes of preallocated state) and grow until the
    // graph fits; serial mode reports a window that is too small as CapacityDeadlock.
    for (std::uint32_t window = 1u << 12;; window <<= 2) {
        RuntimeConfig config;
        config.orchestration = OrchestrationMode::Serial;
        config.window_tasks = window;
        config.edge_capacity = std::max<std::uint32_t>(window * 16, 1u << 17);
        config.tensormap_entries = std::max<std::uint32_t>(window * 4, 1u << 14);
        config.argument_bytes = std::uint64_t{window} * 1024;
        config.heap_bytes = 1ull << 30;
        config.record_graph = true;
        Runtime rt(config);
        workload.register_kernels(rt);
        Orchestrator orchestrator(rt);
        workload.prepare_run();
        try {
            orchestrator.run([&] { workload.orchestrate(scenario.mode, scenario.tier); });
        } catch (const Error& e) {
            if (e.code() != ErrorCode::CapacityDeadlock || window >= (1u << 20)) throw;
            continue;
        }
        return Probe{rt.graph(), rt.last_report().orchestrator};
    }
}

RecordedGraph record_graph(const Scenario& scenario) {
    const std::unique_ptr<Workload> workload = make_workload(*scenario.workload, Executor::Instant);
    Probe p = probe(*workload, scenario);
    return RecordedGraph{std::move(p.graph), p.stats};
}

std::string file_for(const std::string& path, const Scenario& scenario, bool several) {
    if (!several) return path;
    std::string id = scenario.id;
    std::replace(id.begin(), id.end(), '/', '.');
    const auto dot = path.find_last_of('.');
    const auto slash = path.find_last_of('/');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + "." + id;
    return path.substr(0, dot) + "." + id + path.substr(dot);
}

std::unique_ptr<Workload> make_workload(const WorkloadSpec& spec, Executor executor) {
    std::unique_ptr<Workload> workload = spec.make(executor);
    if (!workload)
        detail::throw_error(ErrorCode::InvalidArgument,
                            "the " + spec.name + " workload's make function returned no workload");
    return workload;
}

struct ScenarioMeasurement::State {
    ScenarioRun run;
    Measured measured;

    State(const Scenario& scenario, const BenchOptions& o, Workload& workload)
        : run(prepare(scenario, o, workload)) {
        if (o.peers)
            measured.peers = {PeerSamples{Peer::TbbFlowGraph, {}, {}, {}, {}, {}, 0},
                              PeerSamples{Peer::OmpDepend, {}, {}, {}, {}, {}, 0}};
    }
};

ScenarioMeasurement::ScenarioMeasurement(const Scenario& scenario, const BenchOptions& o,
                                         Workload& workload) {
    const WorkloadSpec& spec = *scenario.workload;
    if (std::find(spec.schemes.begin(), spec.schemes.end(), scenario.mode) == spec.schemes.end())
        detail::throw_error(
            ErrorCode::InvalidArgument,
            "the " + spec.name + " workload has no " + std::string(to_string(scenario.mode)) + " scheme");
    if (o.rounds == 0)
        detail::throw_error(ErrorCode::InvalidArgument, "BenchOptions::rounds must be at least 1");
    state_ = std::make_unique<State>(scenario, o, workload);
}

ScenarioMeasurement::~ScenarioMeasurement() = default;

std::uint32_t ScenarioMeasurement::rounds() const {
    return effective_rounds(state_->run.options);
}

/// block_warmup: each block warms its new Runtime up: the options' warmup spread over `rounds`, at least
/// one run per block when there is any, so no block's first measured run is a cold one.
std::uint32_t ScenarioMeasurement::block_warmup(std::uint32_t rounds) const {
    const std::uint32_t warmup = state_->run.options.warmup;
    return warmup == 0 ? 0 : (warmup + rounds - 1) / rounds;
}

void ScenarioMeasurement::measure_serial_round(std::uint32_t round, std::optional<int> pinned_cpu) {
    state_->measured.orchestration_cpus.push_back(pinned_cpu);
    measure_serial_block(state_->run, block_warmup(rounds()),
                         share(state_->run.options.reps, rounds(), round), state_->measured);
}

void ScenarioMeasurement::measure_end_to_end_round(std::uint32_t round) {
    const ScenarioRun& run = state_->run;
    const BenchOptions& o = run.options;
    Measured& m = state_->measured;
    const std::uint32_t n = end_to_end_rounds(o);
    const std::uint32_t reps = share(o.reps, n, round);
    if (o.peers) std::this_thread::sleep_for(kSettle);
    measure_end_to_end_block(run, block_warmup(n), reps, m);
    if (o.peers) measure_peer_blocks(run, reps, m);
    // The workload is shared with other scenarios: check the outputs while they are this scenario's.
    if (round + 1 == n && o.executor == Executor::Compute) m.golden = run.workload.verify();
}

nlohmann::json ScenarioMeasurement::finish() {
    const ScenarioRun& run = state_->run;
    Measured& measured = state_->measured;
    const BenchOptions& o = run.options;
    export_files(run);
    if (o.profile)
        measured.profile = profile_runs(run.workload, run.body, run.serial, run.concurrent,
                                        std::min<std::uint32_t>(o.reps, 50));
    nlohmann::json sim;
    if (o.simulate) sim = model_json(run, summarize(measured.orchestration).median);
    return results_json(run, measured, std::move(sim));
}

}  // namespace pto::bench
