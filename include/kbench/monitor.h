#ifndef KBENCH_MONITOR_H
#define KBENCH_MONITOR_H

#include <stdbool.h>
#include <stdint.h>

#include "kbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The usage monitor: while a run measures, a thread records about once an interval what the
 * machine does besides it (Linux's /proc), so that a result timed while other work took the
 * cores says so (docs/measurement.md, "The usage monitor"). Times are kb_bench_now_ns's. */

/* One interval, from the previous sample's time (or the monitor's start) to at_ns. CPU
 * figures are in CPUs' worth of time over the interval: 1.0 is one CPU kept busy. */
typedef struct kb_usage_sample {
    int64_t at_ns;
    double busy_cpus;            /* every process and the kernel, idle and iowait excluded */
    double own_cpus;             /* this process and its descendants (the baseline runners) */
    double others_cpus;          /* busy_cpus - own_cpus, at least 0: other processes */
    double steal_cpus;           /* time the hypervisor ran other guests on these CPUs */
    double load1;                /* the 1-minute load average; -1 when unknown */
    int64_t mem_available_bytes; /* -1 when unknown */
    double clock_mhz; /* the mean clock the kernel reports (cpufreq, /proc/cpuinfo); 0 unknown */
} kb_usage_sample;

typedef struct kb_usage_series {
    double interval_s;
    int ncpus;
    int count;
    kb_usage_sample *samples;
    double *cpu_busy;   /* count x ncpus: each CPU's busy fraction of each interval */
    double overhead_s;  /* CPU time the monitor's thread used */
    int64_t started_ns; /* when sampling began */
} kb_usage_series;

/* Outside activity (others_cpus + steal_cpus, averaged over a case's samples) from which a
 * result is flagged contended: a quarter of a CPU. A quiet Linux VM shows a few hundredths. */
#define KB_USAGE_CONTENDED_CPUS 0.25

typedef struct kb_monitor kb_monitor;

/* Starts the sampling thread, a sample every interval_s (0.05 to 60 s). KB_EUNSUPPORTED where
 * /proc/stat cannot be read, KB_EINVAL for an interval out of range. */
kb_status kb_monitor_start(double interval_s, kb_monitor **out);

/* Takes a last sample, stops the thread and hands its series to out (the caller frees it with
 * kb_usage_series_free); frees the monitor. */
void kb_monitor_stop(kb_monitor *monitor, kb_usage_series *out);

/* Takes a sample now, ending the current interval: a caller that is about to report what
 * the monitor saw of a stretch of time that just ended (a group of cases) calls this first. */
void kb_monitor_sample(kb_monitor *monitor);

/* kb_usage_outside over the series so far, while the monitor runs. */
double kb_monitor_outside(kb_monitor *monitor, int64_t start_ns, int64_t end_ns, double *steal,
                          bool *covered);

void kb_usage_series_free(kb_usage_series *series);

/* The outside activity (others + steal, in CPUs) over the time from start_ns to end_ns,
 * averaged over the intervals it overlaps, weighted by the overlap; *covered says whether any
 * interval overlapped. */
double kb_usage_outside(const kb_usage_series *series, int64_t start_ns, int64_t end_ns,
                        double *steal, bool *covered);

#ifdef __cplusplus
}
#endif

#endif
