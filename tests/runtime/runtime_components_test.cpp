// docs/architecture.md "Components", white-box: the run state machine refuses every transition its diagram
// does not list and lets one thread hold a run at a time; the task window retires in id order, only what no
// scope and no reference holds, handing each task's ring marks back; the edge linker merges duplicate
// producers, skips retired ones, and stages a long list named again from its first selection.
#include <catch2/catch.hpp>

#include <cstdint>
#include <iterator>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "edge_linker.h"
#include "run_state.h"
#include "task_table.h"
#include "task_window.h"

using pto::TaskId;
using pto::detail::EdgeLinker;
using pto::detail::is_legal_transition;
using pto::detail::kLinkRefUnit;
using pto::detail::Outcome;
using pto::detail::RingMarks;
using pto::detail::RunPhase;
using pto::detail::RunState;
using pto::detail::TaskTable;
using pto::detail::TaskWindow;

TEST_CASE("the run phase moves only along its diagram", "[runtime][run_state]") {
    CHECK(is_legal_transition(RunPhase::Idle, RunPhase::Starting));
    CHECK(is_legal_transition(RunPhase::Starting, RunPhase::Orchestrating));
    CHECK(is_legal_transition(RunPhase::Orchestrating, RunPhase::Ending));
    CHECK(is_legal_transition(RunPhase::Ending, RunPhase::Idle));
    CHECK(is_legal_transition(RunPhase::Ending, RunPhase::Draining));
    CHECK(is_legal_transition(RunPhase::Draining, RunPhase::Starting));
    CHECK(is_legal_transition(RunPhase::Idle, RunPhase::Registering));
    CHECK(is_legal_transition(RunPhase::Registering, RunPhase::Idle));
    // A run never skips its start, never returns to orchestrating, and a draining run is only ever claimed.
    CHECK_FALSE(is_legal_transition(RunPhase::Idle, RunPhase::Orchestrating));
    CHECK_FALSE(is_legal_transition(RunPhase::Ending, RunPhase::Orchestrating));
    CHECK_FALSE(is_legal_transition(RunPhase::Draining, RunPhase::Idle));
    CHECK_FALSE(is_legal_transition(RunPhase::Registering, RunPhase::Starting));
    CHECK_FALSE(is_legal_transition(RunPhase::Idle, RunPhase::Draining));
}

TEST_CASE("one thread holds a run; a second claim sees the phase and changes nothing",
          "[runtime][run_state]") {
    RunState run;
    RunPhase seen;
    bool recovering = true;
    REQUIRE(run.claim_run(seen, recovering));
    CHECK_FALSE(recovering);
    run.advance(RunPhase::Orchestrating);
    CHECK(run.is_orchestrating());
    CHECK(run.in_run());
    bool other_claimed = true;
    bool other_orchestrates = true;
    RunPhase other_seen = RunPhase::Idle;
    std::thread([&] {
        bool r = false;
        other_claimed = run.claim_run(other_seen, r);
        other_orchestrates = run.is_orchestrating();
    }).join();
    CHECK_FALSE(other_claimed);
    CHECK(other_seen == RunPhase::Orchestrating);
    CHECK_FALSE(other_orchestrates);
    CHECK_FALSE(run.claim_registering(seen));
    CHECK(seen == RunPhase::Orchestrating);

    run.advance(RunPhase::Ending);
    run.release(RunPhase::Draining);  // kernels of an aborted run still run
    CHECK_FALSE(run.owned_here());
    CHECK_FALSE(run.in_run());
    REQUIRE(run.claim_run(seen, recovering));
    CHECK(recovering);  // the claimant finishes the draining run first
    run.release(RunPhase::Idle);
    REQUIRE(run.claim_registering(seen));
    run.advance(RunPhase::Idle);
    CHECK(run.phase() == RunPhase::Idle);
}

namespace {

/// submit: the window's next task is submitted with `refs` references on its link word.
void submit(TaskWindow& window, TaskTable& tasks, std::uint64_t refs, bool scoped, RingMarks marks) {
    const std::uint32_t slot = window.slot_of(window.next_id());
    tasks[slot].link.store(refs * kLinkRefUnit, std::memory_order_relaxed);
    tasks[slot].outcome.store(Outcome::Ok, std::memory_order_relaxed);
    window.open_slot(slot, scoped);
    window.set_marks(slot, marks);
    window.commit(1);
}

}  // namespace

