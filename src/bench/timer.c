/* The benchmark timer: CLOCK_MONOTONIC_RAW in nanoseconds, and its resolution and overhead. */
#include "core/internal.h"
#include "kbench/bench.h"
#include "util/internal.h"

int64_t kb_bench_now_ns(void) {
    return kb_monotonic_ns();
}

kb_status kb_bench_timer_measure(kb_bench_timer *out) {
    if (!kb_monotonic_resolution_ns(&out->reported_ns))
        return kb_fail(KB_EUNSUPPORTED, KB_MONOTONIC_CLOCK_NAME " is not available");

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
