/* What the system says of the monotonic clock that kbench's measurements read. */
#include "util/clock.h"

bool kb_monotonic_resolution_ns(double *ns) {
    struct timespec t;
    if (clock_gettime(KB_MONOTONIC_CLOCK, &t) != 0 || clock_getres(KB_MONOTONIC_CLOCK, &t) != 0)
        return false;
    *ns = (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
    return true;
}
