/* The roofline's bounds per memory level, from the measured peaks and the cache sizes. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/roofline.h"
#include "machine/internal.h"

/* A figure as a bound: the highest credible measurement of its history; a figure without
 * history (peaks written by hand) stands for itself. */
static kb_roofline_figure figure(const kb_peak_history *h, double best, int threads,
                                 int64_t measured_at) {
    kb_roofline_figure f = {0};
    kb_peak_summary s;
    kb_peak_history_summarize(h, &s);
    if (s.count > 0) {
        f = (kb_roofline_figure){threads, s.bound, s.bound_at, s.highest, s.count};
    } else if (best > 0) {
        f = (kb_roofline_figure){threads, best, measured_at, best, 1};
    }
    return f;
}

/* A peak at threads threads from the 1-thread and all-cores figures (0 when unknown), and the
 * figure that gave it. Optimistic in between: each added thread could at most add a one-thread
 * peak, and together they could not beat the all-cores peak. Never below the one-thread peak:
 * more threads are free to leave the work to one (a small call does, below the parallel
 * threshold), so an all-cores peak measured lower, on cores shared with other work, does not
 * bound them. */
static double between(const kb_roofline_figure *one, const kb_roofline_figure *all, int threads,
                      kb_roofline_figure *from) {
    memset(from, 0, sizeof *from);
    if (threads <= 1) {
        *from = *one;
        return one->value;
    }
    if (one->value <= 0 || all->value <= 0)
        return 0;
    double scaled = threads >= all->threads ? all->value : fmin(one->value * threads, all->value);
    *from = scaled >= one->value && scaled == all->value ? *all : *one;
    return fmax(scaled, one->value);
}

/* The figure of a curve's point at or below ws, or of its first point for a smaller ws. */
static kb_roofline_figure curve_figure(const kb_bw_curve *c, int64_t ws, int threads,
                                       int64_t measured_at) {
    int at = 0;
    while (at + 1 < c->count && c->points[at + 1].working_set_bytes <= ws)
        at++;
    const kb_bw_curve_point *p = &c->points[at];
    return figure(&p->history, p->bytes_per_second.best, threads, measured_at);
}

/* The curve of the traffic's kernel; none (curve_points 0) when either set lacks it, and the
 * levels' bounds stand alone. */
static void curve_bounds(const kb_peaks *peaks, int threads, kb_bw_kernel traffic,
                         kb_roofline_peaks *out) {
    const kb_peak_set *one = &peaks->sets[KB_PEAKS_ONE_THREAD];
    const kb_peak_set *all = &peaks->sets[KB_PEAKS_ALL_THREADS];
    const kb_bw_curve *co = &one->curves[traffic], *ca = &all->curves[traffic];
    if (co->count == 0 || ca->count == 0)
        return;
    /* Both curves' working sets, merged in order without repeats. */
    int i = 0, j = 0, n = 0;
    while (i < co->count || j < ca->count) {
        int64_t a = i < co->count ? co->points[i].working_set_bytes : INT64_MAX;
        int64_t b = j < ca->count ? ca->points[j].working_set_bytes : INT64_MAX;
        int64_t ws = a < b ? a : b;
        i += a == ws;
        j += b == ws;
        kb_roofline_figure fo = curve_figure(co, ws, 1, peaks->measured_at);
        kb_roofline_figure fa = curve_figure(ca, ws, all->threads, peaks->measured_at);
        out->curve_working_set[n] = ws;
        out->curve_bytes_per_second[n] = between(&fo, &fa, threads, &out->curve_figure[n]);
        n++;
    }
    out->curve_points = n;
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
    out->traffic = traffic;
    out->flop_type = type;
    out->simd = level;
    for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++) {
        const kb_bw_peak *o = &one->bandwidth[traffic][l], *a = &all->bandwidth[traffic][l];
        kb_roofline_figure fo =
            figure(&o->history, o->bytes_per_second.best, 1, peaks->measured_at);
        kb_roofline_figure fa =
            figure(&a->history, a->bytes_per_second.best, all->threads, peaks->measured_at);
        out->bytes_per_second[l] = between(&fo, &fa, threads, &out->bandwidth_figure[l]);
    }
    kb_roofline_figure fo = figure(&one->flops_history[type][level], one->flops[type][level].best,
                                   1, peaks->measured_at);
    kb_roofline_figure fa = figure(&all->flops_history[type][level], all->flops[type][level].best,
                                   all->threads, peaks->measured_at);
    out->flops_per_second = between(&fo, &fa, threads, &out->flops_figure);
    kb_peaks_capacities(peaks, threads, out->capacity);
    curve_bounds(peaks, threads, traffic, out);
    return KB_OK;
}
