#ifndef KB_BENCH_FLUSH_H
#define KB_BENCH_FLUSH_H

#include <stddef.h>
#include <stdint.h>

#include "kbench/error.h"

/* The buffer --cache cold reads before each sample: twice the last-level cache, so that
 * nothing the previous sample left stays cached. */
typedef struct kb_flush {
    uint64_t *words;
    size_t count;
    int64_t bytes;
} kb_flush;

/* Allocates and touches the buffer (its pages exist before any sample). */
kb_status kb_flush_init(kb_flush *f, int64_t bytes);

/* Reads one word per cache line of the buffer, split among `threads` OpenMP threads so that
 * the private caches of every core the next sample uses are flushed too. */
void kb_flush_run(const kb_flush *f, int threads);

void kb_flush_free(kb_flush *f);

#endif
