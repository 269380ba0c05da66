// Args: the argument list of one submit (docs/api.md): tensors with their direction, scalars, block_num and
// explicit dependencies. A plain value built on the orchestrator's stack; nothing allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <new>
#include <span>
#include <type_traits>

#include "pto/runtime/ids.h"
#include "pto/runtime/kernels.h"
#include "pto/runtime/task_desc.h"
#include "pto/runtime/tensor.h"

namespace pto {

/// Args: chainable builder of a task's arguments.
///
///     auto h = pto::submit_aic(kQkMatmul,
///     pto::Args().input(q).input(k).output(s).scalar(base).block_num(4));
///
/// Misuse that can only be judged with the task in hand (too many arguments, set_dependencies twice) is
/// reported by the submit call, with the task's id and kernel in the message. The builder itself throws
/// only where TensorView::slice would: a sliced argument whose slice leaves its view.
class Args {
  public:
    /// User-provided (not `= default`) on purpose: `Args()` value-initialises, and a defaulted constructor
    /// would zero the 2 KiB of argument storage first (~15 ns per submit, measured).
    Args() {}
    Args(const Args& other) { *this = other; }
    Args& operator=(const Args& other);

    /// input: the task reads `view` (RAW dependencies in AUTO scopes).
    Args& input(const TensorView& view) { return add(view, Direction::In); }
    /// output: the task overwrites `view` (WAW and WAR dependencies in AUTO scopes).
    Args& output(const TensorView& view) { return add(view, Direction::Out); }
    /// output: a tensor the runtime allocates at submission; the handle's output(i) returns it.
    Args& output(const TensorCreateInfo& info);
    /// inout: the task reads and writes `view`.
    Args& inout(const TensorView& view) { return add(view, Direction::InOut); }
    /// input / output / inout with slices: the sub-view view.slice(first).slice(more)..., built in the
    /// argument list's own storage. Builders pass sub-views of a few whole tensors; built first and passed
    /// as a view, each is copied twice, and the second copy waits on the narrow stores that just built the
    /// first. Throws InvalidTensor, as slice() would, naming the argument and the slice if a slice leaves
    /// the view; the list is then unchanged.
    ///
    ///     args.input(k_cache, pto::Slice{0, row, 1}, pto::Slice{2, 0, context_len});
    template <class... More>
    Args& input(const TensorView& view, Slice first, More... more) {
        return add_sliced(view, Direction::In, first, more...);
    }
    template <class... More>
    Args& output(const TensorView& view, Slice first, More... more) {
        return add_sliced(view, Direction::Out, first, more...);
    }
    template <class... More>
    Args& inout(const TensorView& view, Slice first, More... more) {
        return add_sliced(view, Direction::InOut, first, more...);
    }
    /// scalar: a 64-bit scalar argument (integers, floats and enums are stored bit for bit).
    template <class T>
    Args& scalar(T value) {
        if (scalar_count_ == kMaxScalarArgs) [[unlikely]] {
            too_many_ = true;
            return *this;
        }
        scalars_[scalar_count_++] = scalar_bits(value);
        return *this;
    }
    /// block_num: SPMD width; the kernel runs block_idx 0..n-1. Default 1; checked (>= 1) at submit.
    Args& block_num(std::uint32_t n) {
        block_num_ = n;
        return *this;
    }
    /// set_dependencies: explicit producers, on top of any the tensormap finds. The array must stay valid
    /// until the submit call. Once per Args: a second call with n > 0 is reported by the submit
    /// (DependenciesAlreadySet); n = 0 clears the list and allows setting it again. A null `ids` with
    /// n > 0 is reported by the submit (InvalidDependency).
    Args& set_dependencies(const TaskId* ids, std::uint32_t n);
    Args& set_dependencies(std::span<const TaskId> ids) {
        return set_dependencies(ids.data(), static_cast<std::uint32_t>(ids.size()));
    }
    /// after: this task runs after `producers`, each a TaskHandle or a TaskId, on top of set_dependencies
    /// and of what the tensormap finds. The ids are copied, so temporaries are fine; may be called several
    /// times, up to kMaxAfterDependencies producers in all (more is reported by the submit as
    /// TooManyArguments; pass long lists with set_dependencies).
    ///
    ///     auto sf = pto::submit_aiv(kSoftmax, pto::Args().input(s).output(p).after(qk));
    template <class... Producers>
    Args& after(const Producers&... producers) {
        (add_after(id_of(producers)), ...);
        return *this;
    }

