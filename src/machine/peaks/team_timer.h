#ifndef KB_MACHINE_PEAKS_TEAM_TIMER_H
#define KB_MACHINE_PEAKS_TEAM_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "kbench/peaks.h"

/* The timed loop that bandwidth and FMA peaks share. A team of OpenMP threads runs between
 * barriers; thread 0 reads the clock before the first barrier and after the last, so a
 * repetition lasts as long as the slowest thread. Each thread prepares its own data (so that
 * the pages are first touched by the thread that uses them), then a warm-up finds how many
 * units of work fill settings.seconds, then the timed repetitions run. */
typedef struct kb_team_job {
    int threads;
    kb_measure_settings settings; /* resolved */
    void *context;                /* shared, read-only during the run */
    /* Allocates and fills a thread's data; false when out of memory. */
    bool (*prepare)(void *context, void **state);
    /* Runs count units of work; returns a value that depends on it, which the timer keeps
     * alive so that the work cannot be removed. */
    double (*run)(void *context, void *state, int64_t count);
    void (*finish)(void *context, void *state);
} kb_team_job;

/* Fills units_per_second[settings.repetitions] with the units of all threads together per
 * second. KB_ENOMEM when a thread's prepare failed; KB_EUNSUPPORTED when OpenMP gave fewer
 * threads than asked for. */
kb_status kb_team_time(const kb_team_job *job, double *units_per_second);

#endif
