/* Results files read back from JSON, checked against the schema. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "machine/internal.h"
#include "results/json.h"
#include "results/usage_json.h"
#include "util/internal.h"

static int simd_level(const char *name) {
    for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++)
        if (strcmp(name, kb_simd_name((kb_simd_level)l)) == 0)
            return l;
    return -1;
}

/* A string member naming a SIMD level. */
static kb_simd_level read_simd(jfield *f, const json_t *obj, const char *key) {
    char name[32];
    jfield_string(f, obj, key, name, sizeof name);
    int level = f->status == KB_OK ? simd_level(name) : 0;
    if (level < 0) {
        jfield_fail(f, key, "unknown SIMD level '%s'", name);
        level = 0;
    }
    return (kb_simd_level)level;
}

static unsigned read_simd_list(jfield *f, const json_t *obj, const char *key) {
    const json_t *a = jfield_get(f, obj, key, J_ARRAY);
    unsigned mask = 0;
    size_t i;
    const json_t *v;
    json_array_foreach(a, i, v) {
        int level = json_is_string(v) ? simd_level(json_string_value(v)) : -1;
        if (level < 0) {
            size_t n = jfield_push_key(f, key);
            jfield_fail(f, NULL, "item %zu is not a SIMD level name", i);
            jfield_pop(f, n);
            return 0;
        }
        mask |= 1u << level;
    }
    return mask;
}

/* An array of strings into a new list. */
static char **read_strings(jfield *f, const json_t *obj, const char *key, int *count) {
    *count = 0;
    const json_t *a = jfield_get(f, obj, key, J_ARRAY);
    if (!a)
        return NULL;
    char **list = calloc(json_array_size(a) + 1, sizeof *list);
    if (!list) {
        f->status = kb_fail(KB_ENOMEM, "out of memory");
        return NULL;
    }
    size_t i;
    const json_t *v;
    json_array_foreach(a, i, v) {
        if (!json_is_string(v)) {
            size_t n = jfield_push_key(f, key);
            jfield_fail(f, NULL, "item %zu: expected a string, found %s", i, jfield_kind_name(v));
            jfield_pop(f, n);
            break;
        }
        if (!(list[*count] = strdup(json_string_value(v)))) {
            f->status = kb_fail(KB_ENOMEM, "out of memory");
            break;
        }
        (*count)++;
    }
    return list;
}

/* Enters the object member key (pushing it on the path); NULL when missing or not one. */
static const json_t *enter(jfield *f, const json_t *obj, const char *key, size_t *mark) {
    const json_t *v = jfield_get(f, obj, key, J_OBJECT);
    *mark = jfield_push_key(f, key);
    return v;
}

static void read_clock(jfield *f, const json_t *obj, const char *key, kb_clock_measurement *m) {
    memset(m, 0, sizeof *m);
    const json_t *v = jfield_get(f, obj, key, J_OBJECT | J_NULL);
    if (!v || json_is_null(v))
        return;
    size_t mark = jfield_push_key(f, key);
    m->mhz = jfield_number(f, v, "mhz", false);
    m->min_mhz = jfield_number(f, v, "min_mhz", false);
    m->max_mhz = jfield_number(f, v, "max_mhz", false);
    m->repetitions = (int)jfield_int(f, v, "repetitions", false);
    jfield_pop(f, mark);
}

static void read_build(jfield *f, const json_t *ctx, kb_bench_build *b) {
    jfield_string(f, ctx, "kbench_version", b->version, sizeof b->version);
    jfield_string(f, ctx, "git_commit", b->git_commit, sizeof b->git_commit);
    /* Absent from files written before kbench recorded it. */
    if (json_object_get(ctx, "git_branch"))
        jfield_string(f, ctx, "git_branch", b->git_branch, sizeof b->git_branch);
    size_t mark;
    const json_t *o = enter(f, ctx, "build", &mark);
    jfield_string(f, o, "compiler", b->compiler, sizeof b->compiler);
    jfield_string(f, o, "c_flags", b->c_flags, sizeof b->c_flags);
    jfield_string(f, o, "build_type", b->build_type, sizeof b->build_type);
    jfield_string(f, o, "arch", b->arch, sizeof b->arch);
    b->optimized = jfield_bool(f, o, "optimized");
    b->sanitizers = jfield_bool(f, o, "sanitizers");
    jfield_pop(f, mark);
}

