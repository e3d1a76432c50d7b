#ifndef KBENCH_THREADS_H
#define KBENCH_THREADS_H

#include "kbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Cores this process may run on: the CPUs of its affinity mask, or, when the OpenMP runtime
 * binds threads (OMP_PROC_BIND), of its place list (OMP_PLACES, or every CPU of the mask the
 * process started with), limited further by a cgroup CPU quota (cpu.max for cgroup v2,
 * cfs_quota_us/cfs_period_us for v1), rounded up, at least 1. OMP_PROC_BIND narrows the
 * initial thread's own mask to one place at start-up; that does not narrow this count. */
int kb_usable_cores(void);

/* What kb_usable_cores counts, and what bounds it. */
typedef struct kb_cores_info {
    int usable;          /* kb_usable_cores() */
    int cpus;            /* CPUs of the mask or place list, before the quota */
    double cgroup_quota; /* in cores; 0 when there is none */
    char bound_by[64];   /* "the affinity mask", "OMP_PLACES", "the cgroup CPU quota", ... */
} kb_cores_info;

void kb_cores_describe(kb_cores_info *out);

/* The ids of the CPUs kb_usable_cores counts (before the quota), lowest first, at most max of
 * them; returns how many were written. */
int kb_usable_cpus(int *cpus, int max);

/* Sets the number of threads kernels use; 0 restores the default (kb_usable_cores). */
kb_status kb_threads_set(int count);

/* The thread count in force, resolving KB_NUM_THREADS on first use. Fails when
 * KB_NUM_THREADS is not a positive integer. */
kb_status kb_threads_current(int *out);

#ifdef __cplusplus
}
#endif

#endif
