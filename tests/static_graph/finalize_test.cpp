// docs/design/static-graph.md, conformance: TemplateBuilder::finalize precomputes the offset tables (fanin,
// fanout, sinks) and rejects every malformed description with a pto::Error whose code fits and whose message
// names the template and the node (label or kernel) or slot.
#include <catch2/catch.hpp>

#include <initializer_list>
#include <string>
#include <vector>

#include "support/catch_printers.h"
#include "pto/static_graph/template.h"
#include "support/expect_error.h"

using namespace pto;

namespace {

constexpr FuncId kA{1};
constexpr FuncId kB{2};

using pto::test::expect_error;

}  // namespace

//        ┌─► 1 ─┐
//   0 ───┤      ├─► 3      edges declared out of order and one twice; 3 is the only sink
//        └─► 2 ─┘
TEST_CASE("finalize precomputes per-node offset tables, fanin counts and sinks", "[static_graph][finalize]") {
    TemplateBuilder b("diamond", BoundaryMode::Manual);
    const auto x = b.tensor_slot("x");
    const auto n0 = b.add_aiv(kA, NodeArgs().input(x).label("load"));
    const auto n1 = b.add_aic(kB, NodeArgs().block_num(4));
    const auto n2 = b.add_aic(kB, NodeArgs().block_num(4));
    const auto n3 = b.add_mix(kA, kB, kB, NodeArgs().block_num(2));
    b.edge(n1, n3).edge(n0, n2).edge(n0, n1).edge(n2, n3).edge(n0, n1).boundary_input(n0);
    Template t = b.finalize();

    CHECK(t.name() == "diamond");
    CHECK(t.mode() == BoundaryMode::Manual);
    CHECK(t.node_count() == 4);
    CHECK(t.edge_count() == 4);  // the repeated edge is merged
    CHECK(std::vector<std::uint32_t>(t.consumer_offsets(0).begin(), t.consumer_offsets(0).end()) ==
          std::vector<std::uint32_t>{1, 2});
    CHECK(std::vector<std::uint32_t>(t.consumer_offsets(1).begin(), t.consumer_offsets(1).end()) ==
          std::vector<std::uint32_t>{2});
    CHECK(std::vector<std::uint32_t>(t.producer_offsets(3).begin(), t.producer_offsets(3).end()) ==
          std::vector<std::uint32_t>{1, 2});
    CHECK(t.producer_offsets(0).empty());
    CHECK(std::vector<std::uint32_t>(t.sinks().begin(), t.sinks().end()) == std::vector<std::uint32_t>{3});
    CHECK(t.has_boundary_inputs());
    CHECK(t.find_tensor_slot("x").has_value());
    CHECK_FALSE(t.find_tensor_slot("y").has_value());
    CHECK(t.node_label(0) == "load");
    CHECK(t.node_label(1) == "AIC kernel func 2");
    CHECK(t.node_label(3) == "MIX kernels func 1/2/2");

    // The moved-to Template keeps the same tables (instances in flight point into them).
    const std::uint32_t* table = t.producer_offsets(3).data();
    Template moved = std::move(t);
    CHECK(moved.producer_offsets(3).data() == table);
}

TEST_CASE("an edge to a later node, to the node itself or to no node is rejected",
          "[static_graph][finalize][errors]") {
    auto two_nodes = [] {
        TemplateBuilder b("pair", BoundaryMode::Manual);
        b.add_aiv(kA, NodeArgs().label("first"));
        b.add_aic(kB, NodeArgs().label("second"));
        return b;
    };
    expect_error([&] { (void)two_nodes().edge(1, 0).finalize(); }, ErrorCode::InvalidTemplate,
                 {"template 'pair'", "node 0 (first)", "node 1 (second)", "a later node"});
    expect_error([&] { (void)two_nodes().edge(1, 1).finalize(); }, ErrorCode::InvalidTemplate,
                 {"template 'pair'", "node 1 (second)", "itself"});
    expect_error([&] { (void)two_nodes().edge(0, 7).finalize(); }, ErrorCode::InvalidTemplate,
                 {"template 'pair'", "node 7", "2 nodes"});
}

TEST_CASE("block_num must be in 1..65535, and 1 for dependency-only nodes",
          "[static_graph][finalize][errors]") {
    for (std::uint32_t bad : {0u, 65536u}) {
        TemplateBuilder b("spmd", BoundaryMode::Manual);
        b.add_aiv(kA, NodeArgs());
        b.add_aic(kB, NodeArgs().block_num(bad).label("q_proj"));
        expect_error([&] { (void)b.finalize(); }, ErrorCode::InvalidBlockNum,
                     {"template 'spmd'", "node 1 (q_proj)", "block_num = " + std::to_string(bad)});
    }
    TemplateBuilder b("join", BoundaryMode::Manual);
    b.add_dependency_only(NodeArgs().block_num(2));
    expect_error([&] { (void)b.finalize(); }, ErrorCode::InvalidBlockNum,
                 {"template 'join'", "node 0", "block_num 1"});
}

