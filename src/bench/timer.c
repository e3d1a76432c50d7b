#include <time.h>

#include "core/internal.h"
#include "kbench/bench.h"

int64_t kb_bench_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC_RAW, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

kb_status kb_bench_timer_measure(kb_bench_timer *out) {
    struct timespec res;
    if (clock_gettime(CLOCK_MONOTONIC_RAW, &res) != 0 || clock_getres(CLOCK_MONOTONIC_RAW, &res))
        return kb_fail(KB_EUNSUPPORTED, "CLOCK_MONOTONIC_RAW is not available");
    out->reported_ns = (double)res.tv_sec * 1e9 + (double)res.tv_nsec;

    /* The resolution that matters is the smallest step a reader can observe: the clock's
     * granularity or the cost of reading it, whichever is larger. The minimum over many
     * trials discards the trials an interrupt lengthened. */
    int64_t best = INT64_MAX;
    for (int i = 0; i < 2000; i++) {
        int64_t a = kb_bench_now_ns(), b;
        do
            b = kb_bench_now_ns();
        while (b == a);
        if (b - a < best)
            best = b - a;
    }
    out->resolution_ns = (double)best;

    /* Overhead: the best of several batches of back-to-back readings. */
    enum { batch = 2000 };
    double overhead = 1e300;
    for (int r = 0; r < 10; r++) {
        int64_t t0 = kb_bench_now_ns();
        for (int i = 0; i < batch; i++)
            (void)kb_bench_now_ns();
        int64_t t1 = kb_bench_now_ns();
        double per = (double)(t1 - t0) / (batch + 1);
        if (per < overhead)
            overhead = per;
    }
    out->overhead_ns = overhead;
    return KB_OK;
}
