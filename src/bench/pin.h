#ifndef KB_BENCH_PIN_H
#define KB_BENCH_PIN_H

#include <sched.h>
#include <stdbool.h>

#include "kbench/error.h"

/* --pin: the calling thread and each OpenMP thread on its own core, chosen in order from
 * the cores the process may use. OMP_PROC_BIND would do it too, but libgomp reads it once at
 * start-up, before a program can set it; pinning from inside the team works at any time. */
typedef struct kb_pin {
    cpu_set_t original; /* the calling thread's mask before pinning */
    int ncpus;
    int cpus[CPU_SETSIZE];
} kb_pin;

kb_status kb_pin_init(kb_pin *p);

/* Pins the calling thread to the first core and the threads of an OpenMP team of the given
 * size to the next ones (round robin when there are more threads than cores). libgomp keeps
 * its threads between parallel regions, so later teams of up to that size run pinned. */
kb_status kb_pin_threads(const kb_pin *p, int threads);

/* The cores used by a team of the given size, "0,1". */
void kb_pin_describe(const kb_pin *p, int threads, char *buf, int size);

/* Gives the calling thread, and a team of the given size, the original mask back. */
void kb_pin_restore(const kb_pin *p, int threads);

#endif
