/* The peaks as JSON and back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/internal.h"
#include "machine/peaks/peaks_json.h"
#include "util/internal.h"

/* The JSON form of kb_peaks, documented in docs/roofline.md. Rates are written in units of
 * 10^9 per second (GB/s, GFLOP/s), which people read; the round trip is exact to the 17
 * significant digits jansson writes, up to the one rounding of the scaling. */
#define KB_PEAKS_FORMAT "kbench-peaks/3"

/* What the reader accepts for counts of CPUs or threads (and line sizes), and for the size of
 * one cache: far above any machine, far below where arithmetic on them overflows. */
#define KB_PEAKS_MAX_CPUS (1 << 20)
#define KB_PEAKS_MAX_CACHE_BYTES ((int64_t)1 << 40)

static json_t *rate_json(const kb_rate *r, double scale) {
    return json_pack("{s:f, s:f, s:f, s:f}", "best", r->best * scale, "median", r->median * scale,
                     "min", r->min * scale, "max", r->max * scale);
}

/* The measurements, and what they say (derived, so not read back). */
static json_t *history_json(const kb_peak_history *h, double scale) {
    json_t *a = json_array();
    char when[32];
    for (int i = 0; i < h->count && a; i++) {
        kb_format_utc(when, sizeof when, h->samples[i].at);
        json_array_append_new(
            a, json_pack("{s:s, s:f}", "at", when, "value", h->samples[i].value * scale));
    }
    return a;
}

static json_t *summary_json(const kb_peak_history *h, double scale) {
    kb_peak_summary s;
    kb_peak_history_summarize(h, &s);
    if (s.count == 0)
        return json_null();
    char bound_at[32], highest_at[32];
    kb_format_utc(bound_at, sizeof bound_at, s.bound_at);
    kb_format_utc(highest_at, sizeof highest_at, s.highest_at);
    return json_pack("{s:i, s:f, s:s, s:f, s:s, s:b, s:f, s:f, s:s}", "count", s.count, "bound",
                     s.bound * scale, "bound_measured_at", bound_at, "highest", s.highest * scale,
                     "highest_measured_at", highest_at, "highest_is_outlier", s.outlier, "lowest",
                     s.lowest * scale, "typical", s.typical * scale, "spread",
                     kb_peak_spread_name(s.spread));
}

static json_t *curve_json(const kb_bw_curve *c) {
    json_t *a = json_array();
    for (int i = 0; i < c->count && a; i++) {
        const kb_bw_curve_point *p = &c->points[i];
        json_array_append_new(a, json_pack("{s:I, s:i, s:o, s:o, s:o}", "working_set_bytes",
                                           (json_int_t)p->working_set_bytes, "repetitions",
                                           p->bytes_per_second.repetitions, "gbytes_per_s",
                                           rate_json(&p->bytes_per_second, 1e-9), "history",
                                           history_json(&p->history, 1e-9), "history_summary",
                                           summary_json(&p->history, 1e-9)));
    }
    return a;
}

