// copy_view: the one way hot paths copy a whole TensorView (binding a template's slot, writing a bound view
// into an instance's argument record). Not API.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "pto/runtime/tensor.h"

namespace pto::detail {

/// copy_view: copies the view, padding included, 16 bytes at a time (six vector moves). A plain assignment
/// copies its 91 bytes of members, and GCC turns that (or one memcpy of the whole object) into `rep movs`,
/// several times slower for one view. `to` may be unaligned (a slot in the argument ring).
inline void copy_view(void* to, const TensorView& from) {
    static_assert(sizeof(TensorView) % 16 == 0 && std::is_trivially_copyable_v<TensorView>);
    auto* dst = static_cast<std::byte*>(to);
    const auto* src = reinterpret_cast<const std::byte*>(&from);
    for (std::size_t i = 0; i < sizeof(TensorView); i += 16)
        std::memcpy(dst + i, src + i, 16);
}

}  // namespace pto::detail
