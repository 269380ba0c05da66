// The short names of the hazard kinds the dependency checker reports.
#include "pto/runtime/stats.h"

namespace pto {

const char* to_string(HazardKind kind) {
    switch (kind) {
        case HazardKind::ReadAfterWrite:
            return "RAW";
        case HazardKind::WriteAfterWrite:
            return "WAW";
        case HazardKind::WriteAfterRead:
            return "WAR";
    }
    return "?";
}

}  // namespace pto