TEST_CASE("core types, kernels and node kinds are checked per node", "[static_graph][finalize][errors]") {
    {
        TemplateBuilder b("cores", BoundaryMode::Manual);
        b.add_node(TaskKind::Kernel, CoreType::None, {kA, kA, kA}, NodeArgs());
        expect_error([&] { (void)b.finalize(); }, ErrorCode::InvalidArgument,
                     {"template 'cores'", "node 0", "AIC, AIV or MIX"});
    }
    {
        TemplateBuilder b("cores", BoundaryMode::Manual);
        b.add_node(TaskKind::DependencyOnly, CoreType::AIV, {kA, kA, kA}, NodeArgs());
        expect_error([&] { (void)b.finalize(); }, ErrorCode::InvalidArgument,
                     {"template 'cores'", "node 0", "none"});
    }
    {
        TemplateBuilder b("allocs", BoundaryMode::Manual);
        b.add_node(TaskKind::Alloc, CoreType::None, {FuncId{}, FuncId{}, FuncId{}}, NodeArgs());
        expect_error([&] { (void)b.finalize(); }, ErrorCode::InvalidArgument,
                     {"template 'allocs'", "node 0", "alloc_tensors"});
    }
    {
        TemplateBuilder b("mix", BoundaryMode::Manual);
        b.add_aiv(kA, NodeArgs());
        b.add_mix(kA, FuncId{}, kB, NodeArgs().label("out_proj"));
        expect_error([&] { (void)b.finalize(); }, ErrorCode::InvalidTemplate,
                     {"template 'mix'", "node 1 (out_proj)", "three kernels", "kernel 1"});
    }
    {
        TemplateBuilder b("nokernel", BoundaryMode::Manual);
        b.add_aic(FuncId{}, NodeArgs());
        expect_error([&] { (void)b.finalize(); }, ErrorCode::InvalidTemplate,
                     {"template 'nokernel'", "node 0", "needs a kernel"});
    }
    TemplateBuilder empty("empty", BoundaryMode::Manual);
    expect_error([&] { (void)empty.finalize(); }, ErrorCode::InvalidTemplate,
                 {"template 'empty'", "at least one node"});
}

TEST_CASE("slots must be the template's own, with unique names", "[static_graph][finalize][errors]") {
    {
        TemplateBuilder other("other", BoundaryMode::Manual);
        for (int i = 0; i < 3; ++i)
            other.tensor_slot("s" + std::to_string(i));
        const auto foreign = other.tensor_slot("s3");  // index 3: out of range for `b`
        TemplateBuilder b("slots", BoundaryMode::Manual);
        const auto x = b.tensor_slot("x");
        b.add_aiv(kA, NodeArgs().input(x).label("copy"));
        b.add_aiv(kA, NodeArgs().input(foreign).label("bad"));
        expect_error([&] { (void)b.finalize(); }, ErrorCode::InvalidTemplate,
                     {"template 'slots'", "node 1 (bad)", "tensor argument 0", "tensor slot 3"});
    }
    {
        TemplateBuilder b("scalars", BoundaryMode::Manual);
        b.add_aiv(kA, NodeArgs().scalar(ScalarSlot{0}).label("uses_missing"));
        expect_error([&] { (void)b.finalize(); }, ErrorCode::InvalidTemplate,
                     {"template 'scalars'", "node 0 (uses_missing)", "scalar argument 0", "scalar slot 0"});
    }
    {
        TemplateBuilder b("names", BoundaryMode::Manual);
        b.tensor_slot("q");
        b.tensor_slot("q");
        b.add_aiv(kA, NodeArgs());
        expect_error([&] { (void)b.finalize(); }, ErrorCode::InvalidTemplate,
                     {"template 'names'", "'q'", "twice"});
    }
    {
        TemplateBuilder b("names", BoundaryMode::Manual);
        b.scalar_slot("");
        b.add_aiv(kA, NodeArgs());
        expect_error([&] { (void)b.finalize(); }, ErrorCode::InvalidTemplate,
                     {"template 'names'", "scalar slot 0", "no name"});
    }
}