static void read_machine(jfield *f, const json_t *ctx, kb_bench_context *c) {
    kb_machine *m = &c->machine;
    size_t mark;
    const json_t *o = enter(f, ctx, "system", &mark);
    jfield_string(f, o, "os", m->os, sizeof m->os);
    jfield_string(f, o, "kernel_name", m->kernel_name, sizeof m->kernel_name);
    jfield_string(f, o, "kernel_release", m->kernel_release, sizeof m->kernel_release);
    jfield_string(f, o, "kernel_version", m->kernel_version, sizeof m->kernel_version);
    jfield_string(f, o, "hostname", m->hostname, sizeof m->hostname);
    jfield_string(f, o, "arch", m->arch, sizeof m->arch);
    const json_t *h = jfield_get(f, o, "hypervisor", J_STRING | J_NULL);
    if (h && json_is_string(h))
        jfield_string(f, o, "hypervisor", m->hypervisor, sizeof m->hypervisor);
    jfield_pop(f, mark);

    o = enter(f, ctx, "cpu", &mark);
    jfield_string(f, o, "vendor", m->cpu_vendor, sizeof m->cpu_vendor);
    jfield_string(f, o, "model", m->cpu_model, sizeof m->cpu_model);
    m->logical_cpus = (int)jfield_int(f, o, "logical_cpus", true);
    m->physical_cores = (int)jfield_int(f, o, "physical_cores", true);
    m->sockets = (int)jfield_int(f, o, "sockets", true);
    size_t caches_mark;
    const json_t *caches = enter(f, o, "caches", &caches_mark);
    for (int l = 0; l < KB_CACHE_LEVEL_COUNT; l++) {
        size_t level_mark;
        const json_t *k = enter(f, caches, kb_cache_name((kb_cache_level)l), &level_mark);
        m->caches[l].size = jfield_int(f, k, "size_bytes", true);
        m->caches[l].line_size = (int)jfield_int(f, k, "line_size", true);
        m->caches[l].shared_by = (int)jfield_int(f, k, "shared_by", true);
        jfield_pop(f, level_mark);
    }
    jfield_pop(f, caches_mark);
    int n = 0;
    char **sets = read_strings(f, o, "instruction_sets", &n);
    size_t used = 0;
    c->instruction_sets[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t len = strlen(sets[i]);
        if (used + len + 2 < sizeof c->instruction_sets) {
            memcpy(c->instruction_sets + used, sets[i], len);
            used += len;
            c->instruction_sets[used++] = i + 1 < n ? ',' : '\0';
            c->instruction_sets[used] = '\0';
        }
        free(sets[i]);
    }
    free(sets);
    jfield_pop(f, mark);

    o = enter(f, ctx, "clock", &mark);
    m->nominal_mhz = jfield_number(f, o, "nominal_mhz", true);
    char source[32];
    jfield_string(f, o, "nominal_source", source, sizeof source);
    m->nominal_source = KB_CLOCK_UNKNOWN;
    for (int s = 0; s < KB_CLOCK_SOURCE_COUNT; s++)
        if (strcmp(source, kb_clock_source_name((kb_clock_source)s)) == 0)
            m->nominal_source = (kb_clock_source)s;
    read_clock(f, o, "start", &c->clock_start);
    read_clock(f, o, "end", &c->clock_end);
    jfield_pop(f, mark);
}

/* The load check's numbers: null when it read none, absent from files written before kbench
 * recorded them (the `load` warning's message says them in words). */
static void read_load(jfield *f, const json_t *ctx, kb_env_load *load) {
    memset(load, 0, sizeof *load);
    if (!json_object_get(ctx, "load"))
        return;
    const json_t *v = jfield_get(f, ctx, "load", J_OBJECT | J_NULL);
    if (!v || json_is_null(v))
        return;
    size_t mark = jfield_push_key(f, "load");
    double average = jfield_number(f, v, "average_1min", false);
    int64_t cores = jfield_int(f, v, "usable_cores", false);
    if (f->status == KB_OK && !(average >= 0))
        jfield_fail(f, "average_1min", "expected a number >= 0, found %g", average);
    else if (f->status == KB_OK && (cores < 1 || cores > INT_MAX))
        jfield_fail(f, "usable_cores", "expected an integer >= 1, found %lld", (long long)cores);
    else if (f->status == KB_OK)
        *load = (kb_env_load){.known = true, .average = average, .usable_cores = (int)cores};
    jfield_pop(f, mark);
}

