/* Single-thread implementations and the baseline processes timed beside them, on one CPU
 * (bench/colocate.h). */
#include <pthread.h>
#include <sched.h>

#include "bench/colocate.h"

void kb_colocate_init(kb_colocate *c, bool self) {
    CPU_ZERO(&c->all);
    CPU_ZERO(&c->one);
    if (pthread_getaffinity_np(pthread_self(), sizeof c->all, &c->all) != 0)
        CPU_SET(0, &c->all);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &c->all)) {
            CPU_SET(cpu, &c->one);
            break;
        }
    c->self = self;
    c->on_one = false;
}

void kb_colocate_set(kb_colocate *c, bool one_cpu, kb_baseline_process *const *procs, int n) {
    if (c->on_one == one_cpu)
        return;
    const cpu_set_t *set = one_cpu ? &c->one : &c->all;
    if (c->self)
        (void)pthread_setaffinity_np(pthread_self(), sizeof *set, set);
    for (int i = 0; i < n; i++)
        if (procs[i])
            kb_baseline_set_affinity(procs[i], set);
    c->on_one = one_cpu;
}
