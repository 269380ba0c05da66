// Error construction and the names of the error codes; throw helpers for the runtime live in throw.h.
#include "pto/runtime/error.h"

#include <utility>

namespace pto {

std::string_view to_string(ErrorCode code) {
    switch (code) {
        case ErrorCode::InvalidConfig:
            return "InvalidConfig";
        case ErrorCode::NoActiveRun:
            return "NoActiveRun";
        case ErrorCode::RunInProgress:
            return "RunInProgress";
        case ErrorCode::ReentrantCall:
            return "ReentrantCall";
        case ErrorCode::ScopeNesting:
            return "ScopeNesting";
        case ErrorCode::InvalidDependency:
            return "InvalidDependency";
        case ErrorCode::DependenciesAlreadySet:
            return "DependenciesAlreadySet";
        case ErrorCode::InvalidBlockNum:
            return "InvalidBlockNum";
        case ErrorCode::TooManyArguments:
            return "TooManyArguments";
        case ErrorCode::InvalidTensor:
            return "InvalidTensor";
        case ErrorCode::UnknownKernel:
            return "UnknownKernel";
        case ErrorCode::CapacityDeadlock:
            return "CapacityDeadlock";
        case ErrorCode::CapacityExhausted:
            return "CapacityExhausted";
        case ErrorCode::KernelFailed:
            return "KernelFailed";
        case ErrorCode::Stall:
            return "Stall";
        case ErrorCode::InvalidTemplate:
            return "InvalidTemplate";
        case ErrorCode::UnboundSlot:
            return "UnboundSlot";
        case ErrorCode::BoundaryMismatch:
            return "BoundaryMismatch";
        case ErrorCode::InvalidArgument:
            return "InvalidArgument";
        case ErrorCode::MissingDependency:
            return "MissingDependency";
    }
    return "Unknown";
}

Error::Error(ErrorCode code, std::string message) : code_(code) {
    const std::string_view name = to_string(code);
    prefix_length_ = name.size() + 2;
    what_.resize(prefix_length_ + message.size());
    name.copy(what_.data(), name.size());
    what_[name.size()] = ':';
    what_[name.size() + 1] = ' ';
    message.copy(what_.data() + prefix_length_, message.size());
}

std::string_view Error::message() const noexcept {
    return std::string_view(what_).substr(prefix_length_);
}

}  // namespace pto