static json_t *set_json(const kb_peak_set *set, const kb_cache caches[KB_CACHE_LEVEL_COUNT],
                        kb_simd_level simd) {
    json_t *bw = json_array();
    for (int k = 0; k < KB_BW_KERNEL_COUNT; k++) {
        kb_bw_traffic t;
        kb_bw_kernel_traffic((kb_bw_kernel)k, &t);
        double wa = (double)(t.read_bytes + t.write_bytes + t.write_allocate_bytes) /
                    (t.read_bytes + t.write_bytes);
        for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++) {
            const kb_bw_peak *p = &set->bandwidth[k][l];
            if (p->bytes_per_second.repetitions == 0)
                continue;
            /* In L1 the written lines stay in the cache, and non-temporal stores write lines
             * without reading them: no write-allocate traffic to count. */
            json_t *with_wa = l == KB_MEM_L1 || t.write_allocate_bytes == 0 ||
                                      !kb_bw_stores_allocate(simd, p->working_set_bytes)
                                  ? json_null()
                                  : rate_json(&p->bytes_per_second, wa * 1e-9);
            json_array_append_new(bw,
                                  json_pack("{s:s, s:s, s:I, s:i, s:o, s:o, s:o, s:o}", "kernel",
                                            kb_bw_kernel_name((kb_bw_kernel)k), "level",
                                            kb_mem_level_name((kb_mem_level)l), "working_set_bytes",
                                            (json_int_t)p->working_set_bytes, "repetitions",
                                            p->bytes_per_second.repetitions, "gbytes_per_s",
                                            rate_json(&p->bytes_per_second, 1e-9),
                                            "gbytes_per_s_with_write_allocate", with_wa, "history",
                                            history_json(&p->history, 1e-9), "history_summary",
                                            summary_json(&p->history, 1e-9)));
        }
    }
    json_t *flops = json_array();
    for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++)
        for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
            const kb_rate *r = &set->flops[t][l];
            if (r->repetitions == 0)
                continue;
            const kb_peak_history *h = &set->flops_history[t][l];
            json_array_append_new(
                flops, json_pack("{s:s, s:s, s:i, s:o, s:o, s:o}", "type",
                                 kb_flop_type_name((kb_flop_type)t), "simd",
                                 kb_simd_name((kb_simd_level)l), "repetitions", r->repetitions,
                                 "gflops_per_s", rate_json(r, 1e-9), "history",
                                 history_json(h, 1e-9), "history_summary", summary_json(h, 1e-9)));
        }
    json_t *curves = json_object();
    for (int k = 0; k < KB_BW_KERNEL_COUNT; k++)
        if (set->curves[k].count > 0)
            json_object_set_new(curves, kb_bw_kernel_name((kb_bw_kernel)k),
                                curve_json(&set->curves[k]));
    /* Derived from the load curve, for people and reports; not read back. */
    int64_t cap[KB_MEM_DRAM];
    kb_bw_curve_capacities(&set->curves[KB_BW_LOAD], caches, set->threads, cap);
    json_t *capacities = json_object();
    for (int l = 0; l < KB_MEM_DRAM; l++)
        json_object_set_new(capacities, kb_mem_level_name((kb_mem_level)l),
                            json_integer((json_int_t)cap[l]));
    return json_pack("{s:i, s:o, s:o, s:o, s:o}", "threads", set->threads, "bandwidth", bw, "flops",
                     flops, "curves", curves, "effective_capacities", capacities);
}

json_t *kb_peaks_json_build(const kb_peaks *p) {
    /* A time gmtime cannot represent is written as the epoch, which reads back. */
    char when[32];
    if (!kb_format_utc(when, sizeof when, p->measured_at))
        snprintf(when, sizeof when, "1970-01-01T00:00:00Z");
    json_t *caches = json_object();
    for (int c = 0; c < KB_CACHE_LEVEL_COUNT; c++)
        json_object_set_new(caches, kb_cache_name((kb_cache_level)c),
                            json_pack("{s:I, s:i, s:i}", "size_bytes",
                                      (json_int_t)p->caches[c].size, "line_size",
                                      p->caches[c].line_size, "shared_by", p->caches[c].shared_by));
    json_t *sets = json_array();
    for (int s = 0; s < KB_PEAKS_SET_COUNT; s++)
        json_array_append_new(sets, set_json(&p->sets[s], p->caches, p->bandwidth_simd));
    return json_pack("{s:s, s:s, s:o, s:b, s:s, s:o, s:i, s:o, s:o}", "format", KB_PEAKS_FORMAT,
                     "measured_at", when, "load_average",
                     p->load_average >= 0 ? json_real(p->load_average) : json_null(), "quick",
                     p->quick, "bandwidth_simd", kb_simd_name(p->bandwidth_simd), "clock_mhz",
                     p->clock_mhz > 0 ? json_real(p->clock_mhz) : json_null(), "logical_cpus",
                     p->logical_cpus, "caches", caches, "sets", sets);
}

kb_status kb_peaks_to_json(const kb_peaks *p, char **text) {
    *text = NULL;
    json_t *root = kb_peaks_json_build(p);
    if (!root)
        return kb_fail(KB_ENOMEM, "cannot build the peaks JSON");
    *text = kb_json_dumps(root, KB_JSON_EXACT | JSON_INDENT(2));
    json_decref(root);
    return *text ? KB_OK : kb_fail(KB_ENOMEM, "cannot write the peaks JSON");
}

static kb_status read_root(json_t *root, kb_peaks *out);

static kb_status bad(const char *what) {
    return kb_fail(KB_EFORMAT, "peaks JSON: %s", what);
}

static int find_name(const char *name, const char *(*name_of)(int), int count) {
    for (int i = 0; i < count; i++)
        if (strcmp(name, name_of(i)) == 0)
            return i;
    return -1;
}

static const char *kernel_name(int i) {
    return kb_bw_kernel_name((kb_bw_kernel)i);
}
static const char *level_name(int i) {
    return kb_mem_level_name((kb_mem_level)i);
}
static const char *type_name(int i) {
    return kb_flop_type_name((kb_flop_type)i);
}
static const char *simd_name(int i) {
    return kb_simd_name((kb_simd_level)i);
}
static const char *cache_name(int i) {
    return kb_cache_name((kb_cache_level)i);
}

