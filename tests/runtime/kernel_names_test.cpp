// KernelNames (white box): one FuncId -> name rule for the graph exports, the trace, the timing tables and
// the model's timeline.
#include <catch2/catch.hpp>

#include "kernel_names.h"

using namespace pto;

TEST_CASE("kernel names: registered name, else func N, and none for no kernel", "[runtime][export]") {
    GraphRecord g;
    g.kernels = {KernelSummary{FuncId{2}, "qk", 1.0}, KernelSummary{FuncId{5}, "", 1.0},
                 KernelSummary{FuncId{}, "ignored", 1.0}};
    const detail::KernelNames name(g);
    CHECK(name(FuncId{2}) == "qk");
    CHECK(name(FuncId{5}) == "func 5");  // registered without a name
    CHECK(name(FuncId{0}) == "func 0");  // below a registered id, never registered
    CHECK(name(FuncId{9}) == "func 9");  // past every registered id
    CHECK(name(FuncId{}) == "none");
    CHECK(detail::KernelNames(GraphRecord{})(FuncId{1}) == "func 1");
}