TEST_CASE("the task window retires in id order what no scope and no reference holds", "[runtime][window]") {
    TaskWindow window(4);
    TaskTable tasks(4);
    window.start_run();
    submit(window, tasks, 0, false, RingMarks{1, 10, 100});
    submit(window, tasks, 1, false, RingMarks{2, 20, 200});  // a consumer still holds it
    submit(window, tasks, 0, true, RingMarks{3, 30, 300});   // a scope holds it
    submit(window, tasks, 0, false, RingMarks{4, 40, 400});
    CHECK_FALSE(window.has_room(1));
    CHECK(window.slot_of(5) == window.slot_of(1));
    CHECK_FALSE(window.slot_is_free_for(4));  // task 0 holds the slot task 4 will take

    std::vector<std::uint64_t> freed;
    const auto free_rings = [&](const RingMarks& m) { freed.push_back(m.heap_end); };
    CHECK(window.retire(tasks, free_rings) == 1);  // task 1 blocks the rest, finished or not
    CHECK(freed == std::vector<std::uint64_t>{10});
    // What the orchestrator may claim ahead (Runtime::Impl::claim_ahead): retired tasks' slots only.
    CHECK(window.slot_is_free_for(4));
    CHECK_FALSE(window.slot_is_free_for(5));

    tasks[window.slot_of(1)].link.store(0, std::memory_order_relaxed);
    tasks[window.slot_of(1)].outcome.store(Outcome::Failed, std::memory_order_relaxed);
    CHECK(window.retire(tasks, free_rings) == 2);  // task 2's scope still holds it
    CHECK(window.is_scope_held(2));
    CHECK(window.scope_held_count() == 1);

    window.release_scope(0, 3);
    CHECK(window.retire(tasks, free_rings) == 4);
    CHECK(window.all_retired());
    CHECK(freed == std::vector<std::uint64_t>{10, 20, 30, 40});
    CHECK(window.retired().is_unsuccessful(TaskId{1}));
    CHECK_FALSE(window.retired().is_unsuccessful(TaskId{0}));
    CHECK(window.published_retired() == 4);
}

TEST_CASE("selecting and staging in one pass stages one edge per distinct live producer",
          "[runtime][linker]") {
    TaskWindow window(8);
    TaskTable tasks(8);
    EdgeLinker linker(8);
    pto::detail::EdgePool edges(8);
    pto::OrchestratorStats stats;
    window.start_run();
    submit(window, tasks, 0, false, RingMarks{});  // task 0: retires below
    submit(window, tasks, 1, false, RingMarks{});  // task 1
    submit(window, tasks, 1, false, RingMarks{});  // task 2
    window.retire(tasks, [](const RingMarks&) {});
    REQUIRE(window.retired_before() == 1);
    submit(window, tasks, 1, false, RingMarks{});  // task 3: the consumer
    const std::uint32_t consumer = window.slot_of(3);
    const TaskId producers[] = {TaskId{2}, TaskId{0}, TaskId{1}, TaskId{2}};
    const std::uint64_t first_node = edges.head();
    CHECK(linker.select_and_stage(TaskId{3}, consumer, producers, window, tasks[consumer], edges, stats) ==
          2);
    CHECK(stats.edges_duplicate == 1);
    CHECK(stats.edges_to_retired == 1);
    CHECK(tasks[consumer].outcome.load() == Outcome::Ok);
    // One node each, in the order the producers were named, each on its producer's private list.
    REQUIRE(edges.head() == first_node + 2);
    CHECK(edges.at(first_node).producer_slot == window.slot_of(2));
    CHECK(edges.at(first_node + 1).producer_slot == window.slot_of(1));
    CHECK(edges.at(first_node).consumer_slot == consumer);
    CHECK(edges.at(first_node + 1).consumer_slot == consumer);
    CHECK(edges.at(first_node).next == 0);
    CHECK(edges.at(first_node + 1).next == 0);
    CHECK(linker.has_staged());
    CHECK_FALSE(linker.is_drained());

    // A second consumer of task 2 is pushed on the same list, in front of the first.
    submit(window, tasks, 1, false, RingMarks{});  // task 4
    const TaskId second[] = {TaskId{2}};
    CHECK(linker.select_and_stage(TaskId{4}, window.slot_of(4), second, window, tasks[window.slot_of(4)],
                                  edges, stats) == 1);
    CHECK(edges.at(first_node + 2).next == first_node % edges.capacity() + 1);  // 1 + the first node's index
}

