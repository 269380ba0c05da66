// libFuzzer target (docs/reliability.md): the orchestration API driven by the input as a small bytecode
// (scopes, submits of every kind with random views, block_num and dependencies, allocations, misuse), run
// against tiny windows and pools. A pto::Error from any call is a correct answer; anything else is a bug:
// a crash or sanitizer report, another exception, a report where completed + failed + cancelled !=
// submitted, or a runtime that cannot run a good graph afterwards.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "pto/runtime/runtime.h"
#include "pto/scope/orchestration.h"

using namespace pto;

namespace {

constexpr FuncId kOk{0};
constexpr FuncId kMaybeFail{1};

[[noreturn]] void bug(const char* what, const RunReport* r = nullptr) {
    std::fprintf(stderr, "fuzz_orchestration: %s\n", what);
    if (r != nullptr)
        std::fprintf(
            stderr, "  submitted %llu completed %llu failed %llu cancelled %llu\n",
            static_cast<unsigned long long>(r->submitted), static_cast<unsigned long long>(r->completed),
            static_cast<unsigned long long>(r->failed), static_cast<unsigned long long>(r->cancelled));
    std::abort();
}

/// Compute kernels never touch tensor memory (views may be nonsense); the second fails when its first scalar
/// is odd, so failure propagation is part of the program.
int ok_kernel(const KernelContext&) {
    return 0;
}
int maybe_fail_kernel(const KernelContext& ctx) {
    return !ctx.scalars.empty() && (ctx.scalars[0] & 1) != 0 ? 5 : 0;
}

/// The runtimes the inputs choose from: tiny pools so every capacity path is reached. Built once; reusing
/// them across inputs is itself under test (every run must leave the runtime usable).
Runtime& runtime(std::uint8_t which) {
    static std::unique_ptr<Runtime> runtimes[3];
    const std::uint8_t i = which % 3;
    if (!runtimes[i]) {
        RuntimeConfig c;
        c.cluster_count = 2;
        c.scheduler_threads = 2;
        c.window_tasks = i == 1 ? 8 : 16;
        c.edge_capacity = 64;
        c.heap_bytes = 64 * 1024;
        c.argument_bytes = 8192;
        c.tensormap_entries = 64;
        c.stall_timeout_ms = 5000;  // a hang is a bug: make it a Stall error, reported below
        if (i == 1) c.orchestration = OrchestrationMode::Serial;
        if (i == 2) {
            c.executor = Executor::Compute;
            c.compute_threads = 2;
        }
        runtimes[i] = std::make_unique<Runtime>(c);
        runtimes[i]->register_kernel(kOk, KernelInfo{"ok", 1.0, &ok_kernel, nullptr});
        runtimes[i]->register_kernel(kMaybeFail, KernelInfo{"maybe_fail", 1.0, &maybe_fail_kernel, nullptr});
    }
    return *runtimes[i];
}

/// Reader: the input as a stream of bytes; reading past the end yields zeros.
class Reader {
  public:
    Reader(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    [[nodiscard]] bool done() const { return at_ >= size_; }
    std::uint8_t u8() { return at_ < size_ ? data_[at_++] : 0; }
    std::uint16_t u16() { return static_cast<std::uint16_t>(u8() | (u8() << 8)); }
    std::uint32_t u32() { return u16() | (static_cast<std::uint32_t>(u16()) << 16); }
    std::uint64_t u64() { return u32() | (static_cast<std::uint64_t>(u32()) << 32); }

  private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t at_ = 0;
};

// Buffers views point into; only their addresses matter (nothing dereferences a view here).
alignas(64) float g_buffers[4][1024];

/// Program: one input's orchestration function.
class Program {
  public:
    explicit Program(Reader& in) : in_(in) {}

    void operator()() {
        for (int ops = 0; ops < 256 && !in_.done(); ++ops) {
            try {
                step();
            } catch (const Error&) {
                // Every misuse is reported as pto::Error and leaves the runtime consistent: keep going.
            }
        }
        while (!scopes_.empty())
            scopes_.pop_back();
    }

  private:
    void step() {
        switch (in_.u8() % 12) {
            case 0:
                scopes_.push_back(std::make_unique<ScopeGuard>(ScopeMode::Auto));
                break;
            case 1:
                scopes_.push_back(std::make_unique<ScopeGuard>(ScopeMode::Manual));
                break;
            case 2:
                if (!scopes_.empty()) scopes_.pop_back();
                break;
            case 3:
                remember(submit_aic(kernel(), args()));
                break;
            case 4:
                remember(submit_aiv(kernel(), args()));
                break;
            case 5:
                remember(submit_mix(kernel(), kOk, kernel(), args()));
                break;
            case 6:
                remember(submit_dependency_only(args()));
                break;
            case 7:
                remember(alloc_tensors({create_info(), create_info()}));
                break;
            case 8:
                remember(alloc_tensors({create_info()}));
                break;
            case 9: {
                // Misuse the builder itself: dependencies set twice, too many arguments.
                Args a = args();
                const TaskId id = some_id();
                a.set_dependencies(&id, 1);
                if ((in_.u8() & 1) != 0)
                    for (int i = 0; i < 17; ++i)
                        a.input(view());
                remember(submit_aiv(kOk, a));
                break;
            }
            case 10:
                remember(submit_aiv(kernel(), Args().output(create_info()).input(view()).scalar(in_.u8())));
                break;
            default: {
                // View operations with arbitrary parameters.
                const TensorView v = view();
                switch (in_.u8() % 4) {
                    case 0:
                        (void)v.slice(static_cast<int>(in_.u8() % 7) - 1, in_.u16(), in_.u16());
                        break;
                    case 1:
                        (void)v.reshape({in_.u16(), in_.u8()});
                        break;
                    case 2:
                        (void)v.transpose(in_.u8() % 6, in_.u8() % 6);
                        break;
                    default:
                        (void)v.untracked();
                        break;
                }
                break;
            }
        }
    }

