/* The inputs of compare: results files or Google Benchmark outputs, as cases with samples. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "results/report.h"
#include "results/compare_input.h"
#include "results/json.h"
#include "util/internal.h"

void kb_compare_input_fact(kb_compare_input *in, const char *what, bool build, const char *format,
                           ...) {
    if (in->nfacts == KB_COMPARE_MAX_FACTS)
        return;
    kb_compare_fact *f = &in->facts[in->nfacts++];
    f->what = what;
    f->build = build;
    va_list args;
    va_start(args, format);
    vsnprintf(f->value, sizeof f->value, format, args);
    va_end(args);
}

void kb_compare_input_free(kb_compare_input *in) {
    for (int i = 0; i < in->nsets; i++) {
        free(in->sets[i].name);
        free(in->sets[i].op);
        free(in->sets[i].error);
        free(in->sets[i].ns);
    }
    free(in->sets);
    memset(in, 0, sizeof *in);
}

/* The part of a name before the first '/'. */

void kb_compare_input_context_facts(const kb_bench_context *c, kb_compare_input *in) {
    const kb_machine *m = &c->machine;
    /* What makes the same code run at a different speed. The hostname is left out: CI
     * runners of one type differ in name only. */
    kb_compare_input_fact(in, "CPU vendor", false, "%s", m->cpu_vendor);
    kb_compare_input_fact(in, "CPU model", false, "%s", m->cpu_model);
    kb_compare_input_fact(in, "architecture", false, "%s", m->arch);
    kb_compare_input_fact(in, "logical CPUs", false, "%d", m->logical_cpus);
    kb_compare_input_fact(in, "L1d size", false, "%lld", (long long)m->caches[KB_CACHE_L1D].size);
    kb_compare_input_fact(in, "L2 size", false, "%lld", (long long)m->caches[KB_CACHE_L2].size);
    kb_compare_input_fact(in, "L3 size", false, "%lld", (long long)m->caches[KB_CACHE_L3].size);
    const kb_bench_build *b = &c->build;
    kb_compare_input_fact(in, "compiler", true, "%s", b->compiler);
    kb_compare_input_fact(in, "build type", true, "%s", b->build_type);
    kb_compare_input_fact(in, "C flags", true, "%s", b->c_flags);
    kb_compare_input_fact(in, "build arch", true, "%s", b->arch);
    kb_compare_input_fact(in, "sanitizers", true, "%s", b->sanitizers ? "on" : "off");
}

/* The `load` warning, with the numbers the load check recorded (context.load; files written
 * before kbench recorded them have the message alone), and the `bandwidth_changed` warning. */
static void load_of(const kb_env_report *env, kb_compare_load *load) {
    for (int i = 0; i < env->count; i++) {
        const kb_env_warning *w = &env->warnings[i];
        if (w->code == KB_ENV_BANDWIDTH_CHANGED) {
            load->bandwidth_changed = true;
            snprintf(load->bandwidth_message, sizeof load->bandwidth_message, "%s", w->message);
        }
        if (w->code != KB_ENV_LOAD)
            continue;
        load->under_load = true;
        snprintf(load->message, sizeof load->message, "%s", w->message);
        load->load_average = env->load.known ? env->load.average : NAN;
        load->cores = env->load.known ? env->load.usable_cores : 0;
    }
}

kb_status kb_compare_input_from_results(const kb_results *results, kb_compare_input *out) {
    memset(out, 0, sizeof *out);
    out->format = "kbench";
    kb_compare_input_context_facts(&results->context, out);
    load_of(&results->context.env, &out->load);
    out->sets = calloc((size_t)results->ncases + 1, sizeof *out->sets);
    if (!out->sets)
        return kb_fail(KB_ENOMEM, "out of memory");
    for (int i = 0; i < results->ncases; i++) {
        const kb_bench_result *r = &results->cases[i];
        kb_sample_set *s = &out->sets[out->nsets++];
        char op[128];
        kb_report_op(r, op, sizeof op);
        s->name = strdup(r->name);
        s->op = strdup(op);
        s->failed = r->failed;
        if (r->failed)
            s->error = strdup(r->error ? r->error : "failed");
        else if (r->nsamples > 0 && r->calls_per_sample > 0) {
            /* Times per call, as the statistics of the file are: the test compares what the
             * medians describe. */
            s->ns = malloc((size_t)r->nsamples * sizeof *s->ns);
            if (s->ns) {
                s->n = r->nsamples;
                for (int64_t k = 0; k < r->nsamples; k++)
                    s->ns[k] = (double)r->sample_ns[k] / (double)r->calls_per_sample;
            }
        }
        if (!s->name || !s->op || (r->failed && !s->error) ||
            (!r->failed && r->nsamples > 0 && !s->ns)) {
            kb_compare_input_free(out);
            return kb_fail(KB_ENOMEM, "out of memory");
        }
    }
    return KB_OK;
}