static kb_status read_rate(json_t *obj, const char *key, int repetitions, kb_rate *r) {
    json_error_t e;
    double best, median, min, max;
    if (json_unpack_ex(json_object_get(obj, key), &e, JSON_STRICT, "{s:F, s:F, s:F, s:F}", "best",
                       &best, "median", &median, "min", &min, "max", &max) != 0)
        return kb_fail(KB_EFORMAT, "peaks JSON: %s: %s", key, e.text);
    if (!(min >= 0 && min <= median && median <= max && max == best) || repetitions < 1)
        return bad("a rate is not ordered min <= median <= max = best");
    /* Per second, the rate must still be a number that kb_peaks_to_json can write back. */
    if (!isfinite(max * 1e9))
        return bad("a rate is too large");
    r->best = best * 1e9;
    r->median = median * 1e9;
    r->min = min * 1e9;
    r->max = max * 1e9;
    r->repetitions = repetitions;
    return KB_OK;
}

/* A history as written by history_json; absent (version 1), the one measurement the entry
 * holds, at the time the peaks were measured. */
static kb_status read_history(json_t *a, const kb_rate *rate, int64_t measured_at,
                              kb_peak_history *h) {
    memset(h, 0, sizeof *h);
    if (!a) {
        kb_peak_history_add(h, measured_at, rate->best);
        return KB_OK;
    }
    if (!json_is_array(a))
        return bad("history is not an array");
    size_t i;
    json_t *item;
    json_array_foreach(a, i, item) {
        const char *when;
        double value;
        json_error_t e;
        if (json_unpack_ex(item, &e, JSON_STRICT, "{s:s, s:F}", "at", &when, "value", &value) != 0)
            return kb_fail(KB_EFORMAT, "peaks JSON: history: %s", e.text);
        int64_t at;
        if (!kb_parse_utc(when, &at))
            return bad("a history time is not a UTC time like 2025-01-31T12:00:00Z");
        if (!(value > 0) || !isfinite(value * 1e9))
            return bad("a history value is not a positive number");
        kb_peak_history_add(h, at, value * 1e9);
    }
    return KB_OK;
}

/* A curve as curve_json writes it; name is its key, for messages. */
static kb_status read_curve(json_t *a, const char *name, int64_t measured_at, kb_bw_curve *curve) {
    if (!json_is_array(a) || json_array_size(a) > KB_BW_CURVE_MAX_POINTS)
        return kb_fail(KB_EFORMAT, "peaks JSON: %s is not an array of at most %d points", name,
                       KB_BW_CURVE_MAX_POINTS);
    size_t i;
    json_t *item;
    json_array_foreach(a, i, item) {
        kb_bw_curve_point *p = &curve->points[i];
        json_int_t ws;
        int reps;
        json_t *rate, *history, *summary = NULL;
        json_error_t e;
        if (json_unpack_ex(item, &e, JSON_STRICT, "{s:I, s:i, s:o, s:o, s?o}", "working_set_bytes",
                           &ws, "repetitions", &reps, "gbytes_per_s", &rate, "history", &history,
                           "history_summary", &summary) != 0)
            return kb_fail(KB_EFORMAT, "peaks JSON: %s: %s", name, e.text);
        if (ws <= 0 || (i > 0 && ws <= curve->points[i - 1].working_set_bytes))
            return kb_fail(KB_EFORMAT,
                           "peaks JSON: %s's working sets are not positive and ascending", name);
        p->working_set_bytes = ws;
        kb_status st = read_rate(item, "gbytes_per_s", reps, &p->bytes_per_second);
        if (st == KB_OK)
            st = read_history(history, &p->bytes_per_second, measured_at, &p->history);
        if (st != KB_OK)
            return st;
        curve->count = (int)i + 1;
    }
    return KB_OK;
}

/* The curves of a set: version 3's "curves", an object of one curve per kernel name (a kernel
 * without one was not measured); before it, the load curve alone, as "load_curve" (absent in
 * peaks measured before the curve was). */
