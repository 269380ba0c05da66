// Runtime::submit_instance trusts its offset tables in the completion protocol (a consumer entry releases
// a node, a producer entry counts in its fanin), so tables that disagree, repeat an offset or overflow the
// 16-bit counts are refused at the call, naming the node and the offset, before anything changes; tables
// checked once as InstanceEdges are held by the runtime until the instance's last task retires.
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/expect_error.h"
#include "pto/runtime/detail/task_port.h"
#include "pto/runtime/instance_edges.h"
#include "pto/runtime/runtime.h"

using namespace pto;
using test::expect_error;

namespace {

constexpr FuncId kNop{0};

/// Tables: per-node consumer and producer offset lists that the InstanceNode spans point into.
struct Tables {
    std::vector<std::vector<std::uint32_t>> consumers, producers;

    explicit Tables(std::size_t n) : consumers(n), producers(n) {}

    std::vector<InstanceNode> nodes() const {
        std::vector<InstanceNode> out(consumers.size());
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i].spec.core = CoreType::AIV;
            out[i].spec.funcs[0] = kNop;
            out[i].consumer_offsets = consumers[i];
            out[i].producer_offsets = producers[i];
        }
        return out;
    }

    static OffsetLists lists(const std::vector<std::vector<std::uint32_t>>& per_node) {
        OffsetLists l;
        l.first.push_back(0);
        for (const auto& list : per_node) {
            l.offsets.insert(l.offsets.end(), list.begin(), list.end());
            l.first.push_back(static_cast<std::uint32_t>(l.offsets.size()));
        }
        return l;
    }
};

RuntimeConfig small_config() {
    // Tables accepted by mistake would deadlock the run, which the runtime proves within milliseconds
    // whatever the stall timeout; a short timeout would only misfire on a slow sanitizer build.
    return RuntimeConfig{};
}

/// expect_refused: submit_instance of `t` throws `code` naming every part, submits nothing, and the run
/// then ends cleanly with a good instance.
void expect_refused(Runtime& rt, const Tables& t, ErrorCode code, std::initializer_list<std::string> parts) {
    pto::detail::TaskPort(rt).begin_run();
    auto nodes = t.nodes();
    const TaskId before = pto::detail::TaskPort(rt).next_task_id();
    expect_error([&] { pto::detail::TaskPort(rt).submit_instance(nodes, false); }, code, parts);
    CHECK(pto::detail::TaskPort(rt).next_task_id() == before);
    Tables good(2);
    good.consumers[0] = {1};
    good.producers[1] = {1};
    auto good_nodes = good.nodes();
    pto::detail::TaskPort(rt).submit_instance(good_nodes, false);
    const RunReport r = pto::detail::TaskPort(rt).end_run();
    CHECK(r.submitted == 2);
    CHECK(r.completed == 2);
}

}  // namespace

TEST_CASE("submit_instance refuses a consumer entry its consumer does not list as producer",
          "[runtime][instance]") {
    Runtime rt(small_config());
    // Node 0 feeds 1 and 2, but node 2 does not wait for it: node 2 would start before node 0 finished.
    Tables t(3);
    t.consumers[0] = {1, 2};
    t.producers[1] = {1};
    expect_refused(rt, t, ErrorCode::InvalidTemplate,
                   {"node 0", "consumer offset +2", "node 2", "producer offset -2", "before"});
}

TEST_CASE("submit_instance refuses a producer entry its producer does not list as consumer",
          "[runtime][instance]") {
    Runtime rt(small_config());
    // Node 2 waits for node 0, which never releases it: node 2 would wait forever.
    Tables t(3);
    t.consumers[0] = {1};
    t.producers[1] = {1};
    t.producers[2] = {2};
    expect_refused(rt, t, ErrorCode::InvalidTemplate,
                   {"node 2", "producer offset -2", "node 0", "consumer offset +2", "wait forever"});
}

TEST_CASE("submit_instance refuses repeated and unordered offsets", "[runtime][instance]") {
    Runtime rt(small_config());
    Tables repeated(2);
    repeated.consumers[0] = {1, 1};  // would release node 1 twice
    repeated.producers[1] = {1};
    expect_refused(rt, repeated, ErrorCode::InvalidTemplate, {"node 0", "+1 after +1", "ascending"});
    Tables unordered(3);
    unordered.consumers[0] = {2};
    unordered.consumers[1] = {1};
    unordered.producers[2] = {2, 1};
    expect_refused(rt, unordered, ErrorCode::InvalidTemplate, {"node 2", "-1 after -2", "ascending"});
}