/* The case of results named name; NULL when there is none. */
static const kb_bench_result *find_case(const kb_results *results, const char *name) {
    for (int i = 0; i < results->ncases; i++)
        if (strcmp(results->cases[i].name, name) == 0)
            return &results->cases[i];
    return NULL;
}

/* This build's case that the other build's case r is compared with: the group's case at
 * simd=auto and r's thread count, and for an expr case (`kbench serve` evaluates it fused into
 * an output allocated once) the one with output=into; its name goes into twin. NULL when the
 * run has none. */
static const kb_bench_result *twin_of(const kb_results *results, const kb_bench_result *r,
                                      const char *at, char *twin, size_t size) {
    static const char *const others[] = {"", "/output=into"};
    for (size_t k = 0; k < sizeof others / sizeof *others; k++) {
        snprintf(twin, size, "%.*s/simd=auto/threads=%d%s", (int)(at - r->name), r->name,
                 r->threads, others[k]);
        const kb_bench_result *own = find_case(results, twin);
        if (own)
            return own;
    }
    return NULL;
}

/* Keeps in `keep` the pairs' cases of `from` (moved), each under the name of this build's
 * case; side 0 is the other build, side 1 this one. */
static void keep_pairs(const kb_results *results, kb_compare_input *from, int side,
                       kb_compare_input *keep) {
    for (int i = 0; i < results->ncases; i++) {
        const kb_bench_result *r = &results->cases[i];
        const char *at = strstr(r->name, "/baseline=kbench/threads=");
        if (!r->baseline || strcmp(r->baseline, "kbench") != 0 || !at)
            continue;
        char twin[512];
        const kb_bench_result *own = twin_of(results, r, at, twin, sizeof twin);
        if (!own)
            continue;
        kb_sample_set *s = &from->sets[side == 0 ? i : (int)(own - results->cases)];
        kb_sample_set *dst = &keep->sets[keep->nsets++];
        *dst = *s;
        memset(s, 0, sizeof *s);
        free(dst->name);
        dst->name = strdup(twin);
    }
}

kb_status kb_compare_input_ab(const kb_results *results, kb_compare_input *base,
                              kb_compare_input *head) {
    memset(base, 0, sizeof *base);
    memset(head, 0, sizeof *head);
    kb_compare_input all[2];
    kb_status st = kb_compare_input_from_results(results, &all[0]);
    if (st != KB_OK)
        return st;
    if ((st = kb_compare_input_from_results(results, &all[1])) != KB_OK) {
        kb_compare_input_free(&all[0]);
        return st;
    }
    kb_compare_input *sides[2] = {base, head};
    for (int side = 0; side < 2 && st == KB_OK; side++) {
        kb_compare_input *k = sides[side];
        k->format = all[side].format;
        k->nfacts = all[side].nfacts;
        memcpy(k->facts, all[side].facts, sizeof k->facts);
        k->load = all[side].load;
        if (!(k->sets = calloc((size_t)results->ncases + 1, sizeof *k->sets)))
            st = kb_fail(KB_ENOMEM, "out of memory");
        else
            keep_pairs(results, &all[side], side, k);
        for (int i = 0; i < k->nsets && st == KB_OK; i++)
            if (!k->sets[i].name)
                st = kb_fail(KB_ENOMEM, "out of memory");
    }
    kb_compare_input_free(&all[0]);
    kb_compare_input_free(&all[1]);
    if (st == KB_OK && base->nsets == 0)
        st = kb_fail(KB_EINVAL,
                     "no case of another kbench build beside a simd=auto case of this one (run "
                     "with --baseline kbench=PATH)");
    if (st != KB_OK) {
        kb_compare_input_free(base);
        kb_compare_input_free(head);
    }
    return st;
}

kb_status kb_compare_input_from_json(const json_t *root, const char *label, kb_compare_input *out) {
    memset(out, 0, sizeof *out);
    if (kb_gbench_detect(root))
        return kb_gbench_from_json(root, label, out);
    if (json_is_object(root) && !json_object_get(root, "schema") &&
        (json_object_get(root, "benchmarks") || json_object_get(root, "context")))
        /* Close to Google Benchmark's shape but not it: say which, rather than complaining
         * about a missing "schema". */
        return kb_fail(KB_EFORMAT,
                       "%s: neither a kbench results file nor Google Benchmark JSON (expected "
                       "\"context\" and a \"benchmarks\" array whose entries have \"run_type\")",
                       label);
    kb_results results;
    kb_status st = kb_results_from_json(root, label, &results);
    if (st != KB_OK)
        return st;
    st = kb_compare_input_from_results(&results, out);
    kb_results_free(&results);
    return st;
}

static kb_status read_input(json_t *root, const char *label, void *out) {
    return kb_compare_input_from_json(root, label, out);
}

kb_status kb_compare_input_load(const char *path, kb_compare_input *out) {
    memset(out, 0, sizeof *out);
    /* Google Benchmark writes "inf" and "nan" for some counters; jansson rejects them, as
     * JSON does, so such a file reports where. */
    return kb_json_read_file(path, false, read_input, out);
}
