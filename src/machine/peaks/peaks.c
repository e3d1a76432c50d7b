/* kb_peaks_measure: every bandwidth and FLOP peak at one thread and at all cores. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "machine/peaks/bandwidth_arena.h"
#include "machine/peaks/peaks_threads.h"
#include "machine/peaks/working_sets.h"
#include "util/internal.h"
#include "util/strings.h"

/* A full measurement: 20 ms repetitions, eleven of them, the best taken as the peak. --quick
 * keeps the pipeline whole (every kernel, level and thread count) with 2 ms and three. */
static const kb_measure_settings full = {0.02, 11}, quick = {0.002, 3};
/* The curves' points, some sixty per kernel and thread count, with fewer repetitions each:
 * their history gathers more over every `kbench peaks`. The copy and triad curves, which
 * triple the points, get shorter repetitions still, so that `kbench peaks` stays within about
 * a minute (docs/roofline.md). */
static const kb_measure_settings full_curve[KB_BW_KERNEL_COUNT] = {
    [KB_BW_LOAD] = {0.02, 5}, [KB_BW_COPY] = {0.005, 3}, [KB_BW_TRIAD] = {0.005, 3}};
static const kb_measure_settings quick_curve = {0.001, 2};

static void progress(const kb_peaks_options *o, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static void progress(const kb_peaks_options *o, const char *format, ...) {
    if (!o->progress)
        return;
    char line[160];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    o->progress(o->progress_context, line);
}

/* A kernel's curve: each working set measured once, the level figures' own measurements
 * reused where a level's working set is a point of the curve. */
static kb_status measure_curve(const kb_peaks_options *o, const kb_peaks *p, kb_bw_kernel kernel,
                               kb_bw_arena *arena, kb_peak_set *set) {
    int64_t sizes[KB_BW_CURVE_MAX_POINTS];
    kb_bw_curve *curve = &set->curves[kernel];
    curve->count = kb_bw_curve_working_sets(kernel, p->caches, p->logical_cpus, set->threads,
                                            p->quick, sizes, KB_BW_CURVE_MAX_POINTS);
    const kb_measure_settings *s = p->quick ? &quick_curve : &full_curve[kernel];
    for (int i = 0; i < curve->count; i++) {
        kb_bw_curve_point *point = &curve->points[i];
        const kb_bw_peak *same = NULL;
        for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++)
            if (set->bandwidth[kernel][l].working_set_bytes == sizes[i])
                same = &set->bandwidth[kernel][l];
        if (same) {
            point->working_set_bytes = same->working_set_bytes;
            point->bytes_per_second = same->bytes_per_second;
        } else {
            char size[32];
            kb_format_bytes(size, sizeof size, sizes[i]);
            progress(o, "bandwidth curve, %s %s (%d of %d), %d thread%s", kb_bw_kernel_name(kernel),
                     size, i + 1, curve->count, set->threads, kb_plural(set->threads));
            kb_bw_peak peak;
            kb_status st = kb_bw_measure_in(arena, kernel, p->bandwidth_simd, set->threads,
                                            sizes[i], s, &peak);
            if (st != KB_OK)
                return st;
            point->working_set_bytes = peak.working_set_bytes;
            point->bytes_per_second = peak.bytes_per_second;
        }
        kb_peak_history_add(&point->history, p->measured_at, point->bytes_per_second.best);
    }
    return KB_OK;
}

/* A kernel's level figures and its curve at a thread count, each thread's arrays kept from one
 * measurement to the next in arena (bandwidth_arena.c). */
