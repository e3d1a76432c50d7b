/* A comparison as JSON. */
#include <math.h>
#include <stdlib.h>

#include <jansson.h>

#include "core/internal.h"
#include "kbench/significance.h"
#include "results/compare_report.h"
#include "util/internal.h"

/* A number, or null where there is none (JSON has no NaN). */
static json_t *number(double v, bool present) {
    return present && isfinite(v) ? json_real(v) : json_null();
}

static json_t *side(const kb_compare_side *s) {
    if (s->n == 0)
        return json_null();
    return json_pack("{sI sf sf sf}", "n", (json_int_t)s->n, "median_ns", s->median, "ci_low_ns",
                     s->ci_low, "ci_high_ns", s->ci_high);
}

static json_t *counts(const int c[KB_VERDICT_COUNT]) {
    json_t *o = json_object();
    for (int v = 0; v < KB_VERDICT_COUNT && o; v++)
        json_object_set_new(o, kb_verdict_name((kb_verdict)v), json_integer(c[v]));
    return o;
}

static json_t *mean(const kb_compare_mean *m) {
    json_t *o = json_pack("{si so so}", "cases", m->ncases, "geomean",
                          number(m->geomean, m->ncases > 0), "verdicts", counts(m->counts));
    if (o && m->op)
        json_object_set_new(o, "op", json_string(m->op));
    return o;
}

static json_t *one_case(const kb_compare_case *c) {
    bool pair = c->verdict <= KB_VERDICT_UNCHANGED;
    return json_pack("{ss ss ss so so so so so ss so so so}", "name", c->name, "op", c->op,
                     "verdict", kb_verdict_name(c->verdict), "base", side(&c->base), "new",
                     side(&c->head), "ratio", number(c->ratio, pair), "ratio_low",
                     number(c->ratio_low, pair), "ratio_high", number(c->ratio_high, pair), "test",
                     kb_compare_test_name(c->test), "p_value", number(c->p, pair), "p_min",
                     number(c->p_min, pair), "error",
                     c->error ? json_string(c->error) : json_null());
}

/* The sides measured under load, each with its note. */
static json_t *under_load(const kb_comparison *c) {
    json_t *a = json_array();
    char note[512];
    for (int head = 0; head < 2 && a; head++) {
        if (!kb_comparison_load_note(c, head, note, sizeof note))
            continue;
        const kb_compare_load *l = head ? &c->head_load : &c->base_load;
        json_array_append_new(
            a, json_pack("{ss sb so so so so ss}", "side", head ? "new" : "base", "load",
                         l->under_load, "load_average", number(l->load_average, l->cores > 0),
                         "cores", l->cores > 0 ? json_integer(l->cores) : json_null(), "message",
                         l->under_load ? json_string(l->message) : json_null(), "bandwidth_changed",
                         l->bandwidth_changed ? json_string(l->bandwidth_message) : json_null(),
                         "note", note));
    }
    return a;
}

static json_t *build(const kb_comparison *c) {
    json_t *filters = json_array(), *diffs = json_array(), *cases = json_array(),
           *ops = json_array();
    for (int i = 0; i < c->nfilters && filters; i++)
        json_array_append_new(filters, json_string(c->filters[i]));
    for (int i = 0; i < c->ndifferences && diffs; i++)
        json_array_append_new(diffs,
                              json_pack("{ss ss ss ss}", "what", c->differences[i].what, "kind",
                                        c->differences[i].build ? "build" : "machine", "base",
                                        c->differences[i].base, "new", c->differences[i].head));
    for (int i = 0; i < c->ncases && cases; i++)
        json_array_append_new(cases, one_case(&c->cases[i]));
    for (int i = 0; i < c->nops && ops; i++)
        json_array_append_new(ops, mean(&c->ops[i]));
    json_t *summary = json_pack("{so so so}", "verdicts", counts(c->counts), "overall",
                                mean(&c->overall), "ops", ops);
    json_t *settings = json_pack("{sf sf sf si so}", "threshold", c->threshold, "alpha", c->alpha,
                                 "ci_level", KB_COMPARE_LEVEL, "bootstrap_resamples",
                                 KB_RATIO_CI_RESAMPLES, "filters", filters);
    return json_pack("{ss si ss ss ss so sb so so so so}", "schema", "kbench-compare",
                     "schema_version", 1, "format", c->format, "base", c->base_label, "new",
                     c->head_label, "settings", settings, "different_machines", c->ndifferences > 0,
                     "differences", diffs, "under_load", under_load(c), "summary", summary, "cases",
                     cases);
}

kb_status kb_compare_json(const kb_comparison *c, FILE *out) {
    json_t *root = build(c);
    if (!root)
        return kb_fail(KB_ENOMEM, "out of memory while building JSON");
    kb_status st = kb_json_write(out, root, KB_JSON_EXACT | JSON_INDENT(2));
    json_decref(root);
    return st;
}
