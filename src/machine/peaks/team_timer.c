/* Timing a piece of work run by a team of threads that start together. */
#include <math.h>
#include <omp.h>
#include <stddef.h>

#include "core/internal.h"
#include "util/internal.h"
#include "machine/peaks/team_timer.h"

/* The warm-up grows the count until one run lasts at least half the target (a run shorter
 * than that is dominated by the clock read and the barriers), then aims the count at the
 * target. It gives up growing after this many runs, which only a machine that stalls for
 * seconds would reach. */
#define KB_WARMUP_MAX_RUNS 30

kb_status kb_team_time(const kb_team_job *job, double *units_per_second) {
    const double target = job->settings.seconds;
    const int repetitions = job->settings.repetitions;
    int failed = 0, team = 0, done = 0, measured = 0, warmups = 0;
    int64_t count = 1;
    double start = 0, sink = 0;

#pragma omp parallel num_threads(job->threads) reduction(+ : sink)
    {
        void *state = NULL;
        bool ready = job->prepare(job->context, &state);
        if (!ready) {
#pragma omp atomic write
            failed = 1;
        }
        if (omp_get_thread_num() == 0)
            team = omp_get_num_threads();
#pragma omp barrier
        /* Every thread sees failed and team only after the barrier; they are read-only now. */
        bool run = !failed && team == job->threads;
        while (run) {
            if (omp_get_thread_num() == 0)
                start = kb_monotonic_seconds();
#pragma omp barrier
            int64_t n = count;
            double work_start = kb_monotonic_seconds();
            sink += job->run(job->context, state, n);
            double work = kb_monotonic_seconds() - work_start;
#pragma omp barrier
            if (omp_get_thread_num() == 0) {
                double elapsed = kb_monotonic_seconds() - start;
                bool warming = warmups >= 0;
                if (warming) {
                    /* Sized on thread 0's own work, not on the repetition's wall time: on a
                     * busy machine a barrier can wait a whole time slice for a descheduled
                     * thread, and sizing on that would time mostly waiting. */
                    warmups++;
                    if (work >= target / 2 || warmups >= KB_WARMUP_MAX_RUNS) {
                        warmups = -1; /* sized: the timed repetitions follow */
                        double scaled = ceil((double)n * target / (work > 0 ? work : 1e-9));
                        count = scaled > (double)n ? (int64_t)fmin(scaled, 1e15) : n;
                    } else {
                        /* Grow at most 100x a step, so that one stall cannot size a run far
                         * past the target. */
                        double f = work > 0 ? fmin(100, 1.5 * target / work) : 100;
                        count = (int64_t)fmax((double)n + 1, ceil((double)n * f));
                    }
                } else {
                    units_per_second[measured++] = (double)n / elapsed;
                    if (measured == repetitions)
                        done = 1;
                }
            }
#pragma omp barrier
            run = !done;
        }
        if (state)
            job->finish(job->context, state);
    }
    /* Keeps the work's results alive; the value itself is meaningless. */
    volatile double keep = sink;
    (void)keep;
    if (failed)
        return kb_fail(KB_ENOMEM, "cannot allocate the working set of a peak measurement");
    if (team != job->threads)
        return kb_fail(KB_EUNSUPPORTED, "OpenMP ran %d threads instead of %d", team, job->threads);
    return KB_OK;
}