static kb_status read_curves(json_t *curves, json_t *load_curve, int version, int64_t measured_at,
                             kb_peak_set *set) {
    if (version < 3) {
        if (curves)
            return bad("curves is of kbench-peaks/3, not of this file's older format");
        return load_curve
                   ? read_curve(load_curve, "load_curve", measured_at, &set->curves[KB_BW_LOAD])
                   : KB_OK;
    }
    if (load_curve)
        return bad("load_curve is of kbench-peaks/2 and before; /3 has curves");
    if (!curves)
        return KB_OK;
    if (!json_is_object(curves))
        return bad("curves is not an object");
    const char *kernel;
    json_t *curve;
    json_object_foreach(curves, kernel, curve) {
        int k = find_name(kernel, kernel_name, KB_BW_KERNEL_COUNT);
        if (k < 0)
            return bad("curves names an unknown kernel");
        char name[32];
        snprintf(name, sizeof name, "curves.%s", kernel_name(k));
        kb_status st = read_curve(curve, name, measured_at, &set->curves[k]);
        if (st != KB_OK)
            return st;
    }
    return KB_OK;
}

static kb_status read_set(json_t *obj, int version, int64_t measured_at, kb_peak_set *set) {
    json_t *bw, *flops, *curves = NULL, *load_curve = NULL;
    json_t *capacities = NULL; /* derived: not read back */
    json_error_t e;
    if (json_unpack_ex(obj, &e, JSON_STRICT, "{s:i, s:o, s:o, s?o, s?o, s?o}", "threads",
                       &set->threads, "bandwidth", &bw, "flops", &flops, "curves", &curves,
                       "load_curve", &load_curve, "effective_capacities", &capacities) != 0)
        return kb_fail(KB_EFORMAT, "peaks JSON: sets: %s", e.text);
    if (set->threads < 1 || set->threads > KB_PEAKS_MAX_CPUS || !json_is_array(bw) ||
        !json_is_array(flops))
        return bad("a set needs threads from 1 to 1048576 and bandwidth and flops arrays");
    size_t i;
    json_t *item;
    json_array_foreach(bw, i, item) {
        const char *kernel, *level;
        json_int_t ws;
        int reps;
        /* The write-allocate rate and the summary are derived, so not read back. */
        json_t *rate, *with_wa, *history = NULL, *summary = NULL;
        if (json_unpack_ex(item, &e, JSON_STRICT, "{s:s, s:s, s:I, s:i, s:o, s:o, s?o, s?o}",
                           "kernel", &kernel, "level", &level, "working_set_bytes", &ws,
                           "repetitions", &reps, "gbytes_per_s", &rate,
                           "gbytes_per_s_with_write_allocate", &with_wa, "history", &history,
                           "history_summary", &summary) != 0)
            return kb_fail(KB_EFORMAT, "peaks JSON: bandwidth: %s", e.text);
        int k = find_name(kernel, kernel_name, KB_BW_KERNEL_COUNT);
        int l = find_name(level, level_name, KB_MEM_LEVEL_COUNT);
        if (k < 0 || l < 0 || ws <= 0)
            return bad("bandwidth entry with an unknown kernel or level or no working set");
        set->bandwidth[k][l].working_set_bytes = ws;
        kb_status st =
            read_rate(item, "gbytes_per_s", reps, &set->bandwidth[k][l].bytes_per_second);
        if (st == KB_OK)
            st = read_history(history, &set->bandwidth[k][l].bytes_per_second, measured_at,
                              &set->bandwidth[k][l].history);
        if (st != KB_OK)
            return st;
    }
    json_array_foreach(flops, i, item) {
        const char *type, *simd;
        int reps;
        json_t *rate, *history = NULL, *summary = NULL;
        if (json_unpack_ex(item, &e, JSON_STRICT, "{s:s, s:s, s:i, s:o, s?o, s?o}", "type", &type,
                           "simd", &simd, "repetitions", &reps, "gflops_per_s", &rate, "history",
                           &history, "history_summary", &summary) != 0)
            return kb_fail(KB_EFORMAT, "peaks JSON: flops: %s", e.text);
        int t = find_name(type, type_name, KB_FLOP_TYPE_COUNT);
        int l = find_name(simd, simd_name, KB_SIMD_LEVEL_COUNT);
        if (t < 0 || l < 0)
            return bad("flops entry with an unknown type or SIMD level");
        kb_status st = read_rate(item, "gflops_per_s", reps, &set->flops[t][l]);
        if (st == KB_OK)
            st = read_history(history, &set->flops[t][l], measured_at, &set->flops_history[t][l]);
        if (st != KB_OK)
            return st;
    }
    return read_curves(curves, load_curve, version, measured_at, set);
}

kb_status kb_peaks_json_read(json_t *root, kb_peaks *out) {
    memset(out, 0, sizeof *out);
    kb_status st = read_root(root, out);
    if (st != KB_OK)
        memset(out, 0, sizeof *out);
    return st;
}

