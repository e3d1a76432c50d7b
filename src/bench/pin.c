/* Pinning the threads of a measurement to cores, and restoring their affinity after. */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "bench/pin.h"
#include "core/internal.h"
#include "kbench/threads.h"

kb_status kb_pin_init(kb_pin *p) {
    memset(p, 0, sizeof *p);
    if (pthread_getaffinity_np(pthread_self(), sizeof p->original, &p->original) != 0)
        return kb_fail(KB_EUNSUPPORTED, "cannot read this thread's CPU affinity");
    /* Not this thread's mask: under OMP_PROC_BIND the OpenMP runtime has narrowed it to one
     * place. */
    p->ncpus = kb_usable_cpus(p->cpus, (int)(sizeof p->cpus / sizeof p->cpus[0]));
    if (p->ncpus == 0)
        return kb_fail(KB_EUNSUPPORTED, "this thread may run on no CPU");
    return KB_OK;
}

kb_status kb_pin_threads(const kb_pin *p, int threads) {
    int failed = 0;
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(p->cpus[omp_get_thread_num() % p->ncpus], &set);
        failed |= pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0;
    }
    return failed ? kb_fail(KB_EUNSUPPORTED, "cannot pin threads to cores") : KB_OK;
}

void kb_pin_describe(const kb_pin *p, int threads, char *buf, int size) {
    int used = 0;
    buf[0] = '\0';
    for (int t = 0; t < threads && t < p->ncpus && used < size; t++)
        used += snprintf(buf + used, (size_t)(size - used), "%s%d", t ? "," : "", p->cpus[t]);
}

void kb_pin_restore(const kb_pin *p, int threads) {
#pragma omp parallel num_threads(threads)
    pthread_setaffinity_np(pthread_self(), sizeof p->original, &p->original);
    pthread_setaffinity_np(pthread_self(), sizeof p->original, &p->original);
}
