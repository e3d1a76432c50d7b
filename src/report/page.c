/* The HTML report as one page: head with the inlined stylesheet, a section per run, the
 * comparison, the inlined script; and its atomic save. */
#include <errno.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/report.h"
#include "kbench/version.h"
#include "report/html.h"

static kb_status run_section(FILE *out, const kb_results *run, const char *label, int index) {
    char prefix[32];
    snprintf(prefix, sizeof prefix, "r%d", index);
    fprintf(out, "<section id=\"%s\"><h2>Run: ", prefix);
    if (label)
        kb_html_text(out, label);
    else
        fprintf(out, "%d", index + 1);
    fputs("</h2>\n", out);
    kb_speedup_report speedups;
    kb_status st = kb_speedup_report_make(run, &speedups);
    if (st != KB_OK)
        return st;
    kb_report_overview(out, run, &speedups);
    kb_report_roofline_chart(out, run, prefix);
    kb_report_curve_chart(out, run, prefix);
    st = kb_report_speedups(out, run, prefix);
    kb_report_eager(out, &speedups, prefix);
    kb_report_cases(out, run, prefix, &speedups);
    kb_speedup_report_free(&speedups);
    fputs("</section>\n", out);
    return st;
}

kb_status kb_report_html_print(const kb_report_input *input, FILE *out) {
    if (input->nruns <= 0 && !input->comparison && !input->history)
        return kb_fail(KB_EINVAL, "nothing to report: no results, no comparison and no history");
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>kbench report</title>\n<style>\n",
          out);
    fputs(kb_report_css, out);
    fprintf(out,
            "</style></head><body>\n<h1>kbench report</h1>\n<p class=\"note\">Made by kbench %s "
            "(docs/report.md explains each view). Hover a point or bar for its case; click a "
            "column header to sort; type in a filter box to keep matching cases.</p>\n<nav><ul>",
            KB_VERSION_STRING);
    for (int i = 0; i < input->nruns; i++) {
        fprintf(out, "<li><a href=\"#r%d\">run ", i);
        if (input->labels)
            kb_html_text(out, input->labels[i]);
        else
            fprintf(out, "%d", i + 1);
        fputs("</a></li>", out);
    }
    if (input->history)
        fputs("<li><a href=\"#history\">history</a></li>", out);
    if (input->comparison)
        fputs("<li><a href=\"#compare\">compare</a></li>", out);
    fputs("</ul></nav>\n", out);
    kb_status st = KB_OK;
    for (int i = 0; i < input->nruns && st == KB_OK; i++)
        st = run_section(out, &input->runs[i], input->labels ? input->labels[i] : NULL, i);
    if (st == KB_OK && input->history)
        st = kb_report_history(out, input->history, &input->history_select);
    if (st == KB_OK && input->comparison)
        kb_report_comparison(out, input->comparison);
    fputs("<script>\n", out);
    fputs(kb_report_js, out);
    fputs("</script>\n</body></html>\n", out);
    if (st == KB_OK && ferror(out))
        st = kb_fail(KB_EIO, "write error: %s", strerror(errno));
    return st;
}

static kb_status write_page(FILE *f, void *context) {
    return kb_report_html_print(context, f);
}

kb_status kb_report_html_save(const kb_report_input *input, const char *path) {
    return kb_atomic_write(path, write_page, (void *)input);
}
