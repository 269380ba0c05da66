// Ordering and exactly-once checks shared by runtime, scope, stress and example tests.
#include "graph_checks.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace pto::test {
namespace {

std::uint32_t lanes_of(const RecordedTask& t) {
    return t.core == CoreType::MIX ? 3 : 1;
}

}  // namespace

std::vector<TaskSpan> spans_from_subtasks(const GraphRecord& graph, std::span<const SubtaskRecord> records) {
    std::vector<TaskSpan> spans(graph.tasks.size());
    for (const SubtaskRecord& r : records) {
        const std::int64_t i = graph.index_of(r.task);
        if (i < 0) continue;
        TaskSpan& s = spans[static_cast<std::size_t>(i)];
        // Causal stamps, not clocks: two host cores' clocks may disagree by nanoseconds.
        s.first_start = std::min(s.first_start, r.dispatch_seq);
        s.last_end = std::max(s.last_end, r.finish_seq);
        ++s.runs;
    }
    return spans;
}

std::vector<TaskSpan> spans_from_timeline(const GraphRecord& graph, std::span<const SubtaskRecord> records) {
    std::vector<TaskSpan> spans(graph.tasks.size());
    for (const SubtaskRecord& r : records) {
        const std::int64_t i = graph.index_of(r.task);
        if (i < 0) continue;
        TaskSpan& s = spans[static_cast<std::size_t>(i)];
        s.first_start = std::min<std::uint64_t>(s.first_start, static_cast<std::uint64_t>(r.start_ns));
        s.last_end = std::max<std::uint64_t>(s.last_end, static_cast<std::uint64_t>(r.end_ns));
        ++s.runs;
    }
    return spans;
}

std::vector<TaskSpan> spans_from_log(const GraphRecord& graph, const std::vector<ExecutionEntry>& entries) {
    std::vector<TaskSpan> spans(graph.tasks.size());
    for (const ExecutionEntry& e : entries) {
        const std::int64_t i = graph.index_of(TaskId{e.task});
        if (i < 0) continue;
        TaskSpan& s = spans[static_cast<std::size_t>(i)];
        s.first_start = std::min(s.first_start, e.start_seq);
        s.last_end = std::max(s.last_end, e.end_seq);
        ++s.runs;
    }
    return spans;
}

std::string check_ordering(const GraphRecord& graph, const std::vector<TaskSpan>& spans) {
    // effective_end: when a task's effect is complete; framework tasks inherit from their producers.
    std::vector<std::uint64_t> effective_end(graph.tasks.size(), 0);
    for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
        const RecordedTask& t = graph.tasks[i];
        std::uint64_t producers_end = 0;
        for (TaskId p : graph.producers_of(t)) {
            const std::int64_t pi = graph.index_of(p);
            if (pi < 0) continue;
            producers_end = std::max(producers_end, effective_end[static_cast<std::size_t>(pi)]);
        }
        if (t.kind == TaskKind::Kernel) {
            if (spans[i].runs > 0 && spans[i].first_start < producers_end)
                return "task " + std::to_string(t.id.value) + " started at " +
                       std::to_string(spans[i].first_start) + " before its producers ended at " +
                       std::to_string(producers_end);
            effective_end[i] = spans[i].last_end;
        } else {
            effective_end[i] = producers_end;
        }
    }
    return {};
}

namespace {

template <class Key>
std::string check_counts(const GraphRecord& graph, const std::map<Key, int>& seen) {
    for (const auto& [key, n] : seen)
        if (n != 1)
            return "subtask (task " + std::to_string(std::get<0>(key)) + ", block " +
                   std::to_string(std::get<1>(key)) + ", lane " + std::to_string(std::get<2>(key)) +
                   ") ran " + std::to_string(n) + " times";
    for (const RecordedTask& t : graph.tasks) {
        if (t.kind != TaskKind::Kernel) continue;
        for (std::uint32_t b = 0; b < t.block_num; ++b)
            for (std::uint32_t l = 0; l < lanes_of(t); ++l)
                if (!seen.count(Key{t.id.value, b, l}))
                    return "subtask (task " + std::to_string(t.id.value) + ", block " + std::to_string(b) +
                           ", lane " + std::to_string(l) + ") never ran";
    }
    return {};
}

}  // namespace

std::string check_exactly_once_records(const GraphRecord& graph, std::span<const SubtaskRecord> records) {
    std::map<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>, int> seen;
    for (const SubtaskRecord& r : records)
        ++seen[{r.task.value, r.block_idx, r.lane}];
    return check_counts(graph, seen);
}

std::string check_exactly_once_log(const GraphRecord& graph, const std::vector<ExecutionEntry>& entries) {
    std::map<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>, int> seen;
    for (const ExecutionEntry& e : entries)
        ++seen[{e.task, e.block, e.lane}];
    return check_counts(graph, seen);
}

std::string check_recorded_run(const GraphRecord& graph, std::span<const SubtaskRecord> records) {
    std::string problem = check_exactly_once_records(graph, records);
    if (problem.empty()) problem = check_ordering(graph, spans_from_subtasks(graph, records));
    return problem;
}

}  // namespace pto::test
