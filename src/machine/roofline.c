/* kb_roofline_compute: a result held against the roofline, with its plausibility flags. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/roofline.h"
#include "util/internal.h"
#include "util/strings.h"

static kb_mem_level level_of(int64_t working_set, const kb_roofline_peaks *p) {
    for (int l = KB_MEM_L1; l < KB_MEM_DRAM; l++)
        if (p->capacity[l] > 0 && working_set <= p->capacity[l])
            return (kb_mem_level)l;
    return KB_MEM_DRAM;
}

/* A working set beyond a cache's capacity still finds up to that capacity in it: at best a
 * fraction capacity / working set of the bytes comes from the cache above, at its bandwidth,
 * and the rest from the level the working set lives in. (A 64 MiB array read over and over
 * with 32 MiB of L3 is served half from L3, and runs well above the DRAM peak.) Optimistic,
 * as a bound must be. */
static double level_bandwidth(const kb_roofline_peaks *p, kb_mem_level level, double own,
                              int64_t ws) {
    if (level == KB_MEM_L1 || own <= 0 || ws <= 0)
        return own;
    double above = p->bytes_per_second[level - 1];
    int64_t capacity = p->capacity[level - 1];
    if (above <= own || capacity <= 0)
        return own;
    double cached = fmin(1, (double)capacity / (double)ws);
    return 1 / (cached / above + (1 - cached) / own);
}

/* The curve's bound at a working set: the highest of the points in the window below it
 * (KB_ROOFLINE_CURVE_WINDOW), of the last point at or below it, and of the first point when it
 * is below them all; *at gets the point that gave it. 0 and -1 without a curve. */
static double curve_bandwidth(const kb_roofline_peaks *p, int64_t ws, int *at) {
    *at = -1;
    int last_below = 0;
    while (last_below + 1 < p->curve_points && p->curve_working_set[last_below + 1] <= ws)
        last_below++;
    double best = 0;
    for (int i = 0; i < p->curve_points; i++) {
        bool in_window = p->curve_working_set[i] <= ws &&
                         (double)p->curve_working_set[i] * KB_ROOFLINE_CURVE_WINDOW >= (double)ws;
        if ((in_window || i == last_below) && p->curve_bytes_per_second[i] > best) {
            best = p->curve_bytes_per_second[i];
            *at = i;
        }
    }
    return best;
}

static void name_figure(const kb_roofline_peaks *p, int curve_point, kb_roofline *out) {
    if (out->memory_bound && curve_point >= 0) {
        out->figure = p->curve_figure[curve_point];
        char size[32];
        kb_format_bytes(size, sizeof size, p->curve_working_set[curve_point]);
        snprintf(out->figure_name, sizeof out->figure_name, "%s at %s",
                 kb_bw_kernel_name(p->traffic), size);
    } else if (out->memory_bound) {
        out->figure = p->bandwidth_figure[out->level];
        snprintf(out->figure_name, sizeof out->figure_name, "%s %s", kb_bw_kernel_name(p->traffic),
                 kb_mem_level_name(out->level));
    } else {
        out->figure = p->flops_figure;
        snprintf(out->figure_name, sizeof out->figure_name, "FMA %s %s",
                 kb_flop_type_name(p->flop_type), kb_simd_name(p->simd));
    }
}

static double percent(double achieved, double peak) {
    return peak > 0 ? 100.0 * achieved / peak : NAN;
}

