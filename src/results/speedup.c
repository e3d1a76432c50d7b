/* The speedup report: kbench against each baseline, with 95% intervals and geometric means. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "results/speedup.h"

/* Fixed, so that a report is the same every time it is made from the same file. */
#define SPEEDUP_SEED 0x6b62656e6368ull

static const char *param(const kb_bench_result *r, const char *name) {
    for (int i = 0; i < r->nparams; i++)
        if (strcmp(r->params[i].name, name) == 0)
            return r->params[i].value;
    return NULL;
}

const char *kb_speedup_impl(const kb_bench_result *r) {
    size_t n = strlen(r->group);
    return strncmp(r->name, r->group, n) == 0 && r->name[n] == '/' ? r->name + n + 1 : r->name;
}

static bool usable(const kb_bench_result *r) {
    return !r->failed && r->nsamples > 0 && r->calls_per_sample > 0;
}

/* Per-call times of a result, malloc'ed. */
static double *per_call(const kb_bench_result *r) {
    double *t = malloc((size_t)r->nsamples * sizeof *t);
    for (int64_t i = 0; t && i < r->nsamples; i++)
        t[i] = (double)r->sample_ns[i] / (double)r->calls_per_sample;
    return t;
}

/* median(slow) / median(fast): how many times faster `fast` is. */
static kb_status speedup(const kb_bench_result *fast, const kb_bench_result *slow,
                         kb_ratio_ci *out) {
    double *a = per_call(fast), *b = per_call(slow);
    kb_status st = a && b ? kb_ratio_ci_bootstrap(a, fast->nsamples, b, slow->nsamples, 0.95,
                                                  SPEEDUP_SEED, out)
                          : kb_fail(KB_ENOMEM, "out of memory");
    free(a);
    free(b);
    return st;
}

/* Whether s has each of r's implementation parameters but simd and threads (the expr suite's
 * output) with r's value. */
static bool has_others_of(const kb_bench_result *r, const kb_bench_result *s) {
    for (int i = 0; i < r->nparams; i++) {
        const kb_bench_result_param *p = &r->params[i];
        if (!p->implementation || strcmp(p->name, "simd") == 0 || strcmp(p->name, "threads") == 0)
            continue;
        const char *v = param(s, p->name);
        if (!v || strcmp(v, p->value) != 0)
            return false;
    }
    return true;
}

/* Whether r and s differ at most in simd and threads: neither has an implementation parameter
 * the other lacks (a fused case and its eager twin differ by eval). */
static bool same_others(const kb_bench_result *r, const kb_bench_result *s) {
    return has_others_of(r, s) && has_others_of(s, r);
}

bool kb_speedup_is_eager(const kb_bench_result *r) {
    const char *eval = param(r, "eval");
    return !r->baseline && eval && strcmp(eval, "eager") == 0;
}

/* The case of the same group as r with the given simd, and r's other implementation
 * parameters. */
static const kb_bench_result *sibling(const kb_results *results, const kb_bench_result *r,
                                      const char *simd) {
    const char *threads = param(r, "threads");
    for (int i = 0; i < results->ncases; i++) {
        const kb_bench_result *s = &results->cases[i];
        const char *t = param(s, "threads"), *l = param(s, "simd");
        if (!s->baseline && usable(s) && strcmp(s->group, r->group) == 0 && l &&
            strcmp(l, simd) == 0 && (!threads || (t && strcmp(t, threads) == 0)) &&
            same_others(r, s))
            return s;
    }
    return NULL;
}

/* Whether own and base ran at the same thread count, as far as their parameters say. */
static bool same_threads(const kb_bench_result *own, const kb_bench_result *base) {
    const char *a = param(own, "threads"), *b = param(base, "threads");
    return !a || !b || strcmp(a, b) == 0;
}

/* The rows of own, [first, end): finds the fastest baseline and the speedup over it. */
static kb_status best_of(kb_speedup *rows, int first, int end) {
    if (first == end)
        return KB_OK;
    const kb_bench_result *best = rows[first].baseline;
    for (int k = first + 1; k < end; k++)
        if (rows[k].baseline->stats.median < best->stats.median)
            best = rows[k].baseline;
    kb_ratio_ci over;
    kb_status st = speedup(rows[first].own, best, &over);
    for (int k = first; st == KB_OK && k < end; k++) {
        rows[k].best = best;
        rows[k].over_best = over;
        rows[k].first = k == first;
    }
    return st;
}

/* The KB_BASELINE_* bits of the libraries of results' baseline cases. */
static unsigned libraries_of(const kb_results *results) {
    unsigned libraries = 0;
    for (int i = 0; i < results->ncases; i++)
        if (results->cases[i].baseline)
            libraries |= kb_baseline_from_name(results->cases[i].baseline);
    return libraries;
}

const char *kb_results_comparison(const kb_results *results) {
    return kb_baseline_comparison(libraries_of(results));
}

static bool python_module(const kb_bench_result *r) {
    return r->baseline && kb_baseline_from_name(r->baseline) == KB_BASELINE_PYTHON_MODULE;
}

