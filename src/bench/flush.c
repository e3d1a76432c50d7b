/* Cache flushing between cold-mode samples: a sweep over a buffer larger than the caches. */
#include <string.h>

#include "bench/flush.h"
#include "core/internal.h"
#include "kbench/bench.h"
#include "kbench/memory.h"

kb_status kb_flush_init(kb_flush *f, int64_t bytes) {
    memset(f, 0, sizeof *f);
    f->words = kb_aligned_alloc((size_t)bytes);
    if (!f->words)
        return kb_fail(KB_ENOMEM, "cannot allocate the %lld-byte cold-cache buffer",
                       (long long)bytes);
    f->count = (size_t)bytes / sizeof *f->words;
    f->bytes = bytes;
    for (size_t i = 0; i < f->count; i++)
        f->words[i] = i;
    return KB_OK;
}

void kb_flush_run(const kb_flush *f, int threads) {
    uint64_t sum = 0;
    const uint64_t *w = f->words;
    long long lines = (long long)(f->count / 8);
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : sum)
    for (long long i = 0; i < lines; i++)
        sum += w[8 * i];
    kb_do_not_optimize(&sum);
}

void kb_flush_free(kb_flush *f) {
    kb_aligned_free(f->words);
    memset(f, 0, sizeof *f);
}