static void read_environment(jfield *f, const json_t *ctx, kb_bench_context *c) {
    read_load(f, ctx, &c->env.load);
    const json_t *a = jfield_get(f, ctx, "environment_warnings", J_ARRAY);
    size_t i;
    const json_t *w;
    json_array_foreach(a, i, w) {
        size_t mark = jfield_push_key(f, "environment_warnings");
        jfield_push_index(f, i);
        if (!json_is_object(w)) {
            jfield_fail(f, NULL, "expected an object, found %s", jfield_kind_name(w));
            return;
        }
        char code[32];
        jfield_string(f, w, "code", code, sizeof code);
        for (int k = 0; k < KB_ENV_CODE_COUNT && c->env.count < KB_ENV_CODE_COUNT; k++) {
            if (strcmp(code, kb_env_code_name((kb_env_code)k)) != 0)
                continue;
            /* Codes a later kbench adds are not kept: kb_env_report holds known ones. */
            kb_env_warning *dst = &c->env.warnings[c->env.count++];
            dst->code = (kb_env_code)k;
            jfield_string(f, w, "message", dst->message, sizeof dst->message);
        }
        jfield_pop(f, mark);
    }
    const json_t *vars = jfield_get(f, ctx, "environment_variables", J_OBJECT);
    const char *name;
    const json_t *value;
    json_object_foreach((json_t *)vars, name, value) {
        if (!json_is_string(value)) {
            size_t mark = jfield_push_key(f, "environment_variables");
            jfield_fail(f, name, "expected a string, found %s", jfield_kind_name(value));
            jfield_pop(f, mark);
            return;
        }
        if (c->nenv_vars == KB_BENCH_MAX_ENV_VARS)
            break;
        c->env_names[c->nenv_vars] = strdup(name);
        c->env_values[c->nenv_vars] = strdup(json_string_value(value));
        c->nenv_vars++;
        if (!c->env_names[c->nenv_vars - 1] || !c->env_values[c->nenv_vars - 1]) {
            f->status = kb_fail(KB_ENOMEM, "out of memory");
            return;
        }
    }
}

static void read_settings(jfield *f, const json_t *ctx, kb_bench_context *c) {
    size_t mark;
    const json_t *o = enter(f, ctx, "timer", &mark);
    char clock[32];
    jfield_string(f, o, "clock", clock, sizeof clock);
    c->timer.resolution_ns = jfield_number(f, o, "resolution_ns", false);
    c->timer.overhead_ns = jfield_number(f, o, "overhead_ns", false);
    c->timer.reported_ns = jfield_number(f, o, "reported_resolution_ns", false);
    jfield_pop(f, mark);

    o = enter(f, ctx, "settings", &mark);
    kb_bench_settings *s = &c->settings;
    s->min_time = jfield_number(f, o, "min_time_s", false);
    s->min_samples = (int)jfield_int(f, o, "min_samples", false);
    s->repetitions = (int)jfield_int(f, o, "repetitions", false);
    char cache[16];
    jfield_string(f, o, "cache", cache, sizeof cache);
    if (f->status == KB_OK && strcmp(cache, "hot") != 0 && strcmp(cache, "cold") != 0)
        jfield_fail(f, "cache", "expected \"hot\" or \"cold\", found \"%s\"", cache);
    s->cache = strcmp(cache, "cold") == 0 ? KB_BENCH_CACHE_COLD : KB_BENCH_CACHE_HOT;
    s->pin = jfield_bool(f, o, "pin");
    const json_t *cpus = jfield_get(f, o, "pinned_cpus", J_STRING | J_NULL);
    if (cpus && json_is_string(cpus))
        jfield_string(f, o, "pinned_cpus", c->pinned_cpus, sizeof c->pinned_cpus);
    c->sample_target_ns = jfield_int(f, o, "sample_target_ns", false);
    c->flush_bytes = jfield_int(f, o, "flush_bytes", false);
    if (json_object_get(o, "probe_seconds"))
        s->probe_seconds = jfield_number(f, o, "probe_seconds", false);
    if (json_object_get(o, "monitor_interval_s"))
        s->monitor_interval_s = jfield_number(f, o, "monitor_interval_s", false);
    jfield_pop(f, mark);

    o = enter(f, ctx, "selection", &mark);
    c->suites = read_strings(f, o, "suites", &c->nsuites);
    c->filters = read_strings(f, o, "filters", &c->nfilters);
    size_t shard_mark;
    const json_t *shard = enter(f, o, "shard", &shard_mark);
    c->shard_index = (int)jfield_int(f, shard, "index", false);
    c->shard_count = (int)jfield_int(f, shard, "count", false);
    if (f->status == KB_OK &&
        (c->shard_count < 1 || c->shard_index < 1 || c->shard_index > c->shard_count))
        jfield_fail(f, NULL, "expected 1 <= index <= count, found %d of %d", c->shard_index,
                    c->shard_count);
    jfield_pop(f, shard_mark);
    jfield_pop(f, mark);
}

