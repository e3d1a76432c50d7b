/* The usage monitor in results files: the run's series (context.monitor) and what each case's
 * samples saw (cases[].usage), written and read back (docs/results-schema.md). */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "results/usage_json.h"
#include "util/internal.h"

static json_t *sample_json(const kb_usage_series *u, int i) {
    const kb_usage_sample *s = &u->samples[i];
    json_t *cpus = json_array();
    for (int c = 0; c < u->ncpus; c++)
        json_array_append_new(cpus,
                              json_real(u->cpu_busy[(size_t)i * (size_t)u->ncpus + (size_t)c]));
    return json_pack(
        "{s:f, s:f, s:f, s:f, s:f, s:o, s:o, s:o, s:o}", "t_s",
        (double)(s->at_ns - u->started_ns) * 1e-9, "busy_cpus", s->busy_cpus, "own_cpus",
        s->own_cpus, "others_cpus", s->others_cpus, "steal_cpus", s->steal_cpus, "cpu_busy", cpus,
        "load1", s->load1 >= 0 ? json_real(s->load1) : json_null(), "mem_available_bytes",
        s->mem_available_bytes >= 0 ? json_integer(s->mem_available_bytes) : json_null(),
        "clock_mhz", kb_json_positive(s->clock_mhz));
}

json_t *kb_usage_series_json(const kb_usage_series *u) {
    if (u->interval_s <= 0)
        return json_null();
    json_t *samples = json_array();
    for (int i = 0; i < u->count; i++)
        json_array_append_new(samples, sample_json(u, i));
    return json_pack("{s:f, s:i, s:f, s:f, s:o}", "interval_s", u->interval_s, "ncpus", u->ncpus,
                     "overhead_s", u->overhead_s, "contended_threshold_cpus",
                     KB_USAGE_CONTENDED_CPUS, "samples", samples);
}

json_t *kb_result_usage_json(const kb_bench_result *r) {
    if (!r->has_usage)
        return json_null();
    return json_pack("{s:f, s:f, s:b}", "outside_cpus", r->outside_cpus, "steal_cpus",
                     r->steal_cpus, "contended", r->contended);
}

static void read_sample(jfield *f, const json_t *o, kb_usage_series *u, int i) {
    kb_usage_sample *s = &u->samples[i];
    s->at_ns = (int64_t)(jfield_number(f, o, "t_s", false) * 1e9);
    s->busy_cpus = jfield_number(f, o, "busy_cpus", false);
    s->own_cpus = jfield_number(f, o, "own_cpus", false);
    s->others_cpus = jfield_number(f, o, "others_cpus", false);
    s->steal_cpus = jfield_number(f, o, "steal_cpus", false);
    const json_t *load = jfield_get(f, o, "load1", J_NUMBER | J_NULL);
    s->load1 = json_is_number(load) ? json_number_value(load) : -1;
    const json_t *mem = jfield_get(f, o, "mem_available_bytes", J_INT | J_NULL);
    s->mem_available_bytes = json_is_integer(mem) ? (int64_t)json_integer_value(mem) : -1;
    s->clock_mhz = jfield_number(f, o, "clock_mhz", true);
    const json_t *cpus = jfield_get(f, o, "cpu_busy", J_ARRAY);
    if (f->status == KB_OK && json_array_size(cpus) != (size_t)u->ncpus) {
        jfield_fail(f, "cpu_busy", "expected %d numbers (ncpus), found %zu", u->ncpus,
                    json_array_size(cpus));
        return;
    }
    for (int c = 0; c < u->ncpus && f->status == KB_OK; c++) {
        const json_t *v = json_array_get(cpus, (size_t)c);
        if (!json_is_number(v))
            jfield_fail(f, "cpu_busy", "item %d: expected a number, found %s", c,
                        jfield_kind_name(v));
        else
            u->cpu_busy[(size_t)i * (size_t)u->ncpus + (size_t)c] = json_number_value(v);
    }
}

void kb_usage_series_read(jfield *f, const json_t *ctx, kb_usage_series *u) {
    memset(u, 0, sizeof *u);
    /* Absent from files written before the monitor. */
    if (!json_object_get(ctx, "monitor"))
        return;
    const json_t *o = jfield_get(f, ctx, "monitor", J_OBJECT | J_NULL);
    if (!json_is_object(o))
        return;
    size_t mark = jfield_push_key(f, "monitor");
    u->interval_s = jfield_number(f, o, "interval_s", false);
    int64_t ncpus = jfield_int(f, o, "ncpus", false);
    u->overhead_s = jfield_number(f, o, "overhead_s", false);
    const json_t *samples = jfield_get(f, o, "samples", J_ARRAY);
    if (f->status == KB_OK && !(u->interval_s > 0))
        jfield_fail(f, "interval_s", "expected a number above 0, found %g", u->interval_s);
    if (f->status == KB_OK && (ncpus < 1 || ncpus > 65536))
        jfield_fail(f, "ncpus", "expected 1 to 65536, found %lld", (long long)ncpus);
    size_t n = f->status == KB_OK ? json_array_size(samples) : 0;
    if (n > 0) {
        u->ncpus = (int)ncpus;
        u->samples = calloc(n, sizeof *u->samples);
        u->cpu_busy = calloc(n * (size_t)ncpus, sizeof *u->cpu_busy);
        if (!u->samples || !u->cpu_busy)
            f->status = kb_fail(KB_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n && f->status == KB_OK; i++) {
        size_t at = jfield_push_key(f, "samples");
        jfield_push_index(f, i);
        const json_t *s = json_array_get(samples, i);
        if (!json_is_object(s))
            jfield_fail(f, NULL, "expected an object, found %s", jfield_kind_name(s));
        else
            read_sample(f, s, u, (int)i);
        jfield_pop(f, at);
        u->count = (int)i + 1;
    }
    u->ncpus = (int)ncpus;
    jfield_pop(f, mark);
}

void kb_result_usage_read(jfield *f, const json_t *obj, kb_bench_result *r) {
    if (!json_object_get(obj, "usage"))
        return;
    const json_t *o = jfield_get(f, obj, "usage", J_OBJECT | J_NULL);
    if (!json_is_object(o))
        return;
    size_t mark = jfield_push_key(f, "usage");
    r->outside_cpus = jfield_number(f, o, "outside_cpus", false);
    r->steal_cpus = jfield_number(f, o, "steal_cpus", false);
    r->contended = jfield_bool(f, o, "contended");
    r->has_usage = f->status == KB_OK;
    jfield_pop(f, mark);
}
