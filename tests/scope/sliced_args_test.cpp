// Args' sliced inputs, outputs and inouts: the view they add is exactly view.slice(...).slice(...), the
// kernel receives it and the tensormap discovers edges from it; a slice that leaves its view throws
// InvalidTensor naming the argument, the slice and the view's extent, and leaves the list unchanged.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include "pto/scope/orchestration.h"
#include "support/expect_error.h"
#include "support/same_view.h"

using namespace pto;
using pto::test::same_view;

namespace {

constexpr FuncId kFill{0};
constexpr FuncId kRead{1};

/// fill: writes scalar 0 into every element of its one tensor argument (an F32 view of any rank <= 3).
int fill(const KernelContext& ctx) {
    const TensorView& v = ctx.tensors[0].view;
    const float value = ctx.scalar_as<float>(0);
    for (std::uint32_t i = 0; i < v.shape[0]; ++i)
        for (std::uint32_t j = 0; j < (v.ndim > 1 ? v.shape[1] : 1); ++j)
            for (std::uint32_t k = 0; k < (v.ndim > 2 ? v.shape[2] : 1); ++k)
                v.data<float>()[i * v.strides[0] + (v.ndim > 1 ? j * v.strides[1] : 0) +
                                (v.ndim > 2 ? k * v.strides[2] : 0)] = value;
    return 0;
}

int read(const KernelContext&) {
    return 0;
}

RuntimeConfig compute_config() {
    RuntimeConfig c;
    c.executor = Executor::Compute;
    c.record_graph = true;
    return c;
}

void register_kernels(Runtime& rt) {
    rt.register_kernel(kFill, {"fill", 1.0, &fill});
    rt.register_kernel(kRead, {"read", 1.0, &read});
}

}  // namespace

TEST_CASE("a sliced argument is the view slice() builds, with its direction", "[scope][args]") {
    std::vector<float> data(4 * 6 * 8);
    const TensorView whole = TensorView::contiguous(data.data(), DataType::F32, {4, 6, 8});
    const Slice row{0, 2, 1}, cols{1, 1, 4}, depth{2, 3, 5};
    Args args;
    args.input(whole, row)
        .output(whole, row, cols)
        .inout(whole, depth, cols, row)
        .input(whole.untracked(), cols)
        .output(whole);
    REQUIRE(args.tensors().size() == 5);
    CHECK_FALSE(args.is_malformed());
    CHECK(same_view(args.tensors()[0].view, whole.slice(row)));
    CHECK(same_view(args.tensors()[1].view, whole.slice(row).slice(cols)));
    CHECK(same_view(args.tensors()[2].view, whole.slice(depth).slice(cols).slice(row)));
    CHECK(same_view(args.tensors()[3].view, whole.untracked().slice(cols)));
    CHECK(same_view(args.tensors()[4].view, whole));
    CHECK(args.tensors()[0].direction == Direction::In);
    CHECK(args.tensors()[1].direction == Direction::Out);
    CHECK(args.tensors()[2].direction == Direction::InOut);
    CHECK(args.tensors()[3].direction == Direction::In);
    // A copy keeps them.
    const Args copy = args;
    REQUIRE(copy.tensors().size() == 5);
    CHECK(same_view(copy.tensors()[2].view, args.tensors()[2].view));
}