static void read_probes(jfield *f, const json_t *peaks, kb_bench_context *c);

static void read_peaks(jfield *f, const json_t *ctx, kb_bench_context *c) {
    const json_t *peaks = jfield_get(f, ctx, "peaks", J_OBJECT | J_NULL);
    if (!json_is_object(peaks))
        return;
    size_t mark = jfield_push_key(f, "peaks");
    c->peaks_origin = jfield_strdup(f, peaks, "origin", true);
    const json_t *measured = jfield_get(f, peaks, "measured", J_OBJECT);
    /* json_unpack, which the reader uses, takes no const but leaves the value as it is. */
    if (measured && kb_peaks_json_read((json_t *)measured, &c->peaks) != KB_OK)
        jfield_fail(f, "measured", "%s", kb_last_error());
    c->has_peaks = f->status == KB_OK && measured;
    /* Files from before the probes have none. */
    if (json_object_get(peaks, "probes"))
        read_probes(f, peaks, c);
    jfield_pop(f, mark);
}

static void read_context(jfield *f, const json_t *root, int64_t version, kb_bench_context *c) {
    size_t mark;
    const json_t *ctx = enter(f, root, "context", &mark);
    jfield_string(f, ctx, "date", c->date, sizeof c->date);
    c->command = jfield_strdup(f, ctx, "command", true);
    read_build(f, ctx, &c->build);
    read_machine(f, ctx, c);
    size_t simd_mark;
    const json_t *simd = enter(f, ctx, "simd", &simd_mark);
    c->simd_compiled = read_simd_list(f, simd, "compiled");
    c->simd_available = read_simd_list(f, simd, "available");
    c->simd_selected = read_simd(f, simd, "selected");
    jfield_pop(f, simd_mark);
    size_t threads_mark;
    const json_t *threads = enter(f, ctx, "threads", &threads_mark);
    c->threads = (int)jfield_int(f, threads, "count", false);
    c->usable_cores = (int)jfield_int(f, threads, "usable_cores", false);
    jfield_pop(f, threads_mark);
    read_environment(f, ctx, c);
    read_settings(f, ctx, c);
    kb_usage_series_read(f, ctx, &c->usage);
    if (version >= 2) {
        read_peaks(f, ctx, c);
        const json_t *baselines = jfield_get(f, ctx, "baselines", J_OBJECT | J_NULL);
        const json_t *runner =
            json_is_object(baselines) ? json_object_get(baselines, "runner") : NULL;
        if (json_is_object(runner) &&
            !(c->baseline_info = kb_json_dumps(runner, JSON_COMPACT | JSON_SORT_KEYS)))
            f->status = kb_fail(KB_ENOMEM, "out of memory");
        /* Absent from files written before PyTorch and JAX joined the baselines. */
        const json_t *unsupported =
            json_is_object(baselines) ? json_object_get(baselines, "unsupported") : NULL;
        if (json_is_array(unsupported) &&
            !(c->baseline_unsupported = kb_json_dumps(unsupported, JSON_COMPACT)))
            f->status = kb_fail(KB_ENOMEM, "out of memory");
    }
    jfield_pop(f, mark);
}

static void read_params(jfield *f, const json_t *obj, kb_bench_result *r) {
    const json_t *params = jfield_get(f, obj, "params", J_OBJECT);
    const json_t *impl = jfield_get(f, obj, "implementation", J_OBJECT);
    if (!params || !impl)
        return;
    r->params = calloc(json_object_size(params) + 1, sizeof *r->params);
    if (!r->params) {
        f->status = kb_fail(KB_ENOMEM, "out of memory");
        return;
    }
    const char *name;
    const json_t *value;
    size_t mark = jfield_push_key(f, "params");
    json_object_foreach((json_t *)params, name, value) {
        if (!json_is_string(value)) {
            jfield_fail(f, name, "expected a string, found %s", jfield_kind_name(value));
            break;
        }
        kb_bench_result_param *p = &r->params[r->nparams];
        p->name = strdup(name);
        p->value = strdup(json_string_value(value));
        p->implementation = json_object_get(impl, name) != NULL;
        r->nparams++;
        if (!p->name || !p->value) {
            f->status = kb_fail(KB_ENOMEM, "out of memory");
            break;
        }
    }
    jfield_pop(f, mark);
    mark = jfield_push_key(f, "implementation");
    json_object_foreach((json_t *)impl, name, value) {
        const json_t *same = json_object_get(params, name);
        if (!same || !json_equal(same, value)) {
            jfield_fail(f, name, "not a parameter of the case with the same value");
            break;
        }
    }
    jfield_pop(f, mark);
}

