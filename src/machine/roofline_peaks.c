#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/roofline.h"
#include "machine/internal.h"

/* A peak at threads threads from the 1-thread and all-cores measurements (0 when unknown).
 * Optimistic in between: each added thread could at most add a one-thread peak, and together
 * they could not beat the all-cores peak. Never below the one-thread peak: more threads are
 * free to leave the work to one (a small call does, below the parallel threshold), so an
 * all-cores peak measured lower, on cores shared with other work, does not bound them. */
static double between(double one, double all, int threads, int all_threads) {
    if (threads <= 1)
        return one;
    if (one <= 0 || all <= 0)
        return 0;
    double scaled = threads >= all_threads ? all : fmin(one * threads, all);
    return fmax(scaled, one);
}

kb_status kb_roofline_peaks_from(const kb_peaks *peaks, int threads, kb_bw_kernel traffic,
                                 kb_flop_type type, kb_simd_level level, kb_roofline_peaks *out) {
    memset(out, 0, sizeof *out);
    if (threads < 1)
        return kb_fail(KB_EINVAL, "roofline: thread count must be at least 1, not %d", threads);
    if ((unsigned)traffic >= KB_BW_KERNEL_COUNT || (unsigned)type >= KB_FLOP_TYPE_COUNT ||
        (unsigned)level >= KB_SIMD_LEVEL_COUNT)
        return kb_fail(KB_EINVAL, "roofline: unknown traffic pattern, type or SIMD level");
    const kb_peak_set *one = &peaks->sets[KB_PEAKS_ONE_THREAD];
    const kb_peak_set *all = &peaks->sets[KB_PEAKS_ALL_THREADS];
    if (one->threads != 1 || all->threads < 1)
        return kb_fail(KB_EINVAL, "roofline: the peaks hold no measurement");
    out->threads = threads;
    for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++)
        out->bytes_per_second[l] =
            between(one->bandwidth[traffic][l].bytes_per_second.best,
                    all->bandwidth[traffic][l].bytes_per_second.best, threads, all->threads);
    out->flops_per_second =
        between(one->flops[type][level].best, all->flops[type][level].best, threads, all->threads);
    for (int l = 0; l < KB_MEM_DRAM; l++)
        out->capacity[l] = kb_level_capacity(peaks->caches, (kb_mem_level)l, threads);
    return KB_OK;
}