static kb_status measure_kernel(const kb_peaks_options *o, const kb_measure_settings *s,
                                kb_peaks *p, kb_peak_set *set, kb_bw_kernel kernel,
                                kb_bw_arena *arena) {
    for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++) {
        int64_t ws = kb_peaks_working_set(p->caches, p->logical_cpus, (kb_mem_level)l, set->threads,
                                          p->quick);
        char size[32];
        kb_format_bytes(size, sizeof size, ws);
        progress(o, "bandwidth %s %s (%s), %d thread%s", kb_bw_kernel_name(kernel),
                 kb_mem_level_name((kb_mem_level)l), size, set->threads, kb_plural(set->threads));
        kb_bw_peak *peak = &set->bandwidth[kernel][l];
        kb_status st =
            kb_bw_measure_in(arena, kernel, p->bandwidth_simd, set->threads, ws, s, peak);
        if (st != KB_OK)
            return st;
        kb_peak_history_add(&peak->history, p->measured_at, peak->bytes_per_second.best);
    }
    return measure_curve(o, p, kernel, arena, set);
}

static kb_status measure_set(const kb_peaks_options *o, const kb_measure_settings *s, kb_peaks *p,
                             kb_peak_set *set) {
    /* An arena per kernel: the arrays a thread keeps then add up to the kernel's largest
     * working set, as the kernel alone needs, where one arena for all three would hold
     * load's, copy's and triad's at once. */
    for (int k = 0; k < KB_BW_KERNEL_COUNT; k++) {
        kb_bw_arena *arena = kb_bw_arena_new(set->threads);
        if (!arena)
            return kb_fail(KB_ENOMEM, "out of memory for the bandwidth measurements");
        kb_status st = measure_kernel(o, s, p, set, (kb_bw_kernel)k, arena);
        kb_bw_arena_free(arena);
        if (st != KB_OK)
            return st;
    }
    for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++)
        for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
            if (!kb_fma_available((kb_simd_level)l))
                continue;
            progress(o, "flops %s %s, %d thread%s", kb_flop_type_name((kb_flop_type)t),
                     kb_simd_name((kb_simd_level)l), set->threads, kb_plural(set->threads));
            kb_status st = kb_fma_measure((kb_flop_type)t, (kb_simd_level)l, set->threads, s,
                                          &set->flops[t][l]);
            if (st != KB_OK)
                return st;
            kb_peak_history_add(&set->flops_history[t][l], p->measured_at, set->flops[t][l].best);
        }
    return KB_OK;
}

kb_status kb_peaks_measure(const kb_peaks_options *options, kb_peaks *out) {
    memset(out, 0, sizeof *out);
    kb_peaks_options o = options ? *options : (kb_peaks_options){0};
    int threads;
    kb_status st = kb_peaks_threads(o.threads, &threads);
    if (st != KB_OK)
        return st;
    const kb_measure_settings *s = o.quick ? &quick : &full;

    kb_machine m;
    kb_machine_probe(&m);
    out->logical_cpus = m.logical_cpus;
    kb_caches_with_defaults(m.caches, m.logical_cpus, out->caches);
    out->bandwidth_simd = kb_simd_best();
    out->quick = o.quick;
    out->measured_at = (int64_t)time(NULL);
    double load[1];
    out->load_average = getloadavg(load, 1) == 1 ? load[0] : -1;

    /* The fastest of many short repetitions, as for the peaks: time shared with other work
     * only ever makes the add chain look slower than the clock, and a short window is more
     * likely to fit between another process's time slices. */
    progress(&o, "clock");
    kb_clock_measurement clock;
    if (kb_clock_measure(0.002, o.quick ? 15 : 41, &clock) == KB_OK)
        out->clock_mhz = clock.max_mhz;

    out->sets[KB_PEAKS_ONE_THREAD].threads = 1;
    st = measure_set(&o, s, out, &out->sets[KB_PEAKS_ONE_THREAD]);
    if (st != KB_OK)
        return st;
    if (threads == 1) {
        out->sets[KB_PEAKS_ALL_THREADS] = out->sets[KB_PEAKS_ONE_THREAD];
        return KB_OK;
    }
    out->sets[KB_PEAKS_ALL_THREADS].threads = threads;
    return measure_set(&o, s, out, &out->sets[KB_PEAKS_ALL_THREADS]);
}
