// docs/api.md (Bindings), docs/design/static-graph.md ("Binding a sub-view in place"): Bindings::tensor(slot,
// view, slices...) binds exactly view.slice(s0).slice(s1)..., built in the binding's storage; a slice that
// leaves the view is an InvalidTensor error naming the template, the slot and the slice, and leaves the slot
// unbound (also when it was bound before in the same instance), so instantiate then reports it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "pto/static_graph/instance.h"
#include "support/catch_printers.h"
#include "support/expect_error.h"
#include "support/same_view.h"

using namespace pto;
using pto::test::expect_error;
using pto::test::same_view;

namespace {

constexpr FuncId kK{0};

//   0 (reads a, writes b) ─► 1 (reads b)      a and b are slots; node 0 is the boundary input
struct Chain {
    Template tpl;
    TensorSlot a, b;

    Chain() {
        TemplateBuilder builder("slices", BoundaryMode::Manual);
        a = builder.tensor_slot("a");
        b = builder.tensor_slot("b");
        const auto first = builder.add_aiv(kK, NodeArgs().input(a).output(b).label("first"));
        const auto second = builder.add_aiv(kK, NodeArgs().input(b).label("second"));
        builder.edge(first, second).boundary_input(first);
        tpl = builder.finalize();
    }
};

/// random_slice: a slice of dimension `dim` inside the view's current extent there.
Slice random_slice(const TensorView& v, int dim, std::mt19937& rng) {
    const std::uint32_t extent = v.shape[dim];
    const std::uint32_t start = std::uniform_int_distribution<std::uint32_t>(0, extent - 1)(rng);
    const std::uint32_t length = std::uniform_int_distribution<std::uint32_t>(1, extent - start)(rng);
    return Slice{dim, start, length};
}

}  // namespace

TEST_CASE("a view bound with slices is the view those slices cut, whatever their number and order",
          "[static_graph][bindings]") {
    std::vector<float> data(6 * 7 * 9);
    // A strided (transposed) view as well as a row-major one: slicing must follow each view's strides.
    const TensorView dense = TensorView::contiguous(data.data(), DataType::F32, {6, 7, 9});
    const TensorView transposed = dense.transpose(0, 2);
    Chain c;
    Bindings b(c.tpl);
    std::mt19937 rng(7);
    Runtime rt(RuntimeConfig{.orchestration = OrchestrationMode::Serial});
    std::uint32_t instances = 0;
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            for (int i = 0; i < 200; ++i) {
                const TensorView& base = i % 2 == 0 ? dense : transposed;
                // Up to three slices, dimensions drawn with repeats: a second slice of the same dimension
                // is relative to the first, as with chained slice() calls.
                TensorView expected = base;
                std::vector<Slice> s;
                const int count = 1 + i % 3;
                for (int k = 0; k < count; ++k) {
                    const int dim = std::uniform_int_distribution<int>(0, 2)(rng);
                    s.push_back(random_slice(expected, dim, rng));
                    expected = expected.slice(s.back());
                }
                if (count == 1)
                    b.tensor(c.a, base, s[0]);
                else if (count == 2)
                    b.tensor(c.a, base, s[0], s[1]);
                else
                    b.tensor(c.a, base, s[0], s[1], s[2]);
                // Binding again replaces the slot's view, sliced or not.
                const Slice row = random_slice(dense, 0, rng);
                b.tensor(c.b, transposed).tensor(c.b, dense, row);
                instantiate(b);
                ++instances;
                INFO("instance " << i);
                CHECK(same_view(b.submitted_view(0, 0), expected));
                CHECK(same_view(b.submitted_view(0, 1), dense.slice(row)));
                CHECK(same_view(b.submitted_view(1, 0), dense.slice(row)));
            }
        }
    });
    CHECK(instances == 200);
    CHECK(rt.last_report().submitted == 400);
}

TEST_CASE("a slice outside the view is an InvalidTensor error naming the slot and leaves it unbound",
          "[static_graph][bindings][errors]") {
    std::vector<float> data(4 * 8);
    const TensorView rows = TensorView::contiguous(data.data(), DataType::F32, {4, 8});
    Chain c;
    Bindings b(c.tpl);
    Runtime rt(RuntimeConfig{.orchestration = OrchestrationMode::Serial});
    pto::run(rt, [&] {
        PTO2_SCOPE(MANUAL) {
            b.tensor(c.b, rows);
            // The slot was bound: a failing rebinding must not leave a half-cut view in it.
            b.tensor(c.a, rows, Slice{0, 1, 2});
            expect_error(
                [&] {
                    b.tensor(c.a, rows, Slice{0, 1, 2}, Slice{1, 6, 3});
                },
                ErrorCode::InvalidTensor,
                {"template 'slices'", "tensor slot 'a'", "slice 1", "dimension 1", "[6, 9)", "has 8 indices",
                 "left unbound"});
            expect_error([&] { instantiate(b); }, ErrorCode::UnboundSlot, {"tensor slot 'a'"});
            expect_error(
                [&] {
                    b.tensor(c.a, rows, Slice{2, 0, 1});
                },
                ErrorCode::InvalidTensor, {"tensor slot 'a'", "slice 0", "dimension 2", "rank 2"});
            expect_error(
                [&] {
                    b.tensor(c.a, rows, Slice{-1, 0, 1});
                },
                ErrorCode::InvalidTensor, {"tensor slot 'a'", "dimension -1"});
            // The same checks as TensorView::slice, and the bindings stay usable.
            expect_error([&] { (void)rows.slice(Slice{1, 6, 3}); }, ErrorCode::InvalidTensor, {"slice"});
            b.tensor(c.a, rows, Slice{1, 6, 2});
            instantiate(b);
            CHECK(same_view(b.submitted_view(0, 0), rows.slice(1, 6, 2)));
        }
    });
    CHECK(rt.last_report().submitted == 2);
}