TEST_CASE("constant views need a buffer and every rank is checked", "[static_graph][finalize][errors]") {
    {
        TemplateBuilder b("consts", BoundaryMode::Manual);
        TensorView v = TensorView::contiguous(nullptr, DataType::F32, {4});
        b.add_aiv(kA, NodeArgs().input(v).label("reader"));
        expect_error([&] { (void)b.finalize(); }, ErrorCode::InvalidTensor,
                     {"template 'consts'", "node 0 (reader)", "constant tensor argument 0", "no buffer"});
    }
    {
        TemplateBuilder b("ranks", BoundaryMode::Manual);
        TensorCreateInfo info;
        info.ndim = 6;
        b.add_aiv(kA, NodeArgs().output(info));
        expect_error([&] { (void)b.finalize(); }, ErrorCode::InvalidTensor,
                     {"template 'ranks'", "node 0", "rank"});
    }
    {
        TemplateBuilder b("wide", BoundaryMode::Manual);
        const auto x = b.tensor_slot("x");
        NodeArgs args;
        for (std::uint32_t i = 0; i <= kMaxTensorArgs; ++i)
            args.input(x);
        b.add_aiv(kA, args.label("wide_kernel"));
        expect_error([&] { (void)b.finalize(); }, ErrorCode::TooManyArguments,
                     {"template 'wide'", "node 0 (wide_kernel)", "17 tensor"});
    }
}

TEST_CASE("boundary declarations must name existing nodes and arguments and fit the mode",
          "[static_graph][finalize][errors][boundary]") {
    auto body = [](BoundaryMode mode) {
        TemplateBuilder b("edge_case", mode);
        const auto x = b.tensor_slot("x");
        b.add_aiv(kA, NodeArgs().input(x).output(TensorCreateInfo(DataType::F32, {4})).label("head"));
        return b;
    };
    expect_error([&] { (void)body(BoundaryMode::Manual).boundary_input(5).finalize(); },
                 ErrorCode::InvalidTemplate, {"template 'edge_case'", "boundary_input", "node 5"});
    expect_error([&] { (void)body(BoundaryMode::Tensormap).boundary_input(0, 2).finalize(); },
                 ErrorCode::InvalidTemplate, {"template 'edge_case'", "node 0 (head)", "tensor argument 2"});
    expect_error([&] { (void)body(BoundaryMode::Tensormap).boundary_output(3, 0).finalize(); },
                 ErrorCode::InvalidTemplate, {"template 'edge_case'", "boundary_output", "node 3"});
    expect_error([&] { (void)body(BoundaryMode::Manual).boundary_input(0, 0).finalize(); },
                 ErrorCode::InvalidTemplate, {"template 'edge_case'", "node 0 (head)", "manual"});
    expect_error([&] { (void)body(BoundaryMode::Tensormap).boundary_input(0, 1).finalize(); },
                 ErrorCode::InvalidTemplate, {"template 'edge_case'", "node 0 (head)", "create-info"});
    // The same declarations in range are fine, and a create-info output may be a boundary output.
    const Template t = body(BoundaryMode::Tensormap).boundary_input(0, 0).boundary_output(0, 1).finalize();
    CHECK(t.has_boundary_inputs());
}

TEST_CASE("tensormap boundaries named by slot resolve to the arguments the slot feeds",
          "[static_graph][finalize][errors][boundary]") {
    struct Body {
        TemplateBuilder b{"named", BoundaryMode::Tensormap};
        TensorSlot x = b.tensor_slot("x");
        TensorSlot y = b.tensor_slot("y");
        TensorSlot unused = b.tensor_slot("unused");
        Body() {
            b.add_aiv(kA, NodeArgs().input(x).output(y).label("head"));
            b.add_aiv(kA, NodeArgs().input(y).label("tail"));
        }
    };
    Body ok;
    const Template t = ok.b.boundary_input(0, ok.x).boundary_output(0, ok.y).finalize();
    CHECK(t.has_boundary_inputs());
    // A slot that feeds none of the node's arguments is a mistake, named with the slot's name.
    Body wrong_node;
    expect_error([&] { (void)wrong_node.b.boundary_input(1, wrong_node.x).finalize(); },
                 ErrorCode::InvalidTemplate,
                 {"template 'named'", "node 1 (tail)", "boundary_input", "'x'", "feeds no tensor argument"});
    Body unused_slot;
    expect_error([&] { (void)unused_slot.b.boundary_output(0, unused_slot.unused).finalize(); },
                 ErrorCode::InvalidTemplate, {"node 0 (head)", "boundary_output", "'unused'"});
}

TEST_CASE("a node with more internal consumers than a task slot counts is rejected",
          "[static_graph][finalize][errors]") {
    TemplateBuilder b("fan", BoundaryMode::Manual);
    const auto root = b.add_aiv(kA, NodeArgs().label("root"));
    for (std::uint32_t i = 0; i < 65536; ++i)
        b.edge(root, b.add_dependency_only());
    expect_error([&] { (void)b.finalize(); }, ErrorCode::InvalidTemplate,
                 {"template 'fan'", "node 0 (root)", "65536 internal consumers"});
}