TEST_CASE("kernels receive sliced arguments, and the tensormap discovers edges from them", "[scope][args]") {
    Runtime rt(compute_config());
    register_kernels(rt);
    std::vector<float> data(4 * 6, 0.0f);
    const TensorView m = TensorView::contiguous(data.data(), DataType::F32, {4, 6});
    TaskId upper, lower, reader_of_upper, reader_of_corner;
    pto::run(rt, [&] {
        PTO2_SCOPE() {
            // Rows 0-1 and rows 2-3 of columns 1-4: disjoint, so the writers do not order each other.
            upper =
                submit_aiv(kFill, Args().output(m, Slice{0, 0, 2}, Slice{1, 1, 4}).scalar(1.0f)).task_id();
            lower =
                submit_aiv(kFill, Args().output(m, Slice{0, 2, 2}, Slice{1, 1, 4}).scalar(2.0f)).task_id();
            reader_of_upper = submit_aiv(kRead, Args().input(m, Slice{0, 1, 1})).task_id();
            // Column 5 of rows 2-3 was written by nobody.
            reader_of_corner = submit_aiv(kRead, Args().input(m, Slice{0, 2, 2}, Slice{1, 5, 1})).task_id();
        }
    });
    for (std::uint32_t r = 0; r < 4; ++r)
        for (std::uint32_t c = 0; c < 6; ++c) {
            INFO("row " << r << " column " << c);
            const float expected = c == 0 || c == 5 ? 0.0f : (r < 2 ? 1.0f : 2.0f);
            CHECK(data[r * 6 + c] == expected);
        }
    const GraphRecord& g = rt.graph();
    auto producers = [&](TaskId id) {
        const std::span<const TaskId> p =
            g.producers_of(g.tasks.at(static_cast<std::size_t>(g.index_of(id))));
        return std::vector<TaskId>(p.begin(), p.end());
    };
    CHECK(producers(lower).empty());
    CHECK(producers(reader_of_upper) == std::vector<TaskId>{upper});
    CHECK(producers(reader_of_corner).empty());
}

TEST_CASE(
    "a slice that leaves its view throws InvalidTensor naming the argument and the slice, and adds nothing",
    "[scope][args][misuse]") {
    std::vector<float> data(4 * 6);
    const TensorView m = TensorView::contiguous(data.data(), DataType::F32, {4, 6});
    Args args;
    args.input(m).scalar(1u);
    // The second slice of argument 1 runs past dimension 0, which the first slice narrowed to 2 rows.
    test::expect_error(
        [&] {
            args.input(m, Slice{0, 2, 2}, Slice{0, 1, 2}, Slice{1, 9, 1});
        },
        ErrorCode::InvalidTensor,
        {"tensor argument 1: slice 1 (dimension 0, [1, 3)) leaves the view",
         "whose dimension 0 has 2 indices"});
    // A dimension the view does not have.
    test::expect_error(
        [&] {
            args.output(m, Slice{3, 0, 1});
        },
        ErrorCode::InvalidTensor,
        {"tensor argument 1: slice 0 (dimension 3, [0, 1)) leaves the view", "which has rank 2"});
    test::expect_error(
        [&] {
            args.inout(m, Slice{1, 5, 2});
        },
        ErrorCode::InvalidTensor, {"slice 0 (dimension 1, [5, 7))", "has 6 indices"});
    // The refused arguments left no trace: the list still holds its one tensor, and the next one is 1.
    CHECK(args.tensors().size() == 1);
    CHECK(args.requested_tensors() == 1);
    CHECK_FALSE(args.is_malformed());
    args.output(m, Slice{0, 3, 1});
    REQUIRE(args.tensors().size() == 2);
    CHECK(same_view(args.tensors()[1].view, m.slice(0, 3, 1)));
    // Thrown inside a run, it ends the run like any exception of the orchestration, and the runtime takes
    // the next one.
    Runtime rt(compute_config());
    register_kernels(rt);
    test::expect_error([&] { pto::run(rt, [&] {
                                 submit_aiv(kRead, Args().input(m, Slice{0, 4, 1}));
                             }); },
                       ErrorCode::InvalidTensor, {"tensor argument 0: slice 0 (dimension 0, [4, 5))"});
    const RunReport ok = pto::run(rt, [&] {
        submit_aiv(kFill, Args().output(m, Slice{0, 3, 1}).scalar(7.0f));
    });
    CHECK(ok.completed == 1);
    CHECK(data[3 * 6 + 5] == 7.0f);
}

TEST_CASE("sliced arguments past the limit are refused as too many arguments", "[scope][args][misuse]") {
    Runtime rt(compute_config());
    register_kernels(rt);
    std::vector<float> data(64);
    const TensorView v = TensorView::contiguous(data.data(), DataType::F32, {64});
    Args args;
    for (std::uint32_t i = 0; i <= kMaxTensorArgs; ++i)
        args.input(v, Slice{0, i, 1});
    CHECK(args.tensors().size() == kMaxTensorArgs);
    CHECK(args.has_too_many_arguments());
    test::expect_error([&] { pto::run(rt, [&] { submit_aiv(kRead, args); }); }, ErrorCode::TooManyArguments,
                       {std::to_string(kMaxTensorArgs + 1) + " tensor arguments"});
}