kb_status kb_roofline_compute(const kb_roofline_input *in, const kb_roofline_peaks *peaks,
                              kb_roofline *out) {
    memset(out, 0, sizeof *out);
    if (!(in->seconds > 0) || !isfinite(in->seconds))
        return kb_fail(KB_EINVAL, "roofline: time per call must be positive, not %g", in->seconds);
    if (!(in->bytes >= 0) || !(in->flops >= 0) || !isfinite(in->bytes) || !isfinite(in->flops))
        return kb_fail(KB_EINVAL, "roofline: byte and FLOP counts must be finite and not negative");
    if (in->bytes == 0 && in->flops == 0)
        return kb_fail(KB_EINVAL, "roofline: a call with no bytes and no FLOPs has no bound");
    if (in->working_set_bytes < 0)
        return kb_fail(KB_EINVAL, "roofline: working set must not be negative");

    out->bytes_per_second = in->bytes / in->seconds;
    out->flops_per_second = in->flops / in->seconds;
    out->intensity = in->flops == 0 ? 0 : in->bytes == 0 ? INFINITY : in->flops / in->bytes;
    out->level = level_of(in->working_set_bytes, peaks);

    /* The run's own probe shows what the machine did just before: a bound below it is stale. */
    double probe = peaks->probe_bytes_per_second[out->level];
    double own = fmax(peaks->bytes_per_second[out->level], probe);
    double bandwidth = level_bandwidth(peaks, out->level, own, in->working_set_bytes);
    int curve_point;
    double curve = curve_bandwidth(peaks, in->working_set_bytes, &curve_point);
    if (curve > bandwidth)
        bandwidth = curve;
    else
        curve_point = -1;
    double probe_bound =
        probe > 0 ? level_bandwidth(peaks, out->level, probe, in->working_set_bytes) : 0;
    out->percent_of_probe =
        probe > 0 && in->bytes > 0 ? percent(out->bytes_per_second, probe) : NAN;
    double flops = peaks->flops_per_second;
    out->peak_bytes_per_second = bandwidth;
    out->peak_flops_per_second = flops;
    out->percent_of_bandwidth = in->bytes == 0 ? 0 : percent(out->bytes_per_second, bandwidth);
    out->percent_of_flops = in->flops == 0 ? 0 : percent(out->flops_per_second, flops);

    /* A term whose peak is unknown could be the larger one: without it there is no bound. */
    out->bound_known = (in->bytes == 0 || bandwidth > 0) && (in->flops == 0 || flops > 0);
    if (!out->bound_known) {
        out->bound_seconds = out->bound_flops_per_second = out->percent_of_bound = NAN;
        return KB_OK;
    }
    double memory_time = in->bytes > 0 ? in->bytes / bandwidth : 0;
    double compute_time = in->flops > 0 ? in->flops / flops : 0;
    out->memory_bound = memory_time >= compute_time;
    name_figure(peaks, curve_point, out);
    out->bound_seconds = fmax(memory_time, compute_time);
    out->bound_flops_per_second = in->flops > 0 ? in->flops / out->bound_seconds : NAN;
    out->percent_of_bound = 100.0 * out->bound_seconds / in->seconds;

    double low_min = in->low_min_seconds > 0 ? in->low_min_seconds : KB_ROOFLINE_LOW_MIN_SECONDS;
    bool above_probe = probe_bound > 0 && in->bytes > 0 && out->bytes_per_second > probe_bound;
    /* Above the credible figure but not above a measurement set aside as an outlier, when
     * that one is within KB_ROOFLINE_MODE_RATIO of it: two measurements now agree on the
     * higher figure (a bimodal machine's upper mode, seen once before), so the result is
     * suspicious, not impossible. */
    const kb_roofline_figure *fig = &out->figure;
    bool plausible_mode =
        fig->highest > fig->value && fig->highest <= KB_ROOFLINE_MODE_RATIO * fig->value;
    double of_highest =
        plausible_mode ? out->percent_of_bound * fig->value / fig->highest : out->percent_of_bound;
    if (out->percent_of_bound > 100.0 && of_highest > 100.0) {
        out->flags |= KB_ROOFLINE_IMPOSSIBLE;
    } else if (out->percent_of_bound > KB_ROOFLINE_HIGH_PERCENT || above_probe) {
        out->flags |= KB_ROOFLINE_SUSPICIOUS_HIGH;
        out->above_probe = above_probe ? probe_bound : 0;
    } else if (out->percent_of_bound < KB_ROOFLINE_LOW_PERCENT && out->bound_seconds >= low_min)
        out->flags |= KB_ROOFLINE_SUSPICIOUS_LOW;
    return KB_OK;
}

const char *kb_roofline_flag_name(unsigned flag) {
    switch (flag) {
        case KB_ROOFLINE_IMPOSSIBLE:
            return "impossible";
        case KB_ROOFLINE_SUSPICIOUS_HIGH:
            return "suspicious-high";
        case KB_ROOFLINE_SUSPICIOUS_LOW:
            return "suspicious-low";
        default:
            return "?";
    }
}

void kb_roofline_flags_describe(unsigned flags, char *buf, int size) {
    if (size <= 0)
        return;
    buf[0] = '\0';
    for (unsigned f = 1; f <= KB_ROOFLINE_SUSPICIOUS_LOW; f <<= 1) {
        if (!(flags & f))
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, (size_t)size - used, "%s%s", used ? "," : "",
                 kb_roofline_flag_name(f));
    }
}

void kb_roofline_explain(const kb_roofline *r, char *buf, int size) {
    if (size <= 0)
        return;
    buf[0] = '\0';
    const kb_roofline_figure *f = &r->figure;
    if (!(r->flags & (KB_ROOFLINE_IMPOSSIBLE | KB_ROOFLINE_SUSPICIOUS_HIGH)) || f->threads < 1 ||
        !r->figure_name[0])
        return;
    bool memory = r->memory_bound;
    const char *unit = memory ? "GB/s" : "GFLOP/s";
    char highest[96];
    snprintf(highest, sizeof highest, "highest seen %.1f %s%s (%d measurement%s)",
             f->highest * 1e-9, unit, f->highest > f->value ? ", set aside as an outlier" : "",
             f->count, kb_plural(f->count));
    if (!(r->flags & KB_ROOFLINE_IMPOSSIBLE)) {
        if (r->percent_of_bound > 100.0)
            snprintf(buf, (size_t)size,
                     "above %s at %d thread%s (%.1f %s), but not above the %.1f %s set aside as "
                     "an outlier, which it corroborates (%d measurement%s)",
                     r->figure_name, f->threads, kb_plural(f->threads), f->value * 1e-9, unit,
                     f->highest * 1e-9, unit, f->count, kb_plural(f->count));
        else if (r->above_probe > 0)
            snprintf(buf, (size_t)size, "above this run's probe of %s at %d thread%s (%.1f %s); %s",
                     r->figure_name, f->threads, kb_plural(f->threads), r->above_probe * 1e-9, unit,
                     highest);
        return;
    }
    char when[32] = "at an unknown time";
    if (f->measured_at <= 0 || !kb_format_utc(when, sizeof when, f->measured_at))
        snprintf(when, sizeof when, "at an unknown time");
    snprintf(buf, (size_t)size, "above %s at %d thread%s: %.1f %s measured %s; %s", r->figure_name,
             f->threads, kb_plural(f->threads), f->value * 1e-9, unit, when, highest);
}
