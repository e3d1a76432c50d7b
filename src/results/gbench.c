/* Google Benchmark JSON outputs read as compare inputs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "results/compare_input.h"
#include "util/internal.h"

/* Google Benchmark's JSON output (--benchmark_format=json, --benchmark_out): "context"
 * describes the machine, "benchmarks" lists runs. Run with --benchmark_repetitions=N, each
 * benchmark has N entries of run_type "iteration" (one per repetition, real_time being the
 * mean time per iteration of that repetition, in time_unit) sharing a run_name, then entries
 * of run_type "aggregate" (mean, median, stddev, cv, ...) computed from them. The repetitions
 * are the samples; the aggregates are recomputed from them here, so they are skipped. */

bool kb_gbench_detect(const json_t *root) {
    if (!json_is_object(root) || !json_is_object(json_object_get(root, "context")))
        return false;
    const json_t *runs = json_object_get(root, "benchmarks");
    if (!json_is_array(runs))
        return false;
    const json_t *first = json_array_get(runs, 0);
    return json_array_size(runs) == 0 ||
           (json_is_object(first) && json_object_get(first, "run_type") != NULL);
}

static void context_facts(const json_t *root, kb_compare_input *out) {
    const json_t *ctx = json_object_get(root, "context");
    /* Google Benchmark records no CPU model; the count, the clock and the caches are what it
     * has. The host name is left out, as for kbench files: runners of one type differ in it. */
    const json_t *cpus = json_object_get(ctx, "num_cpus"),
                 *mhz = json_object_get(ctx, "mhz_per_cpu");
    kb_compare_input_fact(out, "logical CPUs", false, "%lld",
                          json_is_integer(cpus) ? (long long)json_integer_value(cpus) : -1LL);
    kb_compare_input_fact(out, "MHz per CPU", false, "%.0f",
                          json_is_number(mhz) ? json_number_value(mhz) : -1.0);
    const json_t *caches = json_object_get(ctx, "caches");
    char text[128] = "";
    size_t i, used = 0;
    const json_t *c;
    json_array_foreach(caches, i, c) {
        const json_t *type = json_object_get(c, "type"), *level = json_object_get(c, "level"),
                     *size = json_object_get(c, "size");
        if (!json_is_string(type) || !json_is_integer(level) || !json_is_integer(size))
            continue;
        int n = snprintf(text + used, sizeof text - used, "%sL%lld %s %lld", used ? ", " : "",
                         (long long)json_integer_value(level), json_string_value(type),
                         (long long)json_integer_value(size));
        if (n < 0 || (size_t)n >= sizeof text - used)
            break;
        used += (size_t)n;
    }
    kb_compare_input_fact(out, "caches", false, "%s", text);
    const json_t *build = json_object_get(ctx, "library_build_type");
    kb_compare_input_fact(out, "library build type", true, "%s",
                          json_is_string(build) ? json_string_value(build) : "unknown");
}

/* The set named key, appended when new; NULL when out of memory. */
static kb_sample_set *set_for(kb_compare_input *in, const char *key, size_t *cap) {
    for (int i = 0; i < in->nsets; i++)
        if (strcmp(in->sets[i].name, key) == 0)
            return &in->sets[i];
    if ((size_t)in->nsets == *cap) {
        size_t grown = *cap ? 2 * *cap : 16;
        kb_sample_set *sets = realloc(in->sets, grown * sizeof *sets);
        if (!sets)
            return NULL;
        in->sets = sets;
        *cap = grown;
    }
    kb_sample_set *s = &in->sets[in->nsets];
    memset(s, 0, sizeof *s);
    s->name = strdup(key);
    size_t op_len = strcspn(key, "/");
    s->op = strndup(key, op_len);
    if (!s->name || !s->op) {
        free(s->name);
        free(s->op);
        return NULL;
    }
    in->nsets++;
    return s;
}

