// pto::Error and the single list of error codes every layer throws (docs/api.md, docs/reliability.md).
// Messages name the task, scope or capacity knob involved and say what to change.
#pragma once

#include <exception>
#include <string>
#include <string_view>

namespace pto {

/// ErrorCode: why a call was rejected or a run failed. The set is closed; docs/api.md lists cause and fix.
enum class ErrorCode {
    InvalidConfig,      ///< a RuntimeConfig knob is out of range; the message names the knob
    NoActiveRun,        ///< an orchestration call outside pto::run, or a run started inside another
    RunInProgress,      ///< a second run started on a runtime whose run has not ended
    ReentrantCall,      ///< a task-level call from inside a kernel or a scheduler thread; names the call
    ScopeNesting,       ///< an AUTO scope opened inside a MANUAL scope
    InvalidDependency,  ///< set_dependencies names a task not yet submitted, from another run, or invalid
    DependenciesAlreadySet,  ///< set_dependencies called twice on one argument set
    InvalidBlockNum,         ///< block_num < 1 or above the limit of the core type
    TooManyArguments,        ///< more tensors or scalars than kMaxTensorArgs / kMaxScalarArgs
    InvalidTensor,           ///< a malformed view: rank, shape, stride, or a create-info used as input
    UnknownKernel,           ///< a FuncId without a registered kernel where the executor needs one
    CapacityDeadlock,        ///< a ring, heap or pool is full and cannot drain; names the knob to raise
    CapacityExhausted,       ///< a single request larger than a whole ring, heap or pool
    KernelFailed,            ///< a compute kernel threw or returned non-zero; dependants were cancelled
    Stall,                   ///< the watchdog saw no progress for stall_timeout_ms; the report classifies it
    InvalidTemplate,         ///< a static template failed validation at finalize()
    UnboundSlot,             ///< an instance left a template argument slot without a tensor or scalar
    BoundaryMismatch,        ///< template boundary deps do not fit the enclosing scope mode
    InvalidArgument,         ///< any other bad argument to a public call; the message says which
    MissingDependency,  ///< the dependency checker found a hazard the declared dependencies leave unordered
};

/// to_string: the enumerator's name, e.g. "CapacityDeadlock".
[[nodiscard]] std::string_view to_string(ErrorCode code);

/// Error: what every misuse of the public API throws. The runtime stays usable after catching it.
class Error : public std::exception {
  public:
    Error(ErrorCode code, std::string message);

    [[nodiscard]] ErrorCode code() const noexcept { return code_; }
    /// what: "<Code>: <message>".
    [[nodiscard]] const char* what() const noexcept override { return what_.c_str(); }
    /// message: the message without the code prefix.
    [[nodiscard]] std::string_view message() const noexcept;

  private:
    ErrorCode code_;
    std::string what_;
    std::size_t prefix_length_;
};

}  // namespace pto
