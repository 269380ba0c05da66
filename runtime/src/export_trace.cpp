// write_perfetto_trace: subtask records (and optional AICPU slices and counters) as Chrome Trace Event
// Format JSON. Streamed one event per line; nlohmann-json only escapes strings. See export.h.
#include "pto/runtime/export.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernel_names.h"
#include "pto/runtime/detail/throw.h"

namespace pto {
namespace {

constexpr int kPidAic = 1;
constexpr int kPidAiv = 2;
constexpr int kPidAicpu = 3;
constexpr int kPidOverhead = 4;
constexpr int kPidKernels = 5;

std::string quoted(const std::string& s) {
    return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// write_us: nanoseconds as microseconds with exactly three decimals (no binary-fraction noise).
void write_us(std::ostream& out, std::int64_t ns) {
    if (ns < 0) {
        out << '-';
        ns = -ns;
    }
    const std::int64_t frac = ns % 1000;
    out << ns / 1000 << '.' << static_cast<char>('0' + frac / 100) << static_cast<char>('0' + frac / 10 % 10)
        << static_cast<char>('0' + frac % 10);
}

/// EventStream: comma placement for the "traceEvents" array.
class EventStream {
  public:
    explicit EventStream(std::ostream& out) : out_(out) {}
    std::ostream& next() {
        out_ << (first_ ? "\n" : ",\n");
        first_ = false;
        return out_;
    }

  private:
    std::ostream& out_;
    bool first_ = true;
};

void metadata(EventStream& events, const char* what, int pid, int tid, const std::string& name) {
    std::ostream& o = events.next();
    o << R"({"name":")" << what << R"(","ph":"M","pid":)" << pid;
    if (tid >= 0) o << ",\"tid\":" << tid;
    o << R"(,"args":{"name":)" << quoted(name) << "}}";
}

void sort_index(EventStream& events, const char* what, int pid, int tid, int index) {
    std::ostream& o = events.next();
    o << R"({"name":")" << what << R"(","ph":"M","pid":)" << pid;
    if (tid >= 0) o << ",\"tid\":" << tid;
    o << R"(,"args":{"sort_index":)" << index << "}}";
}

void write_core_tracks(EventStream& events, const RuntimeConfig& m) {
    metadata(events, "process_name", kPidAic, -1, "AICore AIC");
    sort_index(events, "process_sort_index", kPidAic, -1, 1);
    metadata(events, "process_name", kPidAiv, -1, "AICore AIV");
    sort_index(events, "process_sort_index", kPidAiv, -1, 2);
    for (std::uint32_t c = 0; c < m.cluster_count; ++c) {
        const std::uint32_t sched = c % m.scheduler_threads;
        const std::string where = " (cluster " + std::to_string(c) + ", sched " + std::to_string(sched) + ")";
        for (std::uint32_t a = 0; a < m.aic_per_cluster; ++a) {
            const int tid = static_cast<int>(c * m.aic_per_cluster + a);
            metadata(events, "thread_name", kPidAic, tid, "AIC " + std::to_string(tid) + where);
            sort_index(events, "thread_sort_index", kPidAic, tid, tid);
        }
        for (std::uint32_t v = 0; v < m.aiv_per_cluster; ++v) {
            const int tid = static_cast<int>(c * m.aiv_per_cluster + v);
            metadata(events, "thread_name", kPidAiv, tid, "AIV " + std::to_string(tid) + where);
            sort_index(events, "thread_sort_index", kPidAiv, tid, tid);
        }
    }
}

void write_subtasks(EventStream& events, const GraphRecord& graph, std::span<const SubtaskRecord> records,
                    const RuntimeConfig& m) {
    const detail::KernelNames name_of(graph);
    const std::uint32_t aic = m.aic_count();
    for (const SubtaskRecord& r : records) {
        const bool on_aic = r.core < aic;
        std::ostream& o = events.next();
        o << "{\"name\":" << quoted(name_of(r.func)) << ",\"cat\":\"" << to_string(r.core_type)
          << R"(","ph":"X","ts":)";
        write_us(o, r.start_ns);
        o << ",\"dur\":";
        write_us(o, r.end_ns - r.start_ns);
        o << ",\"pid\":" << (on_aic ? kPidAic : kPidAiv) << ",\"tid\":" << (on_aic ? r.core : r.core - aic)
          << ",\"args\":{\"task\":" << r.task.value << ",\"block\":" << r.block_idx
          << ",\"lane\":" << static_cast<unsigned>(r.lane)
          << ",\"scheduler\":" << static_cast<unsigned>(r.scheduler) << ",\"dispatch_us\":";
        write_us(o, r.dispatch_ns);
        o << ",\"handoff_us\":";
        write_us(o, r.handoff_ns);
        o << ",\"finish_us\":";
        write_us(o, r.finish_ns);
        o << "}}";
    }
}

void write_extras(EventStream& events, const TraceExtras& extras) {
    if (!extras.tracks.empty()) {
        metadata(events, "process_name", kPidAicpu, -1, "AICPU");
        sort_index(events, "process_sort_index", kPidAicpu, -1, 0);
        for (std::size_t t = 0; t < extras.tracks.size(); ++t) {
            metadata(events, "thread_name", kPidAicpu, static_cast<int>(t), extras.tracks[t]);
            sort_index(events, "thread_sort_index", kPidAicpu, static_cast<int>(t), static_cast<int>(t));
        }
    }
    for (const TraceSlice& s : extras.slices) {
        std::ostream& o = events.next();
        o << "{\"name\":" << quoted(s.name) << R"(,"cat":"AICPU","ph":"X","ts":)";
        write_us(o, s.start_ns);
        o << ",\"dur\":";
        write_us(o, s.end_ns - s.start_ns);
        o << ",\"pid\":" << kPidAicpu << ",\"tid\":" << s.track << ",\"args\":{";
        if (s.task.is_valid()) o << "\"task\":" << s.task.value;
        o << "}}";
    }
    if (!extras.counters.empty()) {
        metadata(events, "process_name", kPidOverhead, -1, "Overhead");
        sort_index(events, "process_sort_index", kPidOverhead, -1, 3);
    }
    for (const CounterSeries& c : extras.counters) {
        const std::string name = quoted(c.name);
        for (const CounterSample& s : c.samples) {
            std::ostream& o = events.next();
            o << "{\"name\":" << name << R"(,"ph":"C","ts":)";
            write_us(o, s.time_ns);
            o << ",\"pid\":" << kPidOverhead << ",\"args\":{\"value\":" << nlohmann::json(s.value).dump()
              << "}}";
        }
    }
}

/// SliceAt: where a subtask's slice sits in the trace (process, thread, start).
struct SliceAt {
    int pid = 0;
    std::uint32_t tid = 0;
    std::int64_t ts = 0;
};

SliceAt slice_of(const SubtaskRecord& r, std::uint32_t aic) {
    const bool on_aic = r.core < aic;
    return SliceAt{on_aic ? kPidAic : kPidAiv, on_aic ? r.core : r.core - aic, r.start_ns};
}

void flow_event(EventStream& events, char phase, std::size_t id, const SliceAt& at) {
    std::ostream& o = events.next();
    o << R"({"name":"dependency","cat":"dependency","ph":")" << phase << R"(","id":)" << id;
    if (phase == 'f') o << R"(,"bp":"e")";
    o << ",\"ts\":";
    write_us(o, at.ts);
    o << ",\"pid\":" << at.pid << ",\"tid\":" << at.tid << "}";
}

/// write_arrows: one flow per edge between recorded tasks, from the producer's last-ending subtask to the
/// consumer's first-starting one. Returns the number of drawable edges (drawn only up to the limit).
std::size_t write_arrows(EventStream& events, const GraphRecord& graph,
                         std::span<const SubtaskRecord> records, const RuntimeConfig& m) {
    struct Ends {
        const SubtaskRecord* first_start = nullptr;
        const SubtaskRecord* last_end = nullptr;
    };
    std::unordered_map<std::uint64_t, Ends> by_task;
    for (const SubtaskRecord& r : records) {
        Ends& e = by_task[r.task.value];
        if (e.first_start == nullptr || r.start_ns < e.first_start->start_ns) e.first_start = &r;
        if (e.last_end == nullptr || r.end_ns > e.last_end->end_ns) e.last_end = &r;
    }
    std::vector<std::pair<const SubtaskRecord*, const SubtaskRecord*>> edges;
    for (const RecordedTask& t : graph.tasks) {
        const auto consumer = by_task.find(t.id.value);
        if (consumer == by_task.end()) continue;
        for (TaskId p : graph.producers_of(t)) {
            const auto producer = by_task.find(p.value);
            if (producer != by_task.end())
                edges.emplace_back(producer->second.last_end, consumer->second.first_start);
        }
    }
    if (edges.size() > kMaxTraceArrows) return edges.size();
    const std::uint32_t aic = m.aic_count();
    for (std::size_t i = 0; i < edges.size(); ++i) {
        flow_event(events, 's', i + 1, slice_of(*edges[i].first, aic));
        flow_event(events, 'f', i + 1, slice_of(*edges[i].second, aic));
    }
    return edges.size();
}

/// write_kernel_counters: per kernel, the number of its subtasks running, as a step function.
void write_kernel_counters(EventStream& events, const GraphRecord& graph,
                           std::span<const SubtaskRecord> records) {
    const detail::KernelNames name_of(graph);
    std::map<std::uint16_t, std::vector<std::pair<std::int64_t, int>>> steps;
    for (const SubtaskRecord& r : records) {
        auto& s = steps[r.func.value];
        s.emplace_back(r.start_ns, +1);
        s.emplace_back(r.end_ns, -1);
    }
    if (steps.empty()) return;
    metadata(events, "process_name", kPidKernels, -1, "Kernels");
    sort_index(events, "process_sort_index", kPidKernels, -1, 4);
    for (auto& [func, s] : steps) {
        // Ends before starts at equal times: back-to-back instances do not count as overlapping.
        std::sort(s.begin(), s.end());
        const std::string name = quoted("running " + name_of(FuncId{func}));
        int running = 0;
        for (std::size_t i = 0; i < s.size(); ++i) {
            running += s[i].second;
            if (i + 1 < s.size() && s[i + 1].first == s[i].first) continue;  // one sample per instant
            std::ostream& o = events.next();
            o << "{\"name\":" << name << R"(,"ph":"C","ts":)";
            write_us(o, s[i].first);
            o << ",\"pid\":" << kPidKernels << ",\"args\":{\"value\":" << running << "}}";
        }
    }
}

/// check_inputs: rejects records and slices the trace cannot place, before anything is written.
void check_inputs(std::span<const SubtaskRecord> records, const RuntimeConfig& m, const TraceExtras& extras) {
    const std::uint32_t total = m.aic_count() + m.aiv_count();
    for (const SubtaskRecord& r : records)
        if (r.core >= total) [[unlikely]]
            detail::throw_error(ErrorCode::InvalidArgument,
                                "write_perfetto_trace: subtask of task " + std::to_string(r.task.value) +
                                    " is on core " + std::to_string(r.core) + " but the machine has " +
                                    std::to_string(total) + " cores");
    for (const TraceSlice& s : extras.slices)
        if (s.track >= extras.tracks.size()) [[unlikely]]
            detail::throw_error(ErrorCode::InvalidArgument,
                                "write_perfetto_trace: slice '" + s.name + "' names track " +
                                    std::to_string(s.track) + " but TraceExtras has " +
                                    std::to_string(extras.tracks.size()) + " tracks");
}

}  // namespace

void write_perfetto_trace(std::ostream& out, const GraphRecord& graph, std::span<const SubtaskRecord> records,
                          const RuntimeConfig& machine) {
    write_perfetto_trace(out, graph, records, machine, TraceExtras{});
}

void write_perfetto_trace(std::ostream& out, const GraphRecord& graph, std::span<const SubtaskRecord> records,
                          const RuntimeConfig& machine, const TraceExtras& extras) {
    machine.validate();
    check_inputs(records, machine, extras);
    out << "{\"traceEvents\":[";
    EventStream events(out);
    write_core_tracks(events, machine);
    write_subtasks(events, graph, records, machine);
    write_extras(events, extras);
    if (extras.kernel_counters) write_kernel_counters(events, graph, records);
    std::vector<std::pair<std::string, std::string>> notes = extras.notes;
    if (extras.dependency_arrows) {
        const std::size_t edges = write_arrows(events, graph, records, machine);
        notes.emplace_back("dependency_arrows", edges <= kMaxTraceArrows
                                                    ? std::to_string(edges) + " drawn"
                                                    : "none drawn: " + std::to_string(edges) +
                                                          " edges, more than the limit of " +
                                                          std::to_string(kMaxTraceArrows));
    }
    out << "\n],\"displayTimeUnit\":\"ns\"";
    if (!notes.empty()) {
        out << ",\"otherData\":{";
        for (std::size_t i = 0; i < notes.size(); ++i)
            out << (i == 0 ? "" : ",") << quoted(notes[i].first) << ':' << quoted(notes[i].second);
        out << '}';
    }
    out << "}\n";
}

}  // namespace pto