/* A case's samples lifted out of the text before it was parsed (kb_json_lift_rows): moved into
 * r. Their place in the document is an empty array. */
static void take_samples(jfield *f, const json_t *obj, kb_int_rows *lifted, kb_bench_result *r) {
    if (!jfield_get(f, obj, "samples_ns", J_ARRAY))
        return;
    r->sample_ns = lifted->values;
    r->repetition_samples = lifted->row_lengths;
    r->nsamples = lifted->nvalues;
    r->nrepetitions = (int)lifted->nrows;
    lifted->values = lifted->row_lengths = NULL;
    if (lifted->nrows > INT_MAX)
        jfield_fail(f, "samples_ns", "%lld repetitions, more than kbench reads",
                    (long long)lifted->nrows);
}

static void read_samples(jfield *f, const json_t *obj, kb_bench_result *r) {
    const json_t *reps = jfield_get(f, obj, "samples_ns", J_ARRAY);
    if (!reps)
        return;
    size_t total = 0, i, k;
    const json_t *rep, *v;
    json_array_foreach(reps, i, rep) total += json_is_array(rep) ? json_array_size(rep) : 0;
    r->repetition_samples = calloc(json_array_size(reps) + 1, sizeof *r->repetition_samples);
    r->sample_ns = calloc(total + 1, sizeof *r->sample_ns);
    if (!r->repetition_samples || !r->sample_ns) {
        f->status = kb_fail(KB_ENOMEM, "out of memory");
        return;
    }
    size_t mark = jfield_push_key(f, "samples_ns");
    json_array_foreach(reps, i, rep) {
        if (!json_is_array(rep)) {
            jfield_fail(f, NULL, "expected an array of arrays of integers (one per repetition)");
            break;
        }
        json_array_foreach(rep, k, v) {
            if (!json_is_integer(v) || json_integer_value(v) < 0) {
                size_t m2 = jfield_push_index(f, i);
                jfield_fail(f, NULL, "item %zu: expected a non-negative integer, found %s", k,
                            jfield_kind_name(v));
                jfield_pop(f, m2);
                break;
            }
            r->sample_ns[r->nsamples++] = (int64_t)json_integer_value(v);
        }
        if (f->status != KB_OK)
            break;
        r->repetition_samples[r->nrepetitions++] = (int64_t)json_array_size(rep);
    }
    jfield_pop(f, mark);
}

static void read_statistics(jfield *f, const json_t *obj, kb_bench_result *r) {
    size_t mark;
    const json_t *s = enter(f, obj, "statistics", &mark);
    kb_bench_stats *st = &r->stats;
    st->n = jfield_int(f, s, "n", false);
    st->median = jfield_number(f, s, "median_ns", false);
    st->mean = jfield_number(f, s, "mean_ns", false);
    st->min = jfield_number(f, s, "min_ns", false);
    st->max = jfield_number(f, s, "max_ns", false);
    st->stddev = jfield_number(f, s, "stddev_ns", false);
    st->mad = jfield_number(f, s, "mad_ns", false);
    st->q1 = jfield_number(f, s, "q1_ns", false);
    st->q3 = jfield_number(f, s, "q3_ns", false);
    st->iqr = jfield_number(f, s, "iqr_ns", false);
    st->cv = jfield_number(f, s, "cv", false);
    st->ci_low = jfield_number(f, s, "ci_low_ns", false);
    st->ci_high = jfield_number(f, s, "ci_high_ns", false);
    st->ci_coverage = jfield_number(f, s, "ci_coverage", false);
    st->outliers_low = jfield_int(f, s, "outliers_low", false);
    st->outliers_high = jfield_int(f, s, "outliers_high", false);
    st->unstable = jfield_bool(f, s, "unstable");
    if (f->status == KB_OK && st->n != r->nsamples)
        jfield_fail(f, "n", "%lld, but samples_ns holds %lld samples", (long long)st->n,
                    (long long)r->nsamples);
    if (f->status == KB_OK && !(st->min <= st->median && st->median <= st->max &&
                                st->ci_low <= st->median && st->median <= st->ci_high))
        jfield_fail(f, NULL, "expected min <= ci_low <= median <= ci_high <= max");
    jfield_pop(f, mark);

    s = enter(f, obj, "rates", &mark);
    r->gb_per_s = jfield_number(f, s, "gb_per_s", true);
    r->gb_per_s_low = jfield_number(f, s, "gb_per_s_low", true);
    r->gb_per_s_high = jfield_number(f, s, "gb_per_s_high", true);
    r->gflop_per_s = jfield_number(f, s, "gflop_per_s", true);
    r->gflop_per_s_low = jfield_number(f, s, "gflop_per_s_low", true);
    r->gflop_per_s_high = jfield_number(f, s, "gflop_per_s_high", true);
    jfield_pop(f, mark);
}