static kb_status add_sample(kb_sample_set *s, double ns) {
    /* Capacity doubles at powers of two. */
    if ((s->n & (s->n - 1)) == 0) {
        double *grown = realloc(s->ns, (size_t)(s->n ? 2 * s->n : 1) * sizeof *grown);
        if (!grown)
            return kb_fail(KB_ENOMEM, "out of memory");
        s->ns = grown;
    }
    s->ns[s->n++] = ns;
    return KB_OK;
}

static void read_run(jfield *f, const json_t *run, kb_compare_input *out, size_t *cap) {
    if (!json_is_object(run)) {
        jfield_fail(f, NULL, "expected an object, found %s", jfield_kind_name(run));
        return;
    }
    char type[32], name[1024];
    jfield_string(f, run, "run_type", type, sizeof type);
    jfield_string(f, run, "name", name, sizeof name);
    if (f->status != KB_OK || strcmp(type, "aggregate") == 0)
        return;
    if (strcmp(type, "iteration") != 0) {
        jfield_fail(f, "run_type", "expected \"iteration\" or \"aggregate\", found \"%s\"", type);
        return;
    }
    /* run_name is the name without the aggregate suffix; older versions lack it, and their
     * iteration entries carry the bare name anyway. */
    const json_t *run_name = json_object_get(run, "run_name");
    if (run_name)
        jfield_string(f, run, "run_name", name, sizeof name);
    if (f->status != KB_OK)
        return;
    kb_sample_set *s = set_for(out, name, cap);
    if (!s) {
        f->status = kb_fail(KB_ENOMEM, "out of memory");
        return;
    }
    const json_t *error = json_object_get(run, "error_occurred");
    const json_t *skipped = json_object_get(run, "skipped");
    if (json_is_true(error) || json_is_true(skipped)) {
        if (!s->failed) {
            const json_t *message = json_object_get(run, "error_message");
            if (!message)
                message = json_object_get(run, "skip_message");
            s->failed = true;
            s->error = strdup(json_is_string(message) ? json_string_value(message)
                              : json_is_true(error)   ? "error_occurred"
                                                      : "skipped");
            if (!s->error)
                f->status = kb_fail(KB_ENOMEM, "out of memory");
        }
        return;
    }
    double time = jfield_number(f, run, "real_time", false);
    char unit[16];
    jfield_string(f, run, "time_unit", unit, sizeof unit);
    if (f->status != KB_OK)
        return;
    double scale = kb_time_unit_ns(unit);
    if (scale == 0) {
        jfield_fail(f, "time_unit", "expected ns, us, ms or s, found \"%s\"", unit);
        return;
    }
    if (!(time > 0) || !isfinite(time * scale)) {
        jfield_fail(f, "real_time", "expected a positive time, found %g", time);
        return;
    }
    kb_status st = add_sample(s, time * scale);
    if (st != KB_OK)
        f->status = st;
}

kb_status kb_gbench_from_json(const json_t *root, const char *label, kb_compare_input *out) {
    memset(out, 0, sizeof *out);
    out->format = "google-benchmark";
    if (!kb_gbench_detect(root))
        return kb_fail(KB_EFORMAT, "%s: not Google Benchmark JSON output", label);
    jfield f;
    jfield_init(&f, label);
    context_facts(root, out);
    const json_t *runs = json_object_get(root, "benchmarks");
    size_t cap = 0, i;
    const json_t *run;
    json_array_foreach(runs, i, run) {
        size_t mark = jfield_push_key(&f, "benchmarks");
        jfield_push_index(&f, i);
        read_run(&f, run, out, &cap);
        jfield_pop(&f, mark);
        if (f.status != KB_OK)
            break;
    }
    for (int k = 0; k < out->nsets && f.status == KB_OK; k++)
        if (out->sets[k].failed) {
            /* A failed repetition fails the benchmark; its other samples say nothing. */
            free(out->sets[k].ns);
            out->sets[k].ns = NULL;
            out->sets[k].n = 0;
        }
    if (f.status != KB_OK)
        kb_compare_input_free(out);
    return f.status;
}
