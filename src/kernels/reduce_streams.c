/* Whether the reductions read long rows from memory several at once or one at a time: measured
 * once per process, on this machine, the first time an input comes from memory. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/cache_size.h"
#include "kbench/memory.h"
#include "kbench/simd.h"
#include "kernels/reduce_kernels.h"
#include "util/clock.h"

/* 1: several at once; 0: one at a time; -1: not yet measured. Both give the same bits (the rows
 * are added the same way), so the choice is only ever about speed. */
static atomic_int choice = -1;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The probe's array: twice the last-level cache, so that it is read from memory, and within
 * [64 MiB, 256 MiB]: some milliseconds a read on any current machine. */
#define PROBE_MIN_BYTES (64 << 20)
#define PROBE_MAX_BYTES (256 << 20)
#define PROBE_ROUNDS 3
/* Several streams must win by this much: an even race keeps the one-stream loop, the one
 * that is least sensitive to how the memory system treats streams. */
#define PROBE_MARGIN 0.95

/* The best level's float64 sums of the probe's blocks, as the rows kernel sums them from
 * memory in the layout the choice says; the time it took. */
static double time_blocks(const kb_sum_kernels *k, const double *x, int64_t blocks, double *sums) {
    int64_t start = kb_monotonic_ns();
    enum { GROUP = 16 };
    for (int64_t b = 0; b < blocks; b += GROUP) {
        int64_t g = blocks - b < GROUP ? blocks - b : GROUP;
        k->rows((const char *)(x + b * KB_REDUCE_BLOCK), g,
                KB_REDUCE_BLOCK * (int64_t)sizeof(double), KB_REDUCE_BLOCK, sums + b, true);
    }
    return (double)(kb_monotonic_ns() - start);
}

static void measure(void) {
    int64_t bytes = 2 * kb_cache_llc_bytes();
    bytes = bytes < PROBE_MIN_BYTES   ? PROBE_MIN_BYTES
            : bytes > PROBE_MAX_BYTES ? PROBE_MAX_BYTES
                                      : bytes;
    int64_t blocks = bytes / (int64_t)sizeof(double) / KB_REDUCE_BLOCK;
    double *x = kb_aligned_alloc((size_t)(blocks * KB_REDUCE_BLOCK) * sizeof *x);
    double *sums = kb_aligned_alloc((size_t)blocks * sizeof *sums);
    int several = 1;
    if (x && sums) {
        for (int64_t i = 0; i < blocks * KB_REDUCE_BLOCK; i++)
            x[i] = 1.0;
        const kb_sum_kernels *k = &kb_reduce_kernels_for(kb_simd_best())->sum[KB_SUM_F64];
        double best[2] = {0, 0};
        for (int r = 0; r < PROBE_ROUNDS; r++)
            for (int layout = 0; layout < 2; layout++) {
                atomic_store_explicit(&choice, layout, memory_order_relaxed);
                double t = time_blocks(k, x, blocks, sums);
                if (r == 0 || t < best[layout])
                    best[layout] = t;
            }
        several = best[1] < PROBE_MARGIN * best[0];
    }
    kb_aligned_free(x);
    kb_aligned_free(sums);
    atomic_store_explicit(&choice, several, memory_order_relaxed);
}

bool kb_reduce_streams(void) {
    int c = atomic_load_explicit(&choice, memory_order_relaxed);
    if (c < 0) {
        pthread_once(&once, measure);
        c = atomic_load_explicit(&choice, memory_order_relaxed);
    }
    return c == 1;
}

void kb_reduce_streams_set(bool several) {
    pthread_once(&once, measure);
    atomic_store_explicit(&choice, several, memory_order_relaxed);
}
