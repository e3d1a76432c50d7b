#ifndef KB_UTIL_CLOCK_H
#define KB_UTIL_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* The clock every measurement reads: CLOCK_MONOTONIC_RAW, which NTP neither slews nor steps,
 * so an interval is the hardware's count of time. Inline, because a timed loop pays for every
 * instruction of the read. */
#define KB_MONOTONIC_CLOCK CLOCK_MONOTONIC_RAW
#define KB_MONOTONIC_CLOCK_NAME "CLOCK_MONOTONIC_RAW"

static inline int64_t kb_monotonic_ns(void) {
    struct timespec t;
    clock_gettime(KB_MONOTONIC_CLOCK, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static inline double kb_monotonic_seconds(void) {
    struct timespec t;
    clock_gettime(KB_MONOTONIC_CLOCK, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The resolution the system reports for the clock, in nanoseconds; false when the clock is
 * not available. */
bool kb_monotonic_resolution_ns(double *ns);

#endif