TEST_CASE("submit_instance refuses more than 65535 internal consumers or producers of one node",
          "[runtime][instance]") {
    constexpr std::uint32_t kWide = 65536;  // one more than a task's 16-bit count holds
    RuntimeConfig c = small_config();
    c.window_tasks = 1u << 17;
    Runtime rt(c);
    Tables fanout(kWide + 1);
    for (std::uint32_t d = 1; d <= kWide; ++d) {
        fanout.consumers[0].push_back(d);
        fanout.producers[d] = {d};
    }
    expect_refused(rt, fanout, ErrorCode::InvalidTemplate, {"node 0", "65536 internal consumers", "65535"});
    Tables fanin(kWide + 1);
    for (std::uint32_t i = 0; i < kWide; ++i) {
        fanin.consumers[i] = {kWide - i};
        fanin.producers[kWide].push_back(i + 1);
    }
    expect_refused(rt, fanin, ErrorCode::InvalidTemplate, {"node 65536", "65536 internal producers"});
}

TEST_CASE("InstanceEdges::create checks the tables once, naming their owner", "[runtime][instance]") {
    Tables t(3);
    t.consumers[0] = {1, 2};
    t.producers[1] = {1};
    expect_error(
        [&] {
            (void)InstanceEdges::create("template 'bad'", Tables::lists(t.consumers),
                                        Tables::lists(t.producers));
        },
        ErrorCode::InvalidTemplate, {"template 'bad' node 0", "consumer offset +2", "template 'bad' node 2"});
    t.producers[2] = {2};
    const auto edges =
        InstanceEdges::create("template 'good'", Tables::lists(t.consumers), Tables::lists(t.producers));
    CHECK(edges->node_count() == 3);
    CHECK(edges->edge_count() == 2);
    OffsetLists short_index = Tables::lists(t.producers);
    short_index.first.pop_back();
    expect_error(
        [&] { (void)InstanceEdges::create("template 'short'", Tables::lists(t.consumers), short_index); },
        ErrorCode::InvalidTemplate, {"template 'short'", "index ends at"});
}

TEST_CASE("submit_instance with InstanceEdges needs the nodes to carry exactly those tables",
          "[runtime][instance]") {
    Tables t(2);
    t.consumers[0] = {1};
    t.producers[1] = {1};
    const auto edges =
        InstanceEdges::create("template 'pair'", Tables::lists(t.consumers), Tables::lists(t.producers));
    Runtime rt(small_config());
    pto::detail::TaskPort(rt).begin_run();
    auto copies = t.nodes();  // equal offsets, other arrays: not what was checked
    expect_error([&] { pto::detail::TaskPort(rt).submit_instance(copies, edges, false); },
                 ErrorCode::InvalidArgument, {"node 0", "template 'pair'"});
    auto three = Tables(3).nodes();
    expect_error([&] { pto::detail::TaskPort(rt).submit_instance(three, edges, false); },
                 ErrorCode::InvalidArgument, {"3 nodes", "template 'pair'", "2 nodes"});
    std::vector<InstanceNode> nodes = t.nodes();
    for (std::uint32_t k = 0; k < 2; ++k) {
        nodes[k].consumer_offsets = edges->consumers(k);
        nodes[k].producer_offsets = edges->producers(k);
    }
    pto::detail::TaskPort(rt).submit_instance(nodes, edges, false);
    CHECK(pto::detail::TaskPort(rt).end_run().completed == 2);
}

TEST_CASE("the runtime holds InstanceEdges until the instance's last task retires", "[runtime][instance]") {
    RuntimeConfig c = small_config();
    c.orchestration = OrchestrationMode::Serial;  // nothing runs before the orchestration ends
    Runtime rt(c);
    Tables t(3);
    t.consumers[0] = {1, 2};
    t.producers[1] = {1};
    t.producers[2] = {2};
    auto edges =
        InstanceEdges::create("template 'held'", Tables::lists(t.consumers), Tables::lists(t.producers));
    const std::weak_ptr<const InstanceEdges> watch = edges;
    std::vector<InstanceNode> nodes = t.nodes();
    for (std::uint32_t k = 0; k < 3; ++k) {
        nodes[k].consumer_offsets = edges->consumers(k);
        nodes[k].producer_offsets = edges->producers(k);
    }
    pto::detail::TaskPort(rt).begin_run();
    for (int i = 0; i < 4; ++i)
        pto::detail::TaskPort(rt).submit_instance(nodes, edges, false);
    edges.reset();  // the owner lets go while every instance is still in flight
    CHECK_FALSE(watch.expired());
    CHECK(watch.use_count() == 1);  // consecutive instances of one table share one reference
    const RunReport r = pto::detail::TaskPort(rt).end_run();
    CHECK(r.completed == 12);
    CHECK(watch.expired());
}