/* The index of name in names[0..n), or -1 (failing) when it is none of them. */
static int read_name(jfield *f, const json_t *obj, const char *key, const char *(*name_of)(int),
                     int n) {
    char text[32];
    jfield_string(f, obj, key, text, sizeof text);
    for (int i = 0; i < n && f->status == KB_OK; i++)
        if (strcmp(text, name_of(i)) == 0)
            return i;
    if (f->status == KB_OK)
        jfield_fail(f, key, "unknown value \"%s\"", text);
    return -1;
}

static const char *traffic_name(int i) {
    return kb_bw_kernel_name((kb_bw_kernel)i);
}
static const char *flop_type_name(int i) {
    return kb_flop_type_name((kb_flop_type)i);
}
static const char *level_name(int i) {
    return kb_mem_level_name((kb_mem_level)i);
}

/* A number that the writer turns into null when unknown (NAN) or, for rates, zero. */
static double number_or(jfield *f, const json_t *obj, const char *key, double if_null) {
    const json_t *v = jfield_get(f, obj, key, J_NUMBER | J_NULL);
    return json_is_number(v) ? json_number_value(v) : if_null;
}

/* A time as the writer writes it, or null (0). */
static int64_t read_time(jfield *f, const json_t *obj, const char *key) {
    const json_t *v = jfield_get(f, obj, key, J_STRING | J_NULL);
    if (!json_is_string(v))
        return 0;
    int64_t seconds;
    const char *text = json_string_value(v);
    if (strchr(text, 'Z') == NULL || !kb_parse_utc(text, &seconds)) {
        jfield_fail(f, key, "expected a UTC time like 2025-01-31T12:00:00Z");
        return 0;
    }
    return seconds;
}

static void read_probes(jfield *f, const json_t *peaks, kb_bench_context *c) {
    const json_t *a = jfield_get(f, peaks, "probes", J_ARRAY);
    size_t i;
    const json_t *item;
    json_array_foreach(a, i, item) {
        if (c->nprobes == KB_BENCH_MAX_PROBES)
            break;
        size_t mark = jfield_push_key(f, "probes");
        jfield_push_index(f, i);
        kb_bench_probe *p = &c->probes[c->nprobes];
        p->threads = (int)jfield_int(f, item, "threads", false);
        int kernel = read_name(f, item, "kernel", traffic_name, KB_BW_KERNEL_COUNT);
        int level = read_name(f, item, "level", level_name, KB_MEM_LEVEL_COUNT);
        p->working_set_bytes = jfield_int(f, item, "working_set_bytes", false);
        p->before = number_or(f, item, "before_bytes_per_second", 0);
        p->after = number_or(f, item, "after_bytes_per_second", 0);
        p->before_at = read_time(f, item, "before_at");
        p->after_at = read_time(f, item, "after_at");
        jfield_pop(f, mark);
        if (f->status != KB_OK)
            return;
        p->kernel = (kb_bw_kernel)kernel;
        p->level = (kb_mem_level)level;
        c->nprobes++;
    }
}

/* Files from before the flags explained themselves have no figure. */
static void read_figure(jfield *f, const json_t *o, kb_roofline *x) {
    const json_t *g = json_object_get(o, "bound_figure");
    if (!json_is_object(g))
        return;
    size_t mark = jfield_push_key(f, "bound_figure");
    jfield_string(f, g, "name", x->figure_name, sizeof x->figure_name);
    x->figure.threads = (int)jfield_int(f, g, "threads", false);
    x->figure.value = jfield_number(f, g, "per_second", false);
    x->figure.measured_at = read_time(f, g, "measured_at");
    x->figure.highest = jfield_number(f, g, "highest_per_second", false);
    x->figure.count = (int)jfield_int(f, g, "measurements", false);
    jfield_pop(f, mark);
}