    // ---- read by the submit path ----
    [[nodiscard]] std::span<TensorArg> tensors() { return {tensor_data(), tensor_count_}; }
    [[nodiscard]] std::span<const TensorArg> tensors() const { return {tensor_data(), tensor_count_}; }
    [[nodiscard]] std::span<const std::uint64_t> scalars() const { return {scalars_, scalar_count_}; }
    [[nodiscard]] std::uint32_t block_count() const { return block_num_; }
    [[nodiscard]] std::span<const TaskId> dependencies() const { return {deps_, dep_count_}; }
    /// after_dependencies: the producers given to after(), in call order.
    [[nodiscard]] std::span<const TaskId> after_dependencies() const { return {after_data(), after_count_}; }
    /// created_outputs: how many outputs are create-infos the runtime allocates.
    [[nodiscard]] std::uint32_t created_outputs() const { return created_; }
    [[nodiscard]] bool has_too_many_arguments() const { return too_many_; }
    [[nodiscard]] bool has_dependencies_set_twice() const { return deps_twice_; }
    /// has_null_dependencies: set_dependencies(nullptr, n > 0) was called (the submit refuses it).
    [[nodiscard]] bool has_null_dependencies() const { return null_deps_; }
    /// null_view_index: 1 + the index of the first tensor argument whose view has no buffer (a null data
    /// pointer), 0 if none: the submit refuses it rather than treat it as a buffer to allocate.
    [[nodiscard]] std::uint32_t null_view_index() const { return null_view_; }
    /// is_malformed: any of the misuses above, or too many arguments (one test on the submit path).
    [[nodiscard]] bool is_malformed() const {
        return too_many_ || deps_twice_ || null_deps_ || null_view_ != 0;
    }
    /// has_too_many_after: after() was given more than kMaxAfterDependencies producers.
    [[nodiscard]] bool has_too_many_after() const { return too_many_ && after_overflow_; }
    /// requested_tensors: how many tensor arguments were asked for, kept ones and dropped ones (for the
    /// TooManyArguments message).
    [[nodiscard]] std::uint32_t requested_tensors() const { return requested_tensors_; }

    /// Most producers after() holds (inline, so building an Args never allocates).
    static constexpr std::uint32_t kMaxAfterDependencies = 16;

  private:
    static TaskId id_of(TaskId id) { return id; }
    template <class Handle>
    static TaskId id_of(const Handle& handle) {
        return handle.task_id();
    }
    void add_after(TaskId id) {
        if (after_count_ == kMaxAfterDependencies) [[unlikely]] {
            too_many_ = after_overflow_ = true;
            return;
        }
        new (after_storage_ + after_count_++ * sizeof(TaskId)) TaskId(id);
    }
    Args& add(const TensorView& view, Direction direction) {
        if (tensor_count_ == kMaxTensorArgs) [[unlikely]]
            return note_too_many();
        new (tensor_data() + tensor_count_) TensorArg{view, direction};
        return count_added(view);
    }
    template <class... More>
    Args& add_sliced(const TensorView& view, Direction direction, Slice first, More... more) {
        static_assert((std::is_same_v<More, Slice> && ...), "Args: slices are pto::Slice values");
        if (tensor_count_ == kMaxTensorArgs) [[unlikely]]
            return note_too_many();
        // Sliced where it is stored, and counted only once every slice fits.
        TensorView& v = (new (tensor_data() + tensor_count_) TensorArg{view, direction})->view;
        if (!(detail::slice_in_place(v, first) && (detail::slice_in_place(v, more) && ...))) [[unlikely]]
            throw_bad_slice(view, {first, more...});
        return count_added(view);
    }
    /// count_added: counts the argument just written from `view`.
    Args& count_added(const TensorView& view) {
        ++requested_tensors_;
        if (view.base == nullptr && null_view_ == 0) [[unlikely]]
            null_view_ = tensor_count_ + 1;
        ++tensor_count_;
        return *this;
    }
    /// note_too_many: one tensor argument past kMaxTensorArgs, for the submit to report.
    Args& note_too_many() {
        ++requested_tensors_;
        too_many_ = true;
        return *this;
    }
    /// throw_bad_slice: InvalidTensor naming this argument and the first of `slices` that leaves `view`.
    [[noreturn]] void throw_bad_slice(const TensorView& view, std::initializer_list<Slice> slices) const;
    const TaskId* after_data() const { return std::launder(reinterpret_cast<const TaskId*>(after_storage_)); }
    TensorArg* tensor_data() { return std::launder(reinterpret_cast<TensorArg*>(tensor_storage_)); }
    const TensorArg* tensor_data() const {
        return std::launder(reinterpret_cast<const TensorArg*>(tensor_storage_));
    }

    std::uint32_t tensor_count_ = 0;
    std::uint32_t scalar_count_ = 0;
    std::uint32_t block_num_ = 1;
    std::uint32_t dep_count_ = 0;
    std::uint32_t requested_tensors_ = 0;
    std::uint32_t null_view_ = 0;
    bool deps_set_ = false;
    bool null_deps_ = false;
    bool deps_twice_ = false;
    bool too_many_ = false;
    bool after_overflow_ = false;
    std::uint32_t after_count_ = 0;
    std::uint32_t created_ = 0;
    const TaskId* deps_ = nullptr;
    // Uninitialised on purpose: only the first tensor_count_ / scalar_count_ entries are ever written or
    // read, so building an Args costs what its arguments cost, not the 1.5 KiB of capacity.
    alignas(TensorArg) std::byte tensor_storage_[kMaxTensorArgs * sizeof(TensorArg)];
    std::uint64_t scalars_[kMaxScalarArgs];
    alignas(TaskId) std::byte after_storage_[kMaxAfterDependencies * sizeof(TaskId)];  // uninitialised too
};

}  // namespace pto
