/* A comparison in any format, and the texts of ratios and intervals its formats share. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "results/compare_report.h"
#include "util/strings.h"

void kb_compare_ratio_text(const kb_compare_case *c, char *buf, size_t size) {
    if (c->verdict > KB_VERDICT_UNCHANGED)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.3f", c->ratio);
}

void kb_compare_ci_text(const kb_compare_case *c, char *buf, size_t size) {
    if (c->verdict > KB_VERDICT_UNCHANGED)
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%.3f to %.3f", c->ratio_low, c->ratio_high);
}

void kb_compare_p_text(const kb_compare_case *c, char *buf, size_t size) {
    if (isnan(c->p))
        snprintf(buf, size, "-");
    else if (c->p < 1e-99)
        snprintf(buf, size, "<1e-99");
    else if (c->p < 0.001)
        snprintf(buf, size, "%.0e", c->p);
    else
        snprintf(buf, size, "%.3f", c->p);
}

void kb_compare_counts_text(const int counts[KB_VERDICT_COUNT], char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (int v = 0; v < KB_VERDICT_COUNT; v++) {
        if (counts[v] == 0 || used >= size)
            continue;
        int n = snprintf(buf + used, size - used, "%s%d %s", used ? ", " : "", counts[v],
                         kb_verdict_name((kb_verdict)v));
        used += n > 0 ? (size_t)n : 0;
    }
    if (used == 0)
        snprintf(buf, size, "no cases");
}

bool kb_comparison_load_note(const kb_comparison *comparison, bool head, char *buf, size_t size) {
    const kb_compare_load *l = head ? &comparison->head_load : &comparison->base_load;
    const char *label = head ? comparison->head_label : comparison->base_label;
    if (size > 0)
        buf[0] = '\0';
    if (!l->under_load && !l->bandwidth_changed)
        return false;
    char why[224] = "", changed[256] = "";
    if (l->cores > 0)
        snprintf(why, sizeof why, " (1-minute load average %.2f on %d core%s)", l->load_average,
                 l->cores, kb_plural(l->cores));
    else if (l->message[0])
        snprintf(why, sizeof why, " (%s)", l->message);
    if (l->bandwidth_changed)
        snprintf(changed, sizeof changed, "%s memory bandwidth changed during the run (%s)",
                 l->under_load ? " and its" : "'s", l->bandwidth_message);
    snprintf(buf, size, "%s%s%s%s: timings shift between runs and regressions may be false alarms",
             label, l->under_load ? " was measured under load" : "", why, changed);
    if (head) {
        /* A file compared with itself: its note once, as the base's. */
        char base[sizeof why + sizeof changed + 512];
        if (kb_comparison_load_note(comparison, false, base, sizeof base) &&
            strcmp(base, buf) == 0) {
            buf[0] = '\0';
            return false;
        }
    }
    return true;
}

kb_status kb_comparison_print(const kb_comparison *comparison, kb_results_format format,
                              bool colour, FILE *out) {
    kb_status st;
    switch (format) {
        case KB_RESULTS_TABLE:
            st = kb_compare_table(comparison, colour, out);
            break;
        case KB_RESULTS_MARKDOWN:
            st = kb_compare_markdown(comparison, out);
            break;
        case KB_RESULTS_JSON:
            st = kb_compare_json(comparison, out);
            break;
        default:
            return kb_fail(KB_EUNSUPPORTED,
                           "a comparison prints as table, markdown or json, not %s",
                           kb_results_format_name(format));
    }
    if (st == KB_OK && ferror(out))
        st = kb_fail(KB_EIO, "write error: %s", strerror(errno));
    return st;
}