namespace {

/// staged_producers: the producer slots of the `count` edge nodes allocated from `first` on.
std::vector<std::uint32_t> staged_producers(const pto::detail::EdgePool& edges, std::uint64_t first,
                                            std::uint64_t count) {
    std::vector<std::uint32_t> slots;
    for (std::uint64_t n = first; n < first + count; ++n)
        slots.push_back(edges.at(n).producer_slot);
    return slots;
}

}  // namespace

TEST_CASE("a long producer list named again stages the same edges as its first selection",
          "[runtime][linker]") {
    TaskWindow window(64);
    TaskTable tasks(64);
    EdgeLinker linker(64);
    pto::detail::EdgePool edges(256);
    pto::OrchestratorStats stats;
    window.start_run();
    for (int i = 0; i < 6; ++i)
        submit(window, tasks, 1, false, RingMarks{});  // tasks 0..5: the producers
    const auto consume = [&](std::span<const TaskId> producers) {
        const TaskId id{window.next_id()};
        submit(window, tasks, 1, false, RingMarks{});
        const std::uint32_t slot = window.slot_of(id.value);
        return linker.select_and_stage(id, slot, producers, window, tasks[slot], edges, stats);
    };
    const std::vector<std::uint32_t> first_five = {window.slot_of(0), window.slot_of(1), window.slot_of(2),
                                                   window.slot_of(3), window.slot_of(4)};

    TaskId list[] = {TaskId{0}, TaskId{1}, TaskId{2}, TaskId{3}, TaskId{4}, TaskId{2}};
    REQUIRE(std::size(list) >= EdgeLinker::kMinRemembered);
    CHECK_FALSE(linker.remembers(list, window.run_first_id()));
    std::uint64_t node = edges.head();
    CHECK(consume(list) == 5);  // task 6
    CHECK(staged_producers(edges, node, 5) == first_five);
    CHECK(linker.remembers(list, window.run_first_id()));

    // An equal list in another array, after a short list that neither uses nor replaces the remembered
    // one: the same edges, each pushed in front of the first consumer's node of its producer.
    const TaskId short_list[] = {TaskId{5}};
    CHECK(consume(short_list) == 1);  // task 7
    const std::vector<TaskId> copy(std::begin(list), std::end(list));
    REQUIRE(linker.remembers(copy, window.run_first_id()));
    const std::uint64_t second = edges.head();
    CHECK(consume(copy) == 5);  // task 8
    CHECK(staged_producers(edges, second, 5) == first_five);
    for (std::uint64_t k = 0; k < 5; ++k) {
        CHECK(edges.at(second + k).consumer_slot == window.slot_of(8));
        CHECK(edges.at(second + k).next == (node + k) % edges.capacity() + 1);
    }
    CHECK(stats.edges_duplicate == 2);  // task 2 named twice, by each consumer

    // The same array changed in place is a new list: selected (and remembered) again.
    list[4] = TaskId{5};
    CHECK_FALSE(linker.remembers(list, window.run_first_id()));
    node = edges.head();
    CHECK(consume(list) == 5);  // task 9
    CHECK(staged_producers(edges, node, 5) == std::vector<std::uint32_t>{window.slot_of(0), window.slot_of(1),
                                                                         window.slot_of(2), window.slot_of(3),
                                                                         window.slot_of(5)});
    CHECK(linker.remembers(list, window.run_first_id()));
    CHECK(stats.edges_duplicate == 3);
}

