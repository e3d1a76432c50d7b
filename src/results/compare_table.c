/* A comparison as a table for the terminal. */
#include <string.h>

#include "results/compare_report.h"
#include "util/strings.h"

/* ANSI colours, only when asked (the CLI asks on a terminal without NO_COLOR). */
static const char *verdict_colour(kb_verdict v) {
    switch (v) {
        case KB_VERDICT_REGRESSED:
        case KB_VERDICT_FAILED:
            return "\033[1;31m";
        case KB_VERDICT_IMPROVED:
            return "\033[1;32m";
        case KB_VERDICT_NOISY:
        case KB_VERDICT_MISSING:
            return "\033[33m";
        default:
            return "";
    }
}

static void side_text(const kb_compare_side *s, char *buf, size_t size) {
    if (s->n == 0)
        snprintf(buf, size, "-");
    else
        kb_format_duration(buf, size, s->median);
}

static void header(const kb_comparison *c, FILE *out) {
    fprintf(out, "kbench compare: %s -> %s (%s); ratio = new/base time, above 1 is slower\n",
            c->base_label, c->head_label, c->format);
    fprintf(out, "rule: beyond %g%% and Mann-Whitney p < %g%s", 100 * c->threshold, c->alpha,
            c->nfilters ? "; filters" : "");
    for (int i = 0; i < c->nfilters; i++)
        fprintf(out, " %s", c->filters[i]);
    fputc('\n', out);
    if (c->ndifferences > 0) {
        fprintf(out, "warning: different machines or builds, compared as allowed:");
        for (int i = 0; i < c->ndifferences; i++)
            fprintf(out, "%s %s '%s' vs '%s'", i ? ";" : "", c->differences[i].what,
                    c->differences[i].base, c->differences[i].head);
        fputc('\n', out);
    }
    char note[512];
    for (int head = 0; head < 2; head++)
        if (kb_comparison_load_note(c, head, note, sizeof note))
            fprintf(out, "warning: %s\n", note);
}

kb_status kb_compare_table(const kb_comparison *c, bool colour, FILE *out) {
    header(c, out);
    int width = 4;
    bool fallback = false;
    for (int i = 0; i < c->ncases; i++) {
        int n = (int)strlen(c->cases[i].name);
        width = n > width ? n : width;
        fallback |= c->cases[i].test == KB_COMPARE_TEST_CI_OVERLAP;
    }
    fprintf(out, "\n%-*s %10s %10s %7s %16s %7s  %s\n", width, "case", "base", "new", "ratio",
            "95% CI", "p", "verdict");
    for (int i = 0; i < c->ncases; i++) {
        const kb_compare_case *k = &c->cases[i];
        char base[32], head[32], ratio[32], ci[48], p[32];
        side_text(&k->base, base, sizeof base);
        side_text(&k->head, head, sizeof head);
        kb_compare_ratio_text(k, ratio, sizeof ratio);
        kb_compare_ci_text(k, ci, sizeof ci);
        kb_compare_p_text(k, p, sizeof p);
        const char *on = colour ? verdict_colour(k->verdict) : "";
        fprintf(out, "%-*s %10s %10s %7s %16s %7s  %s%s%s%s", width, k->name, base, head, ratio, ci,
                p, on, kb_verdict_name(k->verdict),
                k->test == KB_COMPARE_TEST_CI_OVERLAP ? "*" : "", *on ? "\033[0m" : "");
        if (k->error)
            fprintf(out, ": %s", k->error);
        fputc('\n', out);
    }
    if (fallback)
        fprintf(out,
                "* too few samples for the test to reach p < %g: decided by whether the "
                "95%% confidence intervals of the medians overlap\n",
                c->alpha);
    char counts[256];
    kb_compare_counts_text(c->counts, counts, sizeof counts);
    fprintf(out, "\nsummary: %s\n", counts);
    if (c->overall.ncases > 0) {
        fprintf(out, "geometric mean of ratios: %.3f over %d case%s\n", c->overall.geomean,
                c->overall.ncases, kb_plural(c->overall.ncases));
        fprintf(out, "by op, largest effect first:");
        for (int i = 0; i < c->nops; i++)
            if (c->ops[i].ncases > 0)
                fprintf(out, "%s %s %.3f (%d)", i ? "," : "", c->ops[i].op, c->ops[i].geomean,
                        c->ops[i].ncases);
        fputc('\n', out);
    }
    return KB_OK;
}
