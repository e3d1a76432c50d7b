#ifndef KBENCH_THREADS_H
#define KBENCH_THREADS_H

#include "kbench/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Cores this process may run on: its affinity mask, limited further by a cgroup CPU quota
 * (cpu.max for cgroup v2, cfs_quota_us/cfs_period_us for v1), rounded up, at least 1. */
int kb_usable_cores(void);

/* Sets the number of threads kernels use; 0 restores the default (kb_usable_cores). */
kb_status kb_threads_set(int count);

/* The thread count in force, resolving KB_NUM_THREADS on first use. Fails when
 * KB_NUM_THREADS is not a positive integer. */
kb_status kb_threads_current(int *out);

#ifdef __cplusplus
}
#endif

#endif