TEST_CASE(
    "a remembered list is selected again once one of its staged producers retired, and never outlives "
    "its run",
    "[runtime][linker]") {
    TaskWindow window(16);
    TaskTable tasks(16);
    EdgeLinker linker(16);
    pto::detail::EdgePool edges(64);
    pto::OrchestratorStats stats;
    window.start_run();
    submit(window, tasks, 0, false, RingMarks{});  // task 0: no reference, retires below
    for (int i = 1; i < 5; ++i)
        submit(window, tasks, 1, false, RingMarks{});  // tasks 1..4
    tasks[window.slot_of(0)].outcome.store(Outcome::Failed);
    const TaskId list[] = {TaskId{0}, TaskId{1}, TaskId{2}, TaskId{3}, TaskId{4}};
    const auto consume = [&](std::span<const TaskId> producers, bool known_remembered) {
        const TaskId id{window.next_id()};
        submit(window, tasks, 1, false, RingMarks{});
        const std::uint32_t slot = window.slot_of(id.value);
        const std::uint32_t staged =
            linker.select_and_stage(id, slot, producers, window, tasks[slot], edges, stats, known_remembered);
        return std::pair{staged, tasks[slot].outcome.load()};
    };
    CHECK(consume(list, false) == std::pair{5u, Outcome::Ok});  // task 5
    REQUIRE(linker.remembers(list, window.run_first_id()));

    // Task 0 retires (failed): the next consumer of the list skips it and is cancelled, as a first selection
    // would do; that selection is remembered, cancellation included.
    window.retire(tasks, [](const RingMarks&) {});
    REQUIRE(window.retired_before() == 1);
    std::uint64_t node = edges.head();
    CHECK(consume(list, true) == std::pair{4u, Outcome::Cancelled});  // task 6
    CHECK(stats.edges_to_retired == 1);
    CHECK(staged_producers(edges, node, 4) == std::vector<std::uint32_t>{window.slot_of(1), window.slot_of(2),
                                                                         window.slot_of(3),
                                                                         window.slot_of(4)});
    REQUIRE(linker.remembers(list, window.run_first_id()));
    node = edges.head();
    CHECK(consume(list, true) == std::pair{4u, Outcome::Cancelled});  // task 7: the remembered selection
    CHECK(stats.edges_to_retired == 2);
    CHECK(staged_producers(edges, node, 4) == std::vector<std::uint32_t>{window.slot_of(1), window.slot_of(2),
                                                                         window.slot_of(3),
                                                                         window.slot_of(4)});

    // Task 1, a producer the selection staged, retires: its slot may hold another task now, so the list is
    // selected again.
    tasks[window.slot_of(1)].link.store(0);
    window.retire(tasks, [](const RingMarks&) {});
    REQUIRE(window.retired_before() == 2);
    node = edges.head();
    CHECK(consume(list, true) == std::pair{3u, Outcome::Cancelled});  // task 8
    CHECK(stats.edges_to_retired == 4);
    CHECK(staged_producers(edges, node, 3) ==
          std::vector<std::uint32_t>{window.slot_of(2), window.slot_of(3), window.slot_of(4)});

    // A new run: the ids of the old one are not taken as checked.
    for (std::uint64_t id = 2; id < window.next_id(); ++id)
        tasks[window.slot_of(id)].link.store(0);
    window.retire(tasks, [](const RingMarks&) {});
    REQUIRE(window.all_retired());
    REQUIRE(linker.remembers(list, window.run_first_id()));
    window.start_run();
    CHECK_FALSE(linker.remembers(list, window.run_first_id()));
}

TEST_CASE("an edge pool appender hands out nodes past the ring's end and commits its head",
          "[runtime][linker]") {
    pto::detail::EdgePool edges(4);
    {
        pto::detail::EdgePool::Appender nodes(edges);
        for (std::uint32_t i = 0; i < 3; ++i)
            CHECK(nodes.next() == i);
        CHECK(edges.head() == 0);  // nothing is visible before commit
        nodes.commit();
    }
    REQUIRE(edges.head() == 3);
    edges.release_until(3);  // the three nodes' consumer retired
    REQUIRE(edges.free_nodes() == 4);
    pto::detail::EdgePool::Appender nodes(edges);
    for (std::uint64_t counter = 3; counter < 6; ++counter) {
        const std::uint32_t index = nodes.next();
        CHECK(index == counter % 4);
        nodes.node(index).consumer_slot = static_cast<std::uint32_t>(counter);
    }
    nodes.commit();
    CHECK(edges.head() == 6);
    for (std::uint64_t counter = 3; counter < 6; ++counter)
        CHECK(edges.at(counter).consumer_slot == counter);
}
