#ifndef KB_BENCH_COLOCATE_H
#define KB_BENCH_COLOCATE_H

/* Single-thread implementations and the baseline processes timed beside them, on one CPU.
 *
 * Why: a run with baselines times this process and a runner process in turn, and the
 * scheduler puts them on different CPUs, which on a VM are different host cores with their
 * own neighbours and state. Measured on the 2-vCPU Zen 4 VM, one build timed against itself
 * (`kbench run reduce ... --baseline kbench=` the same build, address randomisation off)
 * gave ratios of 0.68 to 1.46 from one run to the next on nine single-thread cases, each with
 * an interval of a few percent; with both processes on CPU 0 (`taskset -c 0`), 0.975 to 1.02 in
 * three runs. So while a single-thread implementation (own or baseline) is timed, this thread and
 * the main thread of each baseline process (which computes its single-thread cases) are kept on the
 * first CPU this process may use; before a multi-thread one, they get back the CPUs they had. The
 * measurement interleaves the single-thread implementations in rounds of their own
 * (bench/measure.c): interleaved with multi-thread blocks, they shared the CPU with OpenMP
 * workers those blocks had left spinning. With both, the same nine cases at one thread gave
 * 0.975 to 1.018 in three runs. */

#include <sched.h>
#include <stdbool.h>

#include "bench/baseline_process.h"

typedef struct kb_colocate {
    cpu_set_t all; /* this thread's CPUs when the run started */
    cpu_set_t one; /* the first of them */
    bool self;     /* whether this thread moves too (not under --pin, which places it) */
    bool on_one;   /* where everything is now */
} kb_colocate;

/* Reads this thread's CPUs; self false leaves this thread where --pin puts it. */
void kb_colocate_init(kb_colocate *c, bool self);

/* Moves this thread (when c->self) and the main thread of each of the n processes onto one
 * CPU, or back onto all of them; nothing when they are there already. A process that has exited, or
 * a thread that cannot be moved, is left as it is: placement is a matter of fairness, not of
 * results. */
void kb_colocate_set(kb_colocate *c, bool one_cpu, kb_baseline_process *const *procs, int n);

#endif
