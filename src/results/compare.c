/* kb_compare: two runs matched case by case, with a test and a verdict for each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/internal.h"
#include "core/internal.h"
#include "kbench/significance.h"
#include "results/compare_input.h"
#include "util/internal.h"

const char *kb_verdict_name(kb_verdict verdict) {
    static const char *const names[] = {"regressed", "improved", "noisy", "unchanged",
                                        "new",       "missing",  "failed"};
    return (unsigned)verdict < KB_VERDICT_COUNT ? names[verdict] : "?";
}

const char *kb_compare_test_name(kb_compare_test test) {
    switch (test) {
        case KB_COMPARE_TEST_NONE:
            return "none";
        case KB_COMPARE_TEST_MANN_WHITNEY:
            return "mann-whitney";
        case KB_COMPARE_TEST_CI_OVERLAP:
            return "ci-overlap";
    }
    return "?";
}

void kb_compare_options_default(kb_compare_options *options) {
    memset(options, 0, sizeof *options);
    options->threshold = KB_COMPARE_DEFAULT_THRESHOLD;
    options->alpha = KB_COMPARE_DEFAULT_ALPHA;
}

bool kb_comparison_regressed(const kb_comparison *comparison) {
    return comparison->counts[KB_VERDICT_REGRESSED] > 0;
}

void kb_comparison_free(kb_comparison *c) {
    for (int i = 0; i < c->ncases; i++) {
        free(c->cases[i].name);
        free(c->cases[i].op);
        free(c->cases[i].error);
    }
    free(c->cases);
    for (int i = 0; i < c->nops; i++)
        free(c->ops[i].op);
    free(c->ops);
    for (int i = 0; i < c->nfilters; i++)
        free(c->filters[i]);
    free(c->filters);
    free(c->base_label);
    free(c->head_label);
    memset(c, 0, sizeof *c);
}

static kb_status side_of(const kb_sample_set *s, kb_compare_side *side) {
    kb_bench_stats st;
    kb_status status = kb_bench_stats_compute(s->ns, s->n, &st);
    if (status != KB_OK)
        return status;
    side->n = st.n;
    side->median = st.median;
    side->ci_low = st.ci_low;
    side->ci_high = st.ci_high;
    return KB_OK;
}

/* Sets error to "base: ..." and/or "new: ...". */
static kb_status fail_case(kb_compare_case *c, const char *base_error, const char *head_error) {
    size_t size =
        16 + (base_error ? strlen(base_error) : 0) + (head_error ? strlen(head_error) : 0);
    if (!(c->error = malloc(size)))
        return kb_fail(KB_ENOMEM, "out of memory");
    snprintf(c->error, size, "%s%s%s%s%s", base_error ? "base: " : "", base_error ? base_error : "",
             base_error && head_error ? "; " : "", head_error ? "new: " : "",
             head_error ? head_error : "");
    c->verdict = KB_VERDICT_FAILED;
    return KB_OK;
}

static kb_status judge(kb_compare_case *c, const kb_sample_set *a, const kb_sample_set *b,
                       double threshold, double alpha) {
    if (a->failed || b->failed || a->n == 0 || b->n == 0)
        return fail_case(c,
                         a->failed   ? a->error
                         : a->n == 0 ? "no samples"
                                     : NULL,
                         b->failed   ? b->error
                         : b->n == 0 ? "no samples"
                                     : NULL);
    kb_status st = side_of(a, &c->base);
    if (st == KB_OK)
        st = side_of(b, &c->head);
    kb_mann_whitney mw;
    if (st == KB_OK)
        st = kb_mann_whitney_test(a->ns, a->n, b->ns, b->n, &mw);
    kb_ratio_ci ci;
    if (st == KB_OK)
        st = kb_ratio_ci_bootstrap(a->ns, a->n, b->ns, b->n, KB_COMPARE_LEVEL, kb_fnv1a(c->name),
                                   &ci);
    if (st == KB_EINVAL) /* a time of 0 or a NaN: this case cannot be compared, others can */
        return fail_case(c, kb_last_error(), NULL);
    if (st != KB_OK)
        return st;
    c->ratio = ci.ratio;
    c->ratio_low = ci.low;
    c->ratio_high = ci.high;
    c->p = mw.p;
    c->p_min = mw.p_min;
    bool significant;
    if (mw.p_min <= alpha) {
        c->test = KB_COMPARE_TEST_MANN_WHITNEY;
        significant = mw.p < alpha;
    } else {
        /* No p-value can reach alpha, so the test cannot decide. Separate confidence
         * intervals of the medians are the weaker evidence left; a single sample has no
         * spread to tell noise from change, so it never counts. */
        c->test = KB_COMPARE_TEST_CI_OVERLAP;
        significant = a->n >= 2 && b->n >= 2 &&
                      (c->head.ci_low > c->base.ci_high || c->head.ci_high < c->base.ci_low);
    }
    bool slower = c->ratio > 1 + threshold, faster = c->ratio < 1 / (1 + threshold);
    /* A verdict never contradicts its own interval: a change whose ratio interval still holds
     * 1 (a test of the ranks can be significant while the bootstrap interval of the ratio of
     * medians is not) is noisy, not regressed or improved. */
    if (slower ? !(c->ratio_low > 1) : faster ? !(c->ratio_high < 1) : false)
        significant = false;
    if (!slower && !faster)
        c->verdict = KB_VERDICT_UNCHANGED;
    else if (!significant)
        c->verdict = KB_VERDICT_NOISY;
    else
        c->verdict = slower ? KB_VERDICT_REGRESSED : KB_VERDICT_IMPROVED;
    return KB_OK;
}

