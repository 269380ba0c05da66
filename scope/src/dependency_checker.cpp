// The dependency checker: shadow hazard discovery, the reachability search over declared edges, and the
// findings' messages.
#include "dependency_checker.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "pto/runtime/detail/log.h"
#include "pto/runtime/detail/throw.h"
#include "pto/tensormap/overlap.h"

namespace pto::detail {
namespace {

/// The shadow map holds every tracked access of the last window_tasks tasks, whatever the scope mode,
/// so it gets at least the real map's capacity and never less than 2^18 entries.
constexpr std::uint32_t kMinShadowEntries = 1u << 18;

constexpr std::size_t kMaxLoggedFindings = 16;

bool writes(Direction d) {
    return d != Direction::In;
}
bool reads(Direction d) {
    return d != Direction::Out;
}
bool is_checked_access(const TensorArg& a) {
    return a.view.is_tracked && a.view.base != nullptr;
}

const char* dtype_name(DataType t) {
    switch (t) {
        case DataType::F32:
            return "f32";
        case DataType::F16:
            return "f16";
        case DataType::BF16:
            return "bf16";
        case DataType::I8:
            return "i8";
        case DataType::U8:
            return "u8";
        case DataType::I32:
            return "i32";
        case DataType::I64:
            return "i64";
    }
    return "?";
}

/// describe_view: "f32[16x128] strides [5120, 1] at element 2048 of buffer 0x7f..."
std::string describe_view(const TensorView& v) {
    std::string s = dtype_name(v.dtype);
    s += '[';
    for (std::uint32_t d = 0; d < v.ndim && d < static_cast<std::uint32_t>(kMaxTensorDims); ++d)
        s += (d ? "x" : "") + std::to_string(v.shape[d]);
    s += "] strides [";
    for (std::uint32_t d = 0; d < v.ndim && d < static_cast<std::uint32_t>(kMaxTensorDims); ++d)
        s += (d ? ", " : "") + std::to_string(v.strides[d]);
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%p", v.base);
    s += "] at element " + std::to_string(v.offset) + " of buffer " + buffer;
    return s;
}

const char* access_verb(HazardKind kind, bool consumer) {
    switch (kind) {
        case HazardKind::ReadAfterWrite:
            return consumer ? "reads" : "writes";
        case HazardKind::WriteAfterWrite:
            return "writes";
        case HazardKind::WriteAfterRead:
            return consumer ? "writes" : "reads";
    }
    return "accesses";
}

}  // namespace

DependencyChecker::DependencyChecker(const Runtime& runtime, DependencyCheck mode)
    : runtime_(runtime),
      mode_(mode),
      first_(TaskId{0}),
      shadow_(std::max(runtime.config().tensormap_entries, kMinShadowEntries)) {}

void DependencyChecker::begin_run(TaskId first) {
    shadow_.clear();
    records_.clear();
    findings_.clear();
    missing_ = unexplained_ = logged_ = 0;
    first_ = first;
}

TaskId DependencyChecker::horizon(TaskId next) const {
    const std::uint64_t window = runtime_.config().window_tasks;
    return TaskId{std::max(first_.value, next.value > window ? next.value - window : 0)};
}

DependencyChecker::TaskRecord* DependencyChecker::find(TaskId id) {
    if (records_.empty() || id.value < records_.front().id.value) return nullptr;
    const std::uint64_t index = id.value - records_.front().id.value;
    return index < records_.size() ? &records_[index] : nullptr;
}

bool DependencyChecker::is_ordered(TaskId producer, std::span<const TaskId> producers, TaskId consumer) {
    // Edges point from smaller to larger ids, so a chain from `producer` to `consumer` only passes
    // through ids between the two: the search never descends below `producer`.
    stack_.clear();
    for (TaskId p : producers) {
        if (p == producer) return true;
        if (p.value > producer.value && p.value < consumer.value) stack_.push_back(p);
    }
    ++search_;
    while (!stack_.empty()) {
        TaskRecord* r = find(stack_.back());
        stack_.pop_back();
        if (r == nullptr || r->visit == search_) continue;
        r->visit = search_;
        for (TaskId q : r->producers) {
            if (q == producer) return true;
            if (q.value > producer.value) stack_.push_back(q);
        }
    }
    return false;
}

bool DependencyChecker::explain(const TaskRecord& producer, const TensorArg& access, HazardKind& kind,
                                TensorArg& producer_access) const {
    bool found = false;
    for (const TensorArg& p : producer.tensors) {
        if (p.view.base != access.view.base || !views_overlap(p.view, access.view)) continue;
        HazardKind k;
        if (reads(access.direction) && writes(p.direction))
            k = HazardKind::ReadAfterWrite;
        else if (writes(access.direction) && writes(p.direction))
            k = HazardKind::WriteAfterWrite;
        else if (writes(access.direction))
            k = HazardKind::WriteAfterRead;
        else
            continue;
        if (!found || k == HazardKind::ReadAfterWrite) {
            kind = k;
            producer_access = p;
            found = true;
        }
    }
    return found;
}

std::string DependencyChecker::describe(const TaskRecord& r) const {
    std::string what;
    switch (r.kind) {
        case TaskKind::Kernel:
            what = "kernel " + runtime_.kernel_name(r.func);
            break;
        case TaskKind::DependencyOnly:
            what = "dependency-only";
            break;
        case TaskKind::Alloc:
            what = "alloc_tensors";
            break;
    }
    return "task " + std::to_string(r.id.value) + " (" + what + "; " + r.origin + ")";
}

std::uint32_t DependencyChecker::check(TaskId id, const TaskSpec& spec, std::span<const TaskId> producers,
                                       std::span<const TaskId> declared, std::string origin,
                                       bool is_template_node) {
    pending_.id = id;
    pending_.kind = spec.kind;
    pending_.func = spec.funcs[0];
    pending_.origin = std::move(origin);
    pending_.is_template_node = is_template_node;
    pending_.producers.assign(producers.begin(), producers.end());
    pending_.tensors.assign(spec.tensors.begin(), spec.tensors.end());

    const TaskId oldest = horizon(id);
    hazards_.clear();
    std::uint32_t missing = 0;
    for (const TensorArg& a : spec.tensors) {
        if (!is_checked_access(a)) continue;
        TensorMap::Access access;
        shadow_.prepare(a.view, a.direction, access);
        found_.clear();
        shadow_.find_producers(access, oldest, found_);
        for (TaskId h : found_) {
            if (h.value < oldest.value || h == id) continue;
            if (std::find(hazards_.begin(), hazards_.end(), h) != hazards_.end()) continue;
            hazards_.push_back(h);
            if (is_ordered(h, producers, id)) continue;
            const TaskRecord* producer = find(h);
            if (producer == nullptr) continue;
            DependencyFinding f;
            f.kind = DependencyFinding::Kind::MissingEdge;
            f.producer = h;
            f.consumer = id;
            TensorArg producer_access = a;
            if (!explain(*producer, a, f.hazard, producer_access)) continue;
            f.message = std::string("missing dependency (") + to_string(f.hazard) +
                        "): " + describe(pending_) + " " + access_verb(f.hazard, true) + " " +
                        describe_view(a.view) + ", which " + describe(*producer) + " " +
                        access_verb(f.hazard, false) + " as " + describe_view(producer_access.view) +
                        "; no declared dependency orders task " + std::to_string(h.value) + " before task " +
                        std::to_string(id.value) + ", directly or through other tasks (" +
                        (pending_.is_template_node || producer->is_template_node
                             ? "add the edge to the template, or declare it at the instance's boundary: "
                               "Bindings::depend, or boundary_input / boundary_output for tensormap "
                               "boundaries)"
                             : "add it with set_dependencies, or let an AUTO scope discover it)");
            add_finding(std::move(f));
            ++missing;
        }
    }

    // The converse, as information: a declared edge between kernels that share no data at all.
    if (spec.kind != TaskKind::Kernel) return missing;
    for (TaskId p : declared) {
        if (p.value < oldest.value || std::find(hazards_.begin(), hazards_.end(), p) != hazards_.end())
            continue;
        const TaskRecord* producer = find(p);
        if (producer == nullptr || producer->kind != TaskKind::Kernel) continue;
        bool shares = false;
        for (const TensorArg& pa : producer->tensors)
            for (const TensorArg& a : spec.tensors)
                if (pa.view.base == a.view.base && (writes(pa.direction) || writes(a.direction)) &&
                    views_overlap(pa.view, a.view))
                    shares = true;
        if (shares) continue;
        DependencyFinding f;
        f.kind = DependencyFinding::Kind::UnexplainedEdge;
        f.producer = p;
        f.consumer = id;
        f.message = "declared edge without shared data: " + describe(pending_) + " depends on " +
                    describe(*producer) +
                    ", but no view one of them writes overlaps a view of the other (harmless, often a typo)";
        add_finding(std::move(f));
    }
    return missing;
}

void DependencyChecker::record(TaskId id, std::span<const TensorArg> tensors) {
    PTO_ASSERT(pending_.id == id, "record follows check of the same task");
    pending_.tensors.assign(tensors.begin(), tensors.end());
    // An alloc task owns buffers but writes nothing: its readers need not be ordered after it.
    if (pending_.kind != TaskKind::Alloc) {
        const TaskId oldest = horizon(id);
        for (const TensorArg& a : tensors) {
            if (!is_checked_access(a)) continue;
            TensorMap::Access access;
            shadow_.prepare(a.view, a.direction, access);
            if (!shadow_.try_record(access, id, oldest)) [[unlikely]]
                throw_error(ErrorCode::CapacityExhausted,
                            "the dependency checker's shadow tensormap is full at " + describe(pending_) +
                                ": its capacity is RuntimeConfig::tensormap_entries (" +
                                std::to_string(runtime_.config().tensormap_entries) + ") but at least " +
                                std::to_string(kMinShadowEntries) +
                                "; raise tensormap_entries or lower window_tasks for checked runs");
        }
    }
    // Tasks submitted around the checker (Runtime::submit directly) leave gaps: keep ids consecutive.
    while (!records_.empty() && records_.back().id.value + 1 < id.value) {
        TaskRecord gap;
        gap.id = TaskId{records_.back().id.value + 1};
        gap.kind = TaskKind::DependencyOnly;
        gap.origin = "submitted through Runtime directly";
        records_.push_back(std::move(gap));
    }
    records_.push_back(std::move(pending_));
    pending_ = TaskRecord{};
    const TaskId oldest = horizon(TaskId{id.value + 1});
    while (!records_.empty() && records_.front().id.value < oldest.value)
        records_.pop_front();
}

void DependencyChecker::add_finding(DependencyFinding finding) {
    if (finding.kind == DependencyFinding::Kind::MissingEdge) {
        ++missing_;
        if (mode_ == DependencyCheck::Report && logged_ < kMaxLoggedFindings) {
            ++logged_;
            log_warning(finding.message);
        }
    } else {
        ++unexplained_;
    }
    if (findings_.size() < kMaxFindings) findings_.push_back(std::move(finding));
}

void DependencyChecker::discard_since(const Mark& from) {
    if (findings_.size() > from.findings) findings_.resize(from.findings);
    missing_ = from.missing;
    unexplained_ = from.unexplained;
}

std::string DependencyChecker::first_missing_message(const Mark& from) const {
    std::uint64_t count = 0;
    const DependencyFinding* first = nullptr;
    for (std::size_t i = from.findings; i < findings_.size(); ++i)
        if (findings_[i].kind == DependencyFinding::Kind::MissingEdge) {
            if (first == nullptr) first = &findings_[i];
            ++count;
        }
    std::string message = first != nullptr ? first->message : std::string("missing dependency");
    if (count > 1) message += " (and " + std::to_string(count - 1) + " more)";
    return message;
}

void DependencyChecker::throw_first_missing(const Mark& from) const {
    throw_error(ErrorCode::MissingDependency, first_missing_message(from));
}

void DependencyChecker::reject(const Mark& from) {
    std::string message = first_missing_message(from);
    discard_since(from);
    throw_error(ErrorCode::MissingDependency, std::move(message));
}

void DependencyChecker::add_to(RunReport& report) {
    report.missing_dependencies += missing_;
    report.unexplained_edges += unexplained_;
    if (mode_ == DependencyCheck::Report && missing_ > logged_)
        log_warning("dependency checker: " + std::to_string(missing_ - logged_) +
                    " more missing dependencies (RunReport::dependency_findings lists the first " +
                    std::to_string(kMaxFindings) + " findings)");
    for (DependencyFinding& f : findings_)
        report.dependency_findings.push_back(std::move(f));
    findings_.clear();
}

}  // namespace pto::detail