/* The version of a format this reader knows (1 to 3), 0 for any other. */
static int format_version(const char *format) {
    static const char *const known[] = {"kbench-peaks/1", "kbench-peaks/2", KB_PEAKS_FORMAT};
    for (int v = 0; v < (int)(sizeof known / sizeof known[0]); v++)
        if (strcmp(format, known[v]) == 0)
            return v + 1;
    return 0;
}

static kb_status read_root(json_t *root, kb_peaks *out) {
    const char *format, *when, *simd;
    int quick;
    json_t *clock, *load, *caches, *sets;
    json_error_t e;
    if (json_unpack_ex(root, &e, JSON_STRICT, "{s:s, s:s, s:o, s:b, s:s, s:o, s:i, s:o, s:o}",
                       "format", &format, "measured_at", &when, "load_average", &load, "quick",
                       &quick, "bandwidth_simd", &simd, "clock_mhz", &clock, "logical_cpus",
                       &out->logical_cpus, "caches", &caches, "sets", &sets) != 0)
        return kb_fail(KB_EFORMAT, "peaks JSON: %s", e.text);
    int version = format_version(format);
    if (version == 0)
        return kb_fail(KB_EFORMAT, "peaks JSON: format is '%.40s', not '%s'", format,
                       KB_PEAKS_FORMAT);
    if (out->logical_cpus < 0 || out->logical_cpus > KB_PEAKS_MAX_CPUS)
        return bad("logical_cpus is negative or implausibly large");
    out->quick = quick != 0;
    int level = find_name(simd, simd_name, KB_SIMD_LEVEL_COUNT);
    if (level < 0)
        return bad("unknown bandwidth_simd");
    out->bandwidth_simd = (kb_simd_level)level;
    if (json_is_number(load) && json_number_value(load) >= 0)
        out->load_average = json_number_value(load);
    else if (json_is_null(load))
        out->load_average = -1;
    else
        return bad("load_average is neither a number >= 0 nor null");
    /* kb_peaks_to_json writes a clock it does not have (0) as null. */
    if (json_is_number(clock) && json_number_value(clock) >= 0)
        out->clock_mhz = json_number_value(clock);
    else if (!json_is_null(clock))
        return bad("clock_mhz is neither a number >= 0 nor null");
    if (!kb_parse_utc(when, &out->measured_at))
        return bad("measured_at is not a UTC time like 2025-01-31T12:00:00Z");
    for (int c = 0; c < KB_CACHE_LEVEL_COUNT; c++) {
        json_int_t size;
        kb_cache *k = &out->caches[c];
        if (json_unpack_ex(json_object_get(caches, cache_name(c)), &e, JSON_STRICT,
                           "{s:I, s:i, s:i}", "size_bytes", &size, "line_size", &k->line_size,
                           "shared_by", &k->shared_by) != 0)
            return kb_fail(KB_EFORMAT, "peaks JSON: caches.%s: %s", cache_name(c), e.text);
        /* Bounds far above any real cache and CPU count, which keep the capacities computed
         * from them (size x instances, kb_level_capacity) within int64_t. */
        if (size < 0 || size > KB_PEAKS_MAX_CACHE_BYTES || k->line_size < 0 ||
            k->line_size > KB_PEAKS_MAX_CPUS || k->shared_by < 0 ||
            k->shared_by > KB_PEAKS_MAX_CPUS)
            return kb_fail(KB_EFORMAT,
                           "peaks JSON: caches.%s: size_bytes, line_size or shared_by is negative "
                           "or implausibly large",
                           cache_name(c));
        k->size = size;
    }
    if (!json_is_array(sets) || json_array_size(sets) != KB_PEAKS_SET_COUNT)
        return bad("sets must hold two sets: 1 thread and all cores");
    for (int s = 0; s < KB_PEAKS_SET_COUNT; s++) {
        kb_status st =
            read_set(json_array_get(sets, (size_t)s), version, out->measured_at, &out->sets[s]);
        if (st != KB_OK)
            return st;
    }
    if (out->sets[KB_PEAKS_ONE_THREAD].threads != 1)
        return bad("the first set must be at 1 thread");
    return KB_OK;
}

static kb_status read_peaks(json_t *root, const char *label, void *out) {
    return kb_peaks_json_read(root, out);
}

kb_status kb_peaks_from_json(const char *text, kb_peaks *out) {
    memset(out, 0, sizeof *out);
    return kb_json_read_text(text, strlen(text), "peaks JSON", read_peaks, out);
}