static const kb_sample_set *find_set(const kb_compare_input *in, const char *name) {
    for (int i = 0; i < in->nsets; i++)
        if (strcmp(in->sets[i].name, name) == 0)
            return &in->sets[i];
    return NULL;
}

static kb_status new_case(kb_comparison *out, const kb_sample_set *s, kb_compare_case **c) {
    *c = &out->cases[out->ncases];
    memset(*c, 0, sizeof **c);
    (*c)->p = NAN;
    (*c)->name = strdup(s->name);
    (*c)->op = strdup(s->op);
    if (!(*c)->name || !(*c)->op) {
        free((*c)->name);
        free((*c)->op);
        return kb_fail(KB_ENOMEM, "out of memory");
    }
    out->ncases++;
    return KB_OK;
}

static int compare_effect(const void *x, const void *y) {
    const kb_compare_mean *a = x, *b = y;
    double ea = fabs(log(a->geomean)), eb = fabs(log(b->geomean));
    if (ea != eb)
        return ea < eb ? 1 : -1;
    return strcmp(a->op, b->op);
}

static bool paired(const kb_compare_case *c) {
    return c->verdict <= KB_VERDICT_UNCHANGED;
}

static kb_status summarize(kb_comparison *out) {
    out->ops = calloc((size_t)out->ncases + 1, sizeof *out->ops);
    if (!out->ops)
        return kb_fail(KB_ENOMEM, "out of memory");
    double total = 0;
    for (int i = 0; i < out->ncases; i++) {
        const kb_compare_case *c = &out->cases[i];
        out->counts[c->verdict]++;
        out->overall.counts[c->verdict]++;
        kb_compare_mean *m = NULL;
        for (int k = 0; k < out->nops && !m; k++)
            if (strcmp(out->ops[k].op, c->op) == 0)
                m = &out->ops[k];
        if (!m) {
            m = &out->ops[out->nops];
            if (!(m->op = strdup(c->op)))
                return kb_fail(KB_ENOMEM, "out of memory");
            out->nops++;
        }
        m->counts[c->verdict]++;
        if (paired(c)) {
            /* Summed logs for now; the mean's exponent below. */
            m->geomean += log(c->ratio);
            m->ncases++;
            total += log(c->ratio);
            out->overall.ncases++;
        }
    }
    for (int k = 0; k < out->nops; k++)
        out->ops[k].geomean =
            out->ops[k].ncases ? exp(out->ops[k].geomean / out->ops[k].ncases) : 1;
    out->overall.geomean = out->overall.ncases ? exp(total / out->overall.ncases) : 1;
    qsort(out->ops, (size_t)out->nops, sizeof *out->ops, compare_effect);
    return KB_OK;
}

static kb_status check_machines(const kb_compare_input *base, const kb_compare_input *head,
                                const kb_compare_options *o, kb_comparison *out) {
    char list[512] = "";
    size_t used = 0;
    for (int i = 0; i < base->nfacts; i++) {
        const kb_compare_fact *f = &base->facts[i];
        for (int k = 0; k < head->nfacts; k++) {
            const kb_compare_fact *g = &head->facts[k];
            if (strcmp(f->what, g->what) != 0 || strcmp(f->value, g->value) == 0)
                continue;
            if (out->ndifferences < KB_COMPARE_MAX_DIFFERENCES) {
                kb_compare_difference *d = &out->differences[out->ndifferences++];
                snprintf(d->what, sizeof d->what, "%s", f->what);
                snprintf(d->base, sizeof d->base, "%s", f->value);
                snprintf(d->head, sizeof d->head, "%s", g->value);
                d->build = f->build;
            }
            if (used < sizeof list) {
                int n = snprintf(list + used, sizeof list - used, "%s%s '%s' vs '%s'",
                                 used ? "; " : "", f->what, f->value, g->value);
                used += n > 0 ? (size_t)n : 0;
            }
        }
    }
    if (out->ndifferences > 0 && !o->allow_different_machines)
        return kb_fail(KB_EINVAL, "%s and %s come from different machines or builds: %s",
                       out->base_label, out->head_label, list);
    return KB_OK;
}

