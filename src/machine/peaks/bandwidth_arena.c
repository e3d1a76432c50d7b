/* The bandwidth measurements' arrays kept across the measurements of one kernel at one thread
 * count in `kbench peaks`. A measurement that allocated its own arrays spent most of its time
 * outside the kernels: the kernel zeroing fresh pages and the thread filling them (perf of
 * `kbench peaks --quick`: 48% of its time in preparing arrays, 40% in the kernel's page
 * clearing, against 32% in the kernels), since the curves alone measure some sixty working
 * sets a kernel, up to four times the last-level cache. An array is allocated and filled again
 * only when a working set needs more than it holds: at each of the four levels, which ascend,
 * then never for the curve, whose points lie below the DRAM level's working set. The thread
 * that uses an array fills it (first touch places its pages on that thread's NUMA node, where
 * the allocator hands out fresh pages); later measurements read and write a prefix of it, whose
 * values stay finite (load reads; copy and triad write a = b = 2 and a = 2 + 3 * 0.5 into the
 * first array from the other two, which they only read). */
#include <stdlib.h>
#include <string.h>

#include "kbench/memory.h"
#include "machine/peaks/bandwidth_arena.h"

typedef struct arena_array {
    double *data;
    size_t bytes;
} arena_array;

struct kb_bw_arena {
    int threads;
    arena_array arrays[][3];
};

kb_bw_arena *kb_bw_arena_new(int threads) {
    if (threads < 1)
        return NULL;
    kb_bw_arena *arena = calloc(1, sizeof *arena + (size_t)threads * sizeof arena->arrays[0]);
    if (arena)
        arena->threads = threads;
    return arena;
}

int kb_bw_arena_threads(const kb_bw_arena *arena) {
    return arena ? arena->threads : 0;
}

void kb_bw_arena_free(kb_bw_arena *arena) {
    if (!arena)
        return;
    for (int t = 0; t < arena->threads; t++)
        for (int i = 0; i < 3; i++)
            kb_aligned_free(arena->arrays[t][i].data);
    free(arena);
}

void *kb_bw_arena_array(kb_bw_arena *arena, int thread, int index, size_t bytes, double fill) {
    if (!arena || thread < 0 || thread >= arena->threads || index < 0 || index > 2)
        return NULL;
    arena_array *a = &arena->arrays[thread][index];
    if (a->data && a->bytes >= bytes)
        return a->data;
    kb_aligned_free(a->data);
    a->bytes = 0;
    a->data = kb_aligned_alloc(bytes);
    if (!a->data)
        return NULL;
    a->bytes = bytes;
    for (size_t e = 0; e < bytes / sizeof(double); e++)
        a->data[e] = fill;
    return a->data;
}