static void read_roofline(jfield *f, const json_t *obj, kb_bench_result *r) {
    const json_t *o = jfield_get(f, obj, "roofline", J_OBJECT | J_NULL);
    if (!json_is_object(o))
        return;
    size_t mark = jfield_push_key(f, "roofline");
    kb_roofline *x = &r->roofline;
    int level = read_name(f, o, "level", level_name, KB_MEM_LEVEL_COUNT);
    x->level = level < 0 ? KB_MEM_DRAM : (kb_mem_level)level;
    const json_t *bound = jfield_get(f, o, "bound", J_STRING | J_NULL);
    x->bound_known = json_is_string(bound);
    x->memory_bound = x->bound_known && strcmp(json_string_value(bound), "memory") == 0;
    if (x->bound_known && !x->memory_bound && strcmp(json_string_value(bound), "compute") != 0)
        jfield_fail(f, "bound", "expected \"memory\", \"compute\" or null");
    x->bytes_per_second = number_or(f, o, "bytes_per_second", NAN);
    x->flops_per_second = number_or(f, o, "flops_per_second", NAN);
    x->intensity = number_or(f, o, "intensity_flop_per_byte", INFINITY);
    x->peak_bytes_per_second = number_or(f, o, "peak_bytes_per_second", 0);
    x->peak_flops_per_second = number_or(f, o, "peak_flops_per_second", 0);
    x->bound_seconds = number_or(f, o, "bound_seconds", NAN);
    x->bound_flops_per_second = number_or(f, o, "bound_flops_per_second", NAN);
    x->percent_of_bound = number_or(f, o, "percent_of_bound", NAN);
    x->percent_of_bandwidth = number_or(f, o, "percent_of_bandwidth", NAN);
    x->percent_of_flops = number_or(f, o, "percent_of_flops", NAN);
    const json_t *flags = jfield_get(f, o, "flags", J_ARRAY);
    size_t i;
    const json_t *flag;
    json_array_foreach(flags, i, flag) {
        unsigned bit = 1;
        while (bit <= KB_ROOFLINE_SUSPICIOUS_LOW &&
               !(json_is_string(flag) &&
                 strcmp(json_string_value(flag), kb_roofline_flag_name(bit)) == 0))
            bit <<= 1;
        if (bit > KB_ROOFLINE_SUSPICIOUS_LOW) {
            jfield_fail(f, "flags", "item %zu: not a roofline flag", i);
            break;
        }
        x->flags |= bit;
    }
    read_figure(f, o, x);
    if (json_object_get(o, "above_probe_bytes_per_second"))
        x->above_probe = number_or(f, o, "above_probe_bytes_per_second", 0);
    x->percent_of_probe = json_object_get(o, "percent_of_probe")
                              ? number_or(f, o, "percent_of_probe", NAN)
                              : NAN; /* written before the field was */
    r->has_roofline = f->status == KB_OK;
    jfield_pop(f, mark);
}

static void read_baseline(jfield *f, const json_t *obj, kb_bench_result *r) {
    const json_t *o = jfield_get(f, obj, "baseline", J_OBJECT | J_NULL);
    if (!json_is_object(o))
        return;
    size_t mark = jfield_push_key(f, "baseline");
    r->baseline = jfield_strdup(f, o, "library", false);
    char check[16];
    jfield_string(f, o, "check", check, sizeof check);
    if (f->status == KB_OK && strcmp(check, "ok") != 0 && strcmp(check, "mismatch") != 0 &&
        strcmp(check, "none") != 0)
        jfield_fail(f, "check", "expected \"ok\", \"mismatch\" or \"none\", found \"%s\"", check);
    r->check_ok = strcmp(check, "ok") == 0;
    r->check_error = number_or(f, o, "error_ratio", INFINITY);
    r->check_detail = jfield_strdup(f, o, "detail", true);
    jfield_pop(f, mark);
}

