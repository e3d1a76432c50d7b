/* How the reductions read memory on this machine, measured once per process the first time an
 * input comes from memory: long rows one at a time or several at once, and whether column
 * kernels prefetch the rows ahead of those they read (reduce_kernels.h, docs/performance.md). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/cache_size.h"
#include "kbench/memory.h"
#include "kbench/simd.h"
#include "kernels/reduce_kernels.h"
#include "util/clock.h"

/* Each choice: 1 yes, 0 no, -1 not yet measured. Either way gives the same bits (the rows are
 * added the same way; a prefetch changes no value), so the choices are only about speed. */
static atomic_int streams = -1, prefetch = -1;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The probe's array: twice the last-level cache, so that it is read from memory, and within
 * [64 MiB, 256 MiB]: some milliseconds a read on any current machine. */
#define PROBE_MIN_BYTES (64 << 20)
#define PROBE_MAX_BYTES (256 << 20)
#define PROBE_ROUNDS 3
/* The alternative must win by this much: an even race keeps the loop kbench had before the
 * choice was measured (one row at a time; prefetching rows ahead). */
#define PROBE_MARGIN 0.95

typedef struct probe {
    const kb_sum_kernels *k; /* the best level's float64 sums */
    const double *x;
    int64_t blocks; /* of KB_REDUCE_BLOCK elements */
    double *out;    /* blocks doubles */
} probe;

/* The blocks' sums as one rows call per 16 blocks, or the array as rows of one block summed
 * down its columns; the time it took in nanoseconds. */
static double time_read(const probe *p, bool columns) {
    int64_t start = kb_monotonic_ns();
    int64_t stride = KB_REDUCE_BLOCK * (int64_t)sizeof(double);
    if (columns) {
        for (int64_t j = 0; j < KB_REDUCE_BLOCK && j < p->blocks; j++)
            p->out[j] = 0;
        p->k->cols((const char *)p->x, p->blocks, stride, KB_REDUCE_BLOCK, p->out, true);
    } else {
        enum { GROUP = 16 };
        for (int64_t b = 0; b < p->blocks; b += GROUP) {
            int64_t g = p->blocks - b < GROUP ? p->blocks - b : GROUP;
            p->k->rows((const char *)(p->x + b * KB_REDUCE_BLOCK), g, stride, KB_REDUCE_BLOCK,
                       p->out + b, true);
        }
    }
    return (double)(kb_monotonic_ns() - start);
}

/* Whether the second way of choice is faster: the best of PROBE_ROUNDS reads each, alternated. */
static bool second_wins(const probe *p, atomic_int *choice, bool columns, int first) {
    double best[2] = {0, 0};
    for (int r = 0; r < PROBE_ROUNDS; r++)
        for (int way = 0; way < 2; way++) {
            atomic_store_explicit(choice, way ? !first : first, memory_order_relaxed);
            double t = time_read(p, columns);
            if (r == 0 || t < best[way])
                best[way] = t;
        }
    return best[1] < PROBE_MARGIN * best[0];
}

static void measure(void) {
    int64_t bytes = 2 * kb_cache_llc_bytes();
    bytes = bytes < PROBE_MIN_BYTES   ? PROBE_MIN_BYTES
            : bytes > PROBE_MAX_BYTES ? PROBE_MAX_BYTES
                                      : bytes;
    probe p = {&kb_reduce_kernels_for(kb_simd_best())->sum[KB_SUM_F64], NULL,
               bytes / (int64_t)sizeof(double) / KB_REDUCE_BLOCK, NULL};
    double *x = kb_aligned_alloc((size_t)(p.blocks * KB_REDUCE_BLOCK) * sizeof *x);
    double *out = kb_aligned_alloc(
        (size_t)(p.blocks > KB_REDUCE_BLOCK ? p.blocks : KB_REDUCE_BLOCK) * sizeof *out);
    bool several = false, ahead = true;
    if (x && out) {
        for (int64_t i = 0; i < p.blocks * KB_REDUCE_BLOCK; i++)
            x[i] = 1.0;
        p.x = x;
        p.out = out;
        several = second_wins(&p, &streams, false, 0);
        ahead = !second_wins(&p, &prefetch, true, 1);
    }
    kb_aligned_free(x);
    kb_aligned_free(out);
    atomic_store_explicit(&streams, several, memory_order_relaxed);
    atomic_store_explicit(&prefetch, ahead, memory_order_relaxed);
}

static bool ask(atomic_int *choice) {
    int c = atomic_load_explicit(choice, memory_order_relaxed);
    if (c < 0) {
        pthread_once(&once, measure);
        c = atomic_load_explicit(choice, memory_order_relaxed);
    }
    return c == 1;
}

bool kb_reduce_streams(void) {
    return ask(&streams);
}

bool kb_reduce_prefetch_rows(void) {
    return ask(&prefetch);
}

void kb_reduce_memory_set(bool several, bool ahead) {
    atomic_store_explicit(&streams, several, memory_order_relaxed);
    atomic_store_explicit(&prefetch, ahead, memory_order_relaxed);
}
