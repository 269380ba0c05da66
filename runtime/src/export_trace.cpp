// write_perfetto_trace: subtask records (and optional AICPU slices and counters) as Chrome Trace Event
// Format JSON. Streamed one event per line; nlohmann-json only escapes strings. See export.h.
#include "pto/runtime/export.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "kernel_names.h"
#include "pto/runtime/detail/throw.h"

namespace pto {
namespace {

constexpr int kPidAic = 1;
constexpr int kPidAiv = 2;
constexpr int kPidAicpu = 3;
constexpr int kPidOverhead = 4;

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
    out << "\n],\"displayTimeUnit\":\"ns\"}\n";
}

}  // namespace pto