/* Whether base is a baseline own is compared with: for kbench's own implementations every
 * baseline but kbench's Python module; for the module, the other Python libraries. */
static bool compared(const kb_bench_result *own, const kb_bench_result *base) {
    if (!base->baseline || python_module(base))
        return false;
    return !own->baseline || (kb_baseline_from_name(base->baseline) & KB_BASELINE_PYTHON);
}

/* The case named fused's name and /eval=eager, when it ran. */
static const kb_bench_result *eager_twin(const kb_results *results, const kb_bench_result *fused) {
    size_t n = strlen(fused->name);
    for (int i = 0; i < results->ncases; i++) {
        const kb_bench_result *e = &results->cases[i];
        if (kb_speedup_is_eager(e) && usable(e) && strncmp(e->name, fused->name, n) == 0 &&
            strcmp(e->name + n, "/eval=eager") == 0)
            return e;
    }
    return NULL;
}

static kb_status eager_rows(const kb_results *results, kb_speedup_report *out) {
    for (int i = 0; i < results->ncases; i++) {
        const kb_bench_result *fused = &results->cases[i];
        const kb_bench_result *eager;
        if (fused->baseline || kb_speedup_is_eager(fused) || !usable(fused) ||
            !(eager = eager_twin(results, fused)))
            continue;
        if (!out->eager && !(out->eager = calloc((size_t)results->ncases, sizeof *out->eager)))
            return kb_fail(KB_ENOMEM, "out of memory");
        kb_eager_speedup *row = &out->eager[out->neager];
        row->fused = fused;
        row->eager = eager;
        kb_status st = speedup(fused, eager, &row->over_eager);
        if (st != KB_OK)
            return st;
        row->traffic_ratio =
            fused->bytes_per_call > 0 ? eager->bytes_per_call / fused->bytes_per_call : NAN;
        row->below_traffic = isfinite(row->traffic_ratio) &&
                             row->over_eager.ratio < KB_EAGER_TRAFFIC_SHARE * row->traffic_ratio;
        out->neager++;
    }
    return KB_OK;
}

const kb_eager_speedup *kb_speedup_eager_of(const kb_speedup_report *report,
                                            const kb_bench_result *fused) {
    for (int i = 0; i < report->neager; i++)
        if (report->eager[i].fused == fused)
            return &report->eager[i];
    return NULL;
}

kb_status kb_speedup_report_make(const kb_results *results, kb_speedup_report *out) {
    memset(out, 0, sizeof *out);
    kb_status eager = eager_rows(results, out);
    if (eager != KB_OK) {
        kb_speedup_report_free(out);
        return eager;
    }
    out->comparison = kb_results_comparison(results);
    unsigned libraries = libraries_of(results);
    out->c_comparison = kb_baseline_comparison(libraries & ~(unsigned)KB_BASELINE_PYTHON_MODULE);
    const char *unsupported = results->context.baseline_unsupported;
    if (unsupported) {
        out->unsupported = json_loads(unsupported, 0, NULL);
        if (!json_is_array(out->unsupported) || json_array_size(out->unsupported) == 0) {
            json_decref(out->unsupported);
            out->unsupported = NULL;
        }
    }
    int most = 0;
    for (int i = 0; i < results->ncases; i++)
        most += results->cases[i].baseline != NULL;
    if (most == 0)
        return KB_OK;
    most *= results->ncases;
    out->rows = calloc((size_t)most, sizeof *out->rows);
    if (!out->rows)
        return kb_fail(KB_ENOMEM, "out of memory");
    for (int i = 0; i < results->ncases; i++) {
        const kb_bench_result *own = &results->cases[i];
        if ((own->baseline && !python_module(own)) || kb_speedup_is_eager(own) || !usable(own))
            continue;
        int first = out->count;
        for (int k = 0; k < results->ncases; k++) {
            const kb_bench_result *base = &results->cases[k];
            if (!compared(own, base) || !usable(base) || strcmp(base->group, own->group) != 0 ||
                !same_threads(own, base))
                continue;
            kb_speedup *row = &out->rows[out->count];
            row->own = own;
            row->baseline = base;
            row->python = own->baseline != NULL;
            kb_status st = speedup(own, base, &row->over_baseline);
            const char *simd = param(own, "simd");
            if (st == KB_OK && simd && strcmp(simd, "auto") == 0 &&
                (row->scalar = sibling(results, own, "scalar")))
                st = speedup(own, row->scalar, &row->over_scalar);
            if (st != KB_OK) {
                kb_speedup_report_free(out);
                return st;
            }
            out->count++;
        }
        kb_status st = best_of(out->rows, first, out->count);
        if (st != KB_OK) {
            kb_speedup_report_free(out);
            return st;
        }
    }
    return KB_OK;
}

void kb_speedup_report_free(kb_speedup_report *report) {
    free(report->rows);
    free(report->eager);
    json_decref(report->unsupported);
    memset(report, 0, sizeof *report);
}
