// The tutorial's kernels: their FuncIds and registration with a Runtime. The CPU implementations
// (kernels.cpp) run on the compute executor; the durations feed the timed executor and the model.
#pragma once

#include <pto/runtime/ids.h>
#include <pto/runtime/runtime.h>

namespace tutorial {

// [snippet:func-ids]
inline constexpr pto::FuncId kProject{0};     // AIC: S = X W            (one block per column chunk of S)
inline constexpr pto::FuncId kSoftmax{1};     // AIV: P = softmax(S)     (one block per chunk of rows)
inline constexpr pto::FuncId kMix{2};         // AIC: Y = P V            (one block per column chunk of Y)
inline constexpr pto::FuncId kColumnMean{3};  // AIV: m = mean of Y's rows (one block)
// [/snippet]

/// register_kernels: names, device durations and CPU functions of the four kernels. Not during a run.
void register_kernels(pto::Runtime& runtime);

}  // namespace tutorial
