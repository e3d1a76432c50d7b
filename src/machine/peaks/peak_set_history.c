/* The history carried by a whole set of peaks: merging an older one in, adding a run's probe
 * figures in memory and in the cache file, and the self-consistency checks on it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/peaks.h"
#include "util/strings.h"

static void prepend(kb_peak_history *h, const kb_peak_history *older) {
    kb_peak_history own = *h;
    *h = *older;
    for (int i = 0; i < own.count; i++)
        kb_peak_history_add(h, own.samples[i].at, own.samples[i].value);
}

static const kb_peak_set *set_with(const kb_peaks *p, int threads) {
    for (int s = 0; s < KB_PEAKS_SET_COUNT; s++)
        if (p->sets[s].threads == threads)
            return &p->sets[s];
    return NULL;
}

/* With one core both sets are the same measurement, kept once in the first and copied. */
static bool one_core(const kb_peaks *p) {
    return p->sets[KB_PEAKS_ALL_THREADS].threads == p->sets[KB_PEAKS_ONE_THREAD].threads;
}

/* Points are matched by working set; an older curve's points that the new one lacks (the
 * caches or the thread count read differently) are dropped with it. */
static void keep_curve_history(kb_bw_curve *curve, const kb_bw_curve *older) {
    for (int i = 0; i < curve->count; i++)
        for (int j = 0; j < older->count; j++)
            if (older->points[j].working_set_bytes == curve->points[i].working_set_bytes)
                prepend(&curve->points[i].history, &older->points[j].history);
}

void kb_peaks_keep_history(kb_peaks *peaks, const kb_peaks *older) {
    int sets = one_core(peaks) ? 1 : KB_PEAKS_SET_COUNT;
    for (int s = 0; s < sets; s++) {
        kb_peak_set *set = &peaks->sets[s];
        const kb_peak_set *old = set_with(older, set->threads);
        if (!old)
            continue;
        for (int k = 0; k < KB_BW_KERNEL_COUNT; k++)
            for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++)
                prepend(&set->bandwidth[k][l].history, &old->bandwidth[k][l].history);
        for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++)
            for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++)
                prepend(&set->flops_history[t][l], &old->flops_history[t][l]);
        for (int k = 0; k < KB_BW_KERNEL_COUNT; k++)
            keep_curve_history(&set->curves[k], &old->curves[k]);
    }
    if (sets == 1)
        peaks->sets[KB_PEAKS_ALL_THREADS] = peaks->sets[KB_PEAKS_ONE_THREAD];
}

bool kb_peaks_add_record(kb_peaks *peaks, const kb_bw_record *r) {
    if ((unsigned)r->kernel >= KB_BW_KERNEL_COUNT || (unsigned)r->level >= KB_MEM_LEVEL_COUNT ||
        !(r->bytes_per_second > 0))
        return false;
    int sets = one_core(peaks) ? 1 : KB_PEAKS_SET_COUNT;
    bool added = false;
    for (int s = 0; s < sets; s++) {
        kb_peak_set *set = &peaks->sets[s];
        if (set->threads != r->threads)
            continue;
        kb_peak_history_add(&set->bandwidth[r->kernel][r->level].history, r->at,
                            r->bytes_per_second);
        added = true;
    }
    if (sets == 1 && added)
        peaks->sets[KB_PEAKS_ALL_THREADS] = peaks->sets[KB_PEAKS_ONE_THREAD];
    return added;
}

kb_status kb_peaks_cache_add(const char *path, const char *key, const kb_bw_record *records,
                             int count) {
    if (count <= 0)
        return KB_OK;
    kb_peaks *peaks = malloc(sizeof *peaks);
    if (!peaks)
        return kb_fail(KB_ENOMEM, "out of memory");
    bool found = false;
    kb_status st = kb_peaks_cache_read(path, key, peaks, &found);
    if (st == KB_OK && found) {
        bool added = false;
        for (int i = 0; i < count; i++)
            added |= kb_peaks_add_record(peaks, &records[i]);
        if (added)
            st = kb_peaks_cache_write(path, key, peaks);
    }
    free(peaks);
    return st;
}

static double typical(const kb_peak_history *h) {
    kb_peak_summary s;
    kb_peak_history_summarize(h, &s);
    return s.typical;
}

static void finding(char (*lines)[160], int max, int *n, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static void finding(char (*lines)[160], int max, int *n, const char *format, ...) {
    if (*n < max) {
        va_list args;
        va_start(args, format);
        vsnprintf(lines[*n], sizeof lines[*n], format, args);
        va_end(args);
    }
    (*n)++;
}

int kb_peaks_check(const kb_peaks *p, char (*lines)[160], int max) {
    int n = 0;
    const kb_peak_set *one = &p->sets[KB_PEAKS_ONE_THREAD], *all = &p->sets[KB_PEAKS_ALL_THREADS];
    bool two_sets = all->threads > one->threads;
    for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++) {
        const char *level = kb_mem_level_name((kb_mem_level)l);
        for (int k = 0; two_sets && k < KB_BW_KERNEL_COUNT; k++) {
            double a = typical(&all->bandwidth[k][l].history);
            double o = typical(&one->bandwidth[k][l].history);
            if (a > 0 && o > 0 && a < o)
                finding(lines, max, &n,
                        "%s %s at %d threads (%.1f GB/s) is below its 1-thread figure (%.1f GB/s)",
                        kb_bw_kernel_name((kb_bw_kernel)k), level, all->threads, a * 1e-9,
                        o * 1e-9);
        }
        for (int s = 0; s < (two_sets ? KB_PEAKS_SET_COUNT : 1); s++) {
            const kb_peak_set *set = &p->sets[s];
            double load = typical(&set->bandwidth[KB_BW_LOAD][l].history);
            double copy = typical(&set->bandwidth[KB_BW_COPY][l].history);
            if (load > 0 && copy > 0 && load < KB_PEAKS_LOAD_VS_COPY * copy)
                finding(lines, max, &n,
                        "load %s at %d thread%s (%.1f GB/s) is below %.1fx copy (%.1f GB/s)", level,
                        set->threads, kb_plural(set->threads), load * 1e-9, KB_PEAKS_LOAD_VS_COPY,
                        copy * 1e-9);
        }
    }
    for (int t = 0; two_sets && t < KB_FLOP_TYPE_COUNT; t++)
        for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
            double a = typical(&all->flops_history[t][l]), o = typical(&one->flops_history[t][l]);
            if (a > 0 && o > 0 && a < o)
                finding(lines, max, &n,
                        "FMA %s %s at %d threads (%.1f GFLOP/s) is below its 1-thread figure "
                        "(%.1f GFLOP/s)",
                        kb_flop_type_name((kb_flop_type)t), kb_simd_name((kb_simd_level)l),
                        all->threads, a * 1e-9, o * 1e-9);
        }
    return n;
}