static void read_case(jfield *f, const json_t *obj, int64_t version, kb_int_rows *lifted,
                      kb_bench_result *r) {
    r->name = jfield_strdup(f, obj, "name", false);
    r->group = jfield_strdup(f, obj, "group", false);
    read_params(f, obj, r);
    char status[16];
    jfield_string(f, obj, "status", status, sizeof status);
    if (f->status == KB_OK && strcmp(status, "ok") != 0 && strcmp(status, "failed") != 0)
        jfield_fail(f, "status", "expected \"ok\" or \"failed\", found \"%s\"", status);
    r->failed = strcmp(status, "failed") == 0;
    r->error = jfield_strdup(f, obj, "error", !r->failed);
    r->simd = read_simd(f, obj, "simd");
    r->threads = (int)jfield_int(f, obj, "threads", false);
    r->bytes_per_call = jfield_number(f, obj, "bytes_per_call", true);
    r->flops_per_call = jfield_number(f, obj, "flops_per_call", true);
    r->working_set_bytes = jfield_number(f, obj, "working_set_bytes", true);
    if (version >= 2) {
        int traffic = read_name(f, obj, "traffic", traffic_name, KB_BW_KERNEL_COUNT);
        int type = read_name(f, obj, "flop_type", flop_type_name, KB_FLOP_TYPE_COUNT);
        r->traffic = traffic < 0 ? KB_BW_LOAD : (kb_bw_kernel)traffic;
        r->flop_type = type < 0 ? KB_FLOP_F32 : (kb_flop_type)type;
    }
    r->calls_per_sample = jfield_int(f, obj, "calls_per_sample", false);
    if (version >= 2)
        read_baseline(f, obj, r);
    if (lifted)
        take_samples(f, obj, lifted, r);
    else
        read_samples(f, obj, r);
    if (r->failed) {
        jfield_get(f, obj, "statistics", J_NULL);
        jfield_get(f, obj, "rates", J_NULL);
        if (version >= 2)
            jfield_get(f, obj, "roofline", J_NULL);
        return;
    }
    if (f->status == KB_OK && r->calls_per_sample < 1)
        jfield_fail(f, "calls_per_sample", "expected at least 1 for a case that ran");
    if (f->status == KB_OK && r->nsamples < 1)
        jfield_fail(f, "samples_ns", "no samples for a case that ran");
    read_statistics(f, obj, r);
    if (version >= 2)
        read_roofline(f, obj, r);
    kb_result_usage_read(f, obj, r);
}

kb_status kb_results_from_json(const json_t *root, const char *label, kb_results *out) {
    return kb_results_from_json_lifted(root, NULL, label, out);
}

kb_status kb_results_from_json_lifted(const json_t *root, kb_json_lifted *samples,
                                      const char *label, kb_results *out) {
    memset(out, 0, sizeof *out);
    jfield f;
    jfield_init(&f, label);
    if (!json_is_object(root))
        return jfield_fail(&f, NULL, "not a kbench results file (expected a JSON object)");
    const json_t *schema = json_object_get(root, "schema");
    if (!json_is_string(schema) || strcmp(json_string_value(schema), KB_RESULTS_SCHEMA) != 0)
        return jfield_fail(&f, NULL, "not a kbench results file (\"schema\" is not \"%s\")",
                           KB_RESULTS_SCHEMA);
    int64_t version = jfield_int(&f, root, "schema_version", false);
    if (f.status == KB_OK && version > KB_RESULTS_SCHEMA_VERSION)
        return jfield_fail(&f, "schema_version",
                           "%lld is newer than this kbench reads (%d); update kbench",
                           (long long)version, KB_RESULTS_SCHEMA_VERSION);
    if (f.status == KB_OK && version < 1)
        jfield_fail(&f, "schema_version", "expected 1 or more, found %lld", (long long)version);
    read_context(&f, root, version, &out->context);
    const json_t *cases = jfield_get(&f, root, "cases", J_ARRAY);
    size_t smark;
    const json_t *summary = enter(&f, root, "summary", &smark);
    int64_t declared = jfield_int(&f, summary, "cases", false);
    (void)jfield_int(&f, summary, "failed", false);
    jfield_pop(&f, smark);
    if (f.status == KB_OK && (size_t)declared != json_array_size(cases))
        jfield_fail(&f, "summary", "counts %lld cases, but cases holds %zu", (long long)declared,
                    json_array_size(cases));
    if (f.status == KB_OK) {
        out->cases = calloc(json_array_size(cases) + 1, sizeof *out->cases);
        if (!out->cases)
            f.status = kb_fail(KB_ENOMEM, "out of memory");
    }
    size_t i;
    const json_t *c;
    json_array_foreach(cases, i, c) {
        if (f.status != KB_OK)
            break;
        size_t mark = jfield_push_key(&f, "cases");
        jfield_push_index(&f, i);
        out->ncases = (int)i + 1;
        if (!json_is_object(c))
            jfield_fail(&f, NULL, "expected an object, found %s", jfield_kind_name(c));
        else
            read_case(&f, c, version, (kb_int_rows *)kb_json_lifted_item(samples, i),
                      &out->cases[i]);
        jfield_pop(&f, mark);
    }
    if (f.status != KB_OK)
        kb_results_free(out);
    return f.status;
}