static kb_status copy_settings(const kb_compare_options *o, const char *base_label,
                               const char *head_label, kb_comparison *out) {
    if (!(o->threshold > 0 && isfinite(o->threshold)))
        return kb_fail(KB_EINVAL, "threshold %g is not a positive number", o->threshold);
    if (!(o->alpha > 0 && o->alpha < 1))
        return kb_fail(KB_EINVAL, "alpha %g is not between 0 and 1", o->alpha);
    out->threshold = o->threshold;
    out->alpha = o->alpha;
    out->base_label = strdup(base_label);
    out->head_label = strdup(head_label);
    out->filters = calloc((size_t)o->nfilters + 1, sizeof *out->filters);
    if (!out->base_label || !out->head_label || !out->filters)
        return kb_fail(KB_ENOMEM, "out of memory");
    for (; out->nfilters < o->nfilters; out->nfilters++)
        if (!(out->filters[out->nfilters] = strdup(o->filters[out->nfilters])))
            return kb_fail(KB_ENOMEM, "out of memory");
    return KB_OK;
}

static kb_status compare_inputs(const kb_compare_input *base, const char *base_label,
                                const kb_compare_input *head, const char *head_label,
                                const kb_compare_options *o, kb_comparison *out) {
    memset(out, 0, sizeof *out);
    kb_status st = copy_settings(o, base_label, head_label, out);
    if (st != KB_OK)
        return st;
    if (strcmp(base->format, head->format) != 0)
        return kb_fail(KB_EINVAL, "%s is %s output and %s is %s output: compare like with like",
                       base_label, base->format, head_label, head->format);
    snprintf(out->format, sizeof out->format, "%s", base->format);
    if ((st = check_machines(base, head, o, out)) != KB_OK)
        return st;
    out->base_load = base->load;
    out->head_load = head->load;
    kb_name_filter filter;
    if ((st = kb_name_filter_init(&filter, o->filters, o->nfilters)) != KB_OK)
        return st;
    out->cases = calloc((size_t)(base->nsets + head->nsets) + 1, sizeof *out->cases);
    if (!out->cases)
        st = kb_fail(KB_ENOMEM, "out of memory");
    for (int i = 0; i < base->nsets && st == KB_OK; i++) {
        const kb_sample_set *a = &base->sets[i], *b = find_set(head, a->name);
        if (!kb_name_filter_keeps(&filter, a->name))
            continue;
        kb_compare_case *c;
        if ((st = new_case(out, a, &c)) != KB_OK)
            break;
        c->in_base = true;
        c->in_new = b != NULL;
        if (!b)
            c->verdict = KB_VERDICT_MISSING;
        else
            st = judge(c, a, b, o->threshold, o->alpha);
    }
    for (int i = 0; i < head->nsets && st == KB_OK; i++) {
        const kb_sample_set *b = &head->sets[i];
        if (find_set(base, b->name) || !kb_name_filter_keeps(&filter, b->name))
            continue;
        kb_compare_case *c;
        if ((st = new_case(out, b, &c)) == KB_OK) {
            c->in_new = true;
            c->verdict = KB_VERDICT_NEW;
        }
    }
    kb_name_filter_free(&filter);
    if (st == KB_OK && o->nfilters > 0 && out->ncases == 0)
        st = kb_fail(KB_EINVAL, "the filters select no case of %s or %s", base_label, head_label);
    if (st == KB_OK)
        st = summarize(out);
    return st;
}

kb_status kb_compare_results(const kb_results *base, const char *base_label, const kb_results *head,
                             const char *head_label, const kb_compare_options *options,
                             kb_comparison *out) {
    memset(out, 0, sizeof *out);
    kb_compare_input a, b;
    kb_status st = kb_compare_input_from_results(base, &a);
    if (st != KB_OK)
        return st;
    if ((st = kb_compare_input_from_results(head, &b)) == KB_OK) {
        st = compare_inputs(&a, base_label, &b, head_label, options, out);
        kb_compare_input_free(&b);
    }
    kb_compare_input_free(&a);
    if (st != KB_OK)
        kb_comparison_free(out);
    return st;
}

kb_status kb_compare_ab(const char *path, const kb_compare_options *options, kb_comparison *out) {
    memset(out, 0, sizeof *out);
    kb_results results;
    kb_status st = kb_results_load(path, &results);
    if (st != KB_OK)
        return st;
    kb_compare_input base, head;
    if ((st = kb_compare_input_ab(&results, &base, &head)) == KB_OK) {
        char base_label[4200], head_label[4200];
        snprintf(base_label, sizeof base_label, "%s (the other build)", path);
        snprintf(head_label, sizeof head_label, "%s (this build)", path);
        st = compare_inputs(&base, base_label, &head, head_label, options, out);
        kb_compare_input_free(&base);
        kb_compare_input_free(&head);
    }
    kb_results_free(&results);
    if (st != KB_OK)
        kb_comparison_free(out);
    return st;
}

kb_status kb_compare_files(const char *base_path, const char *new_path,
                           const kb_compare_options *options, kb_comparison *out) {
    memset(out, 0, sizeof *out);
    kb_compare_input a, b;
    kb_status st = kb_compare_input_load(base_path, &a);
    if (st != KB_OK)
        return st;
    if ((st = kb_compare_input_load(new_path, &b)) == KB_OK) {
        st = compare_inputs(&a, base_path, &b, new_path, options, out);
        kb_compare_input_free(&b);
    }
    kb_compare_input_free(&a);
    if (st != KB_OK)
        kb_comparison_free(out);
    return st;
}
