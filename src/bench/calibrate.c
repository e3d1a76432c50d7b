/* Calibration: how many calls make one sample of an implementation, found while warming it up. */
#include <math.h>

#include "bench/impl.h"

/* Calls per sample never exceed this, whatever a broken clock or an empty run suggests. */
#define MAX_CALLS ((int64_t)1 << 40)

void kb_calibrate(kb_impl *m, int64_t target_ns, int64_t warmup_ns, bool fewest) {
    int64_t calls = 1, spent = 0;
    int long_batches = 0;
    double best_per_call = INFINITY;
    while (!m->failed) {
        int64_t t = kb_impl_sample(m, calls);
        if (m->c.status != KB_OK) {
            kb_impl_fail(m, NULL);
            return;
        }
        spent += t;
        if (t >= target_ns || calls >= MAX_CALLS) {
            /* Long enough to estimate from. The first such batch may have run cold (first
             * touch, thread start-up, a clock still ramping up), so at least two are taken,
             * and the fastest, the one least disturbed, sets the rate. */
            long_batches++;
            double per_call = (double)t / (double)calls;
            if (per_call < best_per_call)
                best_per_call = per_call;
            if (long_batches >= 2 && spent >= warmup_ns)
                break;
            continue;
        }
        /* Too short to time: grow towards the target, at most tenfold at once. */
        int64_t next =
            t > 0 ? (int64_t)ceil((double)calls * 1.2 * (double)target_ns / (double)t) : calls * 10;
        if (next < 2 * calls)
            next = 2 * calls;
        if (next > 10 * calls)
            next = 10 * calls;
        calls = next < MAX_CALLS ? next : MAX_CALLS;
    }
    if (m->failed)
        return;
    double ideal = (double)target_ns / fmax(best_per_call, 1e-3);
    double chosen = fewest ? ceil(ideal) : round(ideal);
    m->calls = chosen < 1 ? 1 : chosen > (double)MAX_CALLS ? MAX_CALLS : (int64_t)chosen;
    m->sample_ns = (double)m->calls * best_per_call;
}
