/* A comparison as a markdown table. */
#include <string.h>

#include "results/compare_report.h"
#include "results/report.h"
#include "util/strings.h"

static void side_text(const kb_compare_side *s, char *buf, size_t size) {
    if (s->n == 0)
        snprintf(buf, size, "-");
    else
        kb_format_duration(buf, size, s->median);
}

static void case_table(const kb_comparison *c, bool changed_only, FILE *out) {
    fputs("| case | base | new | ratio | 95% CI | p | verdict |\n"
          "|---|---:|---:|---:|---|---:|---|\n",
          out);
    for (int i = 0; i < c->ncases; i++) {
        const kb_compare_case *k = &c->cases[i];
        if (changed_only && k->verdict == KB_VERDICT_UNCHANGED)
            continue;
        char base[32], head[32], ratio[32], ci[48], p[32];
        side_text(&k->base, base, sizeof base);
        side_text(&k->head, head, sizeof head);
        kb_compare_ratio_text(k, ratio, sizeof ratio);
        kb_compare_ci_text(k, ci, sizeof ci);
        kb_compare_p_text(k, p, sizeof p);
        bool strong = k->verdict == KB_VERDICT_REGRESSED || k->verdict == KB_VERDICT_FAILED;
        fputs("| `", out);
        kb_report_markdown_cell(out, k->name);
        fprintf(out, "` | %s | %s | %s | %s | %s | %s%s%s%s", base, head, ratio, ci, p,
                strong ? "**" : "", kb_verdict_name(k->verdict), strong ? "**" : "",
                k->test == KB_COMPARE_TEST_CI_OVERLAP ? " \\*" : "");
        if (k->error) {
            fputs(": ", out);
            kb_report_markdown_cell(out, k->error);
        }
        fputs(" |\n", out);
    }
}

kb_status kb_compare_markdown(const kb_comparison *c, FILE *out) {
    char counts[256];
    kb_compare_counts_text(c->counts, counts, sizeof counts);
    fputs("## kbench compare\n\n", out);
    fprintf(out, "**%s**", counts);
    if (c->overall.ncases > 0)
        fprintf(out, "; geometric mean of ratios **%.3f** over %d case%s", c->overall.geomean,
                c->overall.ncases, kb_plural(c->overall.ncases));
    fputs(".\n\n", out);
    fputs("- **base**: `", out);
    kb_report_markdown_cell(out, c->base_label);
    fputs("`\n- **new**: `", out);
    kb_report_markdown_cell(out, c->head_label);
    fprintf(out, "` (%s)\n", c->format);
    fprintf(out,
            "- **rule**: ratio = new / base time (above 1 is slower); regressed or improved when "
            "beyond %g%% and Mann-Whitney p < %g",
            100 * c->threshold, c->alpha);
    if (c->nfilters) {
        fputs("; filters", out);
        for (int i = 0; i < c->nfilters; i++) {
            fputs(" `", out);
            kb_report_markdown_cell(out, c->filters[i]);
            fputc('`', out);
        }
    }
    fputs("\n", out);
    if (c->ndifferences > 0) {
        fputs("- **warning**: different machines or builds, compared as allowed "
              "(`--allow-different-machines`):",
              out);
        for (int i = 0; i < c->ndifferences; i++) {
            fprintf(out, "%s %s `", i ? ";" : "", c->differences[i].what);
            kb_report_markdown_cell(out, c->differences[i].base);
            fputs("` vs `", out);
            kb_report_markdown_cell(out, c->differences[i].head);
            fputc('`', out);
        }
        fputc('\n', out);
    }
    char note[512];
    for (int head = 0; head < 2; head++)
        if (kb_comparison_load_note(c, head, note, sizeof note)) {
            fputs("- **warning**: ", out);
            kb_report_markdown_cell(out, note);
            fputc('\n', out);
        }
    if (c->overall.ncases > 0) {
        fputs("\n| op | cases | geometric mean | verdicts |\n|---|---:|---:|---|\n", out);
        for (int i = 0; i < c->nops; i++) {
            const kb_compare_mean *m = &c->ops[i];
            kb_compare_counts_text(m->counts, counts, sizeof counts);
            fputs("| `", out);
            kb_report_markdown_cell(out, m->op);
            if (m->ncases > 0)
                fprintf(out, "` | %d | %.3f | %s |\n", m->ncases, m->geomean, counts);
            else
                fprintf(out, "` | 0 | - | %s |\n", counts);
        }
    }
    int changed = c->ncases - c->counts[KB_VERDICT_UNCHANGED];
    bool fallback = false;
    for (int i = 0; i < c->ncases; i++)
        fallback |= c->cases[i].test == KB_COMPARE_TEST_CI_OVERLAP;
    if (changed > 0) {
        fprintf(out, "\n### Not unchanged (%d)\n\n", changed);
        case_table(c, true, out);
    }
    fprintf(out, "\n<details><summary>All %d case%s</summary>\n\n", c->ncases,
            kb_plural(c->ncases));
    case_table(c, false, out);
    fputs("\n</details>\n", out);
    if (fallback)
        fprintf(out,
                "\n\\* too few samples for the test to reach p < %g: decided by whether the 95%% "
                "confidence intervals of the medians overlap.\n",
                c->alpha);
    return KB_OK;
}