    FuncId kernel() { return (in_.u8() & 3) == 0 ? kMaybeFail : kOk; }

    void remember(const TaskHandle& h) {
        if (!h.task_id().is_valid()) return;
        ids_.push_back(h.task_id());
        for (std::uint32_t i = 0; i < h.output_count() && outputs_.size() < 64; ++i)
            outputs_.push_back(h.output(i));
    }

    /// some_id: a recent task, an old one, or an arbitrary (usually invalid or future) id.
    TaskId some_id() {
        const std::uint8_t k = in_.u8();
        if (!ids_.empty() && k < 200) return ids_[ids_.size() - 1 - (k % ids_.size())];
        if (k < 230) return TaskId{};
        return TaskId{in_.u64()};
    }

    TensorCreateInfo create_info() {
        TensorCreateInfo c;
        c.dtype = static_cast<DataType>(in_.u8() % 7);
        c.ndim = in_.u8() % 7;  // 0 and 6 are invalid
        for (std::uint32_t d = 0; d < kMaxTensorDims; ++d)
            c.shape[d] = (in_.u8() & 0x80) != 0 ? in_.u32() : in_.u8();
        return c;
    }

    TensorView view() {
        const std::uint8_t k = in_.u8();
        if (!outputs_.empty() && k < 64) return outputs_[k % outputs_.size()];  // a runtime-allocated tensor
        TensorView v = TensorView::contiguous(g_buffers[k % 4], DataType::F32, {1024});
        v.ndim = static_cast<std::uint8_t>(in_.u8() % 7);
        for (int d = 0; d < kMaxTensorDims; ++d) {
            v.shape[d] = in_.u8() % 17;
            v.strides[d] = static_cast<std::int8_t>(in_.u8());
        }
        const std::uint8_t wide = in_.u8();
        if ((wide & 1) != 0)
            v.offset = static_cast<std::int64_t>(in_.u64());  // anywhere, even negative
        else
            v.offset = in_.u16() % 1024;
        if ((wide & 2) != 0) v.strides[in_.u8() % kMaxTensorDims] = static_cast<std::int64_t>(in_.u64());
        if ((wide & 4) != 0) v.shape[in_.u8() % kMaxTensorDims] = in_.u32();
        if ((wide & 8) != 0) v.base = nullptr;  // a create-info in disguise: only valid as an output
        v.is_tracked = (wide & 16) == 0;
        return v;
    }

    Args args() {
        Args a;
        const std::uint8_t shape = in_.u8();
        for (std::uint32_t t = 0; t < (shape & 3u); ++t) {
            switch (in_.u8() % 3) {
                case 0:
                    a.input(view());
                    break;
                case 1:
                    a.output(view());
                    break;
                default:
                    a.inout(view());
                    break;
            }
        }
        for (std::uint32_t s = 0; s < ((shape >> 2) & 3u); ++s)
            a.scalar(in_.u8());
        if ((shape & 0x10) != 0) a.block_num(in_.u8() % 9);  // 0 is invalid
        const std::uint32_t deps = (shape >> 5) & 3u;
        for (std::uint32_t d = 0; d < deps; ++d)
            deps_[d] = some_id();
        if (deps != 0) a.set_dependencies(deps_, deps);
        return a;
    }

    Reader& in_;
    std::vector<std::unique_ptr<ScopeGuard>> scopes_;
    std::vector<TaskId> ids_;
    std::vector<TensorView> outputs_;
    TaskId deps_[3];
};

void check_report(const RunReport& r) {
    if (r.completed + r.failed + r.cancelled != r.submitted)
        bug("completed + failed + cancelled != submitted", &r);
    if (r.failed > 0 && r.failures.empty()) bug("failed tasks but no failure recorded", &r);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    Reader in(data, size);
    Runtime& rt = runtime(in.u8());
    try {
        const RunReport r = pto::run(rt, Program(in), RunOptions{.throw_on_kernel_failure = false});
        check_report(r);
    } catch (const Error& e) {
        if (e.code() == ErrorCode::Stall) {
            std::fprintf(stderr, "%s\n", e.what());
            bug("a stall: the instant and compute executors have no long kernels here");
        }
        // Errors that end the run (CapacityDeadlock from a submit, ...) still leave a consistent report.
        if (!rt.in_run()) check_report(rt.last_report());
    }
    // The runtime must run a good graph after whatever the input did.
    try {
        const RunReport good = pto::run(rt, [] {
            PTO2_SCOPE(MANUAL) {
                const TaskId a = submit_aiv(kOk, Args()).task_id();
                submit_aic(kOk, Args().set_dependencies(&a, 1));
            }
        });
        if (good.completed != 2) bug("the follow-up run did not complete its two tasks", &good);
    } catch (const Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        bug("the follow-up run failed");
    }
    return 0;
}
