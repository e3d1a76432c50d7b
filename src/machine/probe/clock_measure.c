/* The core clock measured under load, from a chain of dependent adds. */
#include <stdint.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/machine.h"
#include "util/internal.h"

/* One add per cycle: every add reads the register the previous one wrote, so the chain runs
 * at the add's latency, which is one cycle on every x86-64 and Arm core kbench targets. The
 * loop's own counter and branch run beside it on other ports, hidden under 100 adds. */
#define KB_ADDS_PER_ITERATION 100

#if defined(__x86_64__)
#define KB_ADD1 "add %1, %0\n\t"
#elif defined(__aarch64__)
#define KB_ADD1 "add %0, %0, %1\n\t"
#endif

#ifdef KB_ADD1
#define KB_ADD10 KB_ADD1 KB_ADD1 KB_ADD1 KB_ADD1 KB_ADD1 KB_ADD1 KB_ADD1 KB_ADD1 KB_ADD1 KB_ADD1
#define KB_ADD100                                                                                  \
    KB_ADD10 KB_ADD10 KB_ADD10 KB_ADD10 KB_ADD10 KB_ADD10 KB_ADD10 KB_ADD10 KB_ADD10 KB_ADD10

static uint64_t add_chain(uint64_t iterations, uint64_t step) {
    uint64_t x = 0;
    for (uint64_t i = 0; i < iterations; i++)
        __asm__ volatile(KB_ADD100 : "+r"(x) : "r"(step));
    return x;
}

/* Runs the chain in slices until seconds have passed and returns the adds per second of the
 * fastest slice. Another process on the core, or an interrupt, only ever slows a slice down,
 * and a slice (a million adds, some 300 us at 3 GHz) is short enough that most run untouched
 * on a shared core, and long enough that the clock reads around it (tens of ns) shift its rate
 * by under 0.1%. Timing the whole run instead had read 403 MHz on a 3.7 GHz core at a load of
 * 8 on its 2 cores. */
static double adds_per_second(double seconds) {
    const uint64_t slice = 10000;
    double start = kb_monotonic_seconds(), last = start, best = 0;
    do {
        (void)add_chain(slice, 1);
        double now = kb_monotonic_seconds();
        double rate = (double)(slice * KB_ADDS_PER_ITERATION) / (now - last);
        best = rate > best ? rate : best;
        last = now;
    } while (last - start < seconds);
    return best;
}

#endif

kb_status kb_clock_measure(double seconds, int repetitions, kb_clock_measurement *out) {
    memset(out, 0, sizeof *out);
    if (seconds == 0)
        seconds = 0.02;
    if (repetitions == 0)
        repetitions = 5;
    if (!(seconds > 0 && seconds <= 10))
        return kb_fail(KB_EINVAL, "clock measurement time must be in (0, 10] seconds, not %g",
                       seconds);
    if (repetitions < 1 || repetitions > KB_CLOCK_MAX_REPETITIONS)
        return kb_fail(KB_EINVAL, "clock measurement repetitions must be from 1 to %d, not %d",
                       KB_CLOCK_MAX_REPETITIONS, repetitions);
#ifdef KB_ADD1
    /* The warm-up lets a core that was idle reach its running clock before any timing. */
    (void)adds_per_second(seconds / 2);
    double mhz[KB_CLOCK_MAX_REPETITIONS];
    for (int r = 0; r < repetitions; r++)
        mhz[r] = adds_per_second(seconds) / 1e6;
    kb_sort_doubles(mhz, (size_t)repetitions);
    out->mhz = kb_median_sorted(mhz, (size_t)repetitions);
    out->min_mhz = mhz[0];
    out->max_mhz = mhz[repetitions - 1];
    out->repetitions = repetitions;
    return KB_OK;
#else
    return kb_fail(KB_EUNSUPPORTED, "measuring the clock needs x86-64 or aarch64");
#endif
}
