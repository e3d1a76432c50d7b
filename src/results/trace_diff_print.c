/* kb_trace_diff_print: two traces' kernels side by side as a table, markdown or JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/trace.h"
#include "results/trace_format.h"
#include "util/internal.h"

#define NAME_WIDTH 40

typedef struct cells {
    char count[2][24], total[2][32], percent[2][32], ratio[32];
} cells;

static void fill(const kb_trace_diff_row *r, cells *c) {
    const kb_trace_group *g[2] = {r->a, r->b};
    for (int s = 0; s < 2; s++) {
        if (g[s]) {
            snprintf(c->count[s], sizeof c->count[s], "%lld", (long long)g[s]->count);
            kb_format_duration(c->total[s], sizeof c->total[s], g[s]->seconds * 1e9);
            kb_trace_format_percent(c->percent[s], sizeof c->percent[s], g[s]->percent_of_bound);
        } else {
            snprintf(c->count[s], sizeof c->count[s], "-");
            snprintf(c->total[s], sizeof c->total[s], "-");
            snprintf(c->percent[s], sizeof c->percent[s], "-");
        }
    }
    if (isfinite(r->ratio))
        snprintf(c->ratio, sizeof c->ratio, "%.2fx", r->ratio);
    else
        snprintf(c->ratio, sizeof c->ratio, r->a ? "gone" : "new");
}

static void heading(const kb_trace_diff *d, const char *prefix, FILE *out) {
    char ta[32], tb[32];
    kb_format_duration(ta, sizeof ta, d->a->seconds * 1e9);
    kb_format_duration(tb, sizeof tb, d->b->seconds * 1e9);
    fprintf(out, "%sA: %s (%s, %s of kernels)\n", prefix, d->a->label, d->a->device.id, ta);
    fprintf(out, "%sB: %s (%s, %s of kernels)\n", prefix, d->b->label, d->b->device.id, tb);
    if (d->a->seconds > 0)
        fprintf(out, "%stime B/A: %.2fx\n", prefix, d->b->seconds / d->a->seconds);
}

static void print_table(const kb_trace_diff *d, FILE *out) {
    heading(d, "", out);
    int width = 6;
    for (int i = 0; i < d->nrows; i++) {
        int n = (int)strlen(d->rows[i].name);
        width = n > width ? (n < NAME_WIDTH ? n : NAME_WIDTH) : width;
    }
    fprintf(out, "\n%-*s %7s %7s %9s %9s %7s %7s %7s\n", width, "kernel", "count A", "count B",
            "time A", "time B", "B/A", "%bnd A", "%bnd B");
    for (int i = 0; i < d->nrows; i++) {
        char name[NAME_WIDTH + 1];
        cells c;
        kb_trace_format_name(name, sizeof name, d->rows[i].name, width);
        fill(&d->rows[i], &c);
        fprintf(out, "%-*s %7s %7s %9s %9s %7s %7s %7s\n", width, name, c.count[0], c.count[1],
                c.total[0], c.total[1], c.ratio, c.percent[0], c.percent[1]);
    }
}

static kb_status print_markdown(const kb_trace_diff *d, FILE *out) {
    fprintf(out, "## Kernels of B against A\n\n");
    heading(d, "- ", out);
    fprintf(out, "\n| kernel | count A | count B | time A | time B | B/A | %% bound A | %% bound B "
                 "|\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < d->nrows; i++) {
        cells c;
        char *name = kb_markdown_cell(d->rows[i].name);
        if (!name)
            return KB_ENOMEM;
        fill(&d->rows[i], &c);
        fprintf(out, "| `%s` | %s | %s | %s | %s | %s | %s | %s |\n", name, c.count[0], c.count[1],
                c.total[0], c.total[1], c.ratio, c.percent[0], c.percent[1]);
        free(name);
    }
    return KB_OK;
}

static json_t *side(const kb_trace_analysis *a) {
    return json_pack("{s:s, s:s, s:s, s:I, s:o}", "trace", a->label, "device", a->device_name,
                     "device_id", a->device.id, "kernels", (json_int_t)a->kernels, "kernel_seconds",
                     json_real(a->seconds));
}

static json_t *diff_json(const kb_trace_diff *d) {
    json_t *rows = json_array();
    for (int i = 0; i < d->nrows; i++) {
        const kb_trace_diff_row *r = &d->rows[i];
        json_array_append_new(rows, json_pack("{s:s, s:o, s:o, s:o}", "name", r->name, "a",
                                              r->a ? kb_trace_group_json(r->a) : json_null(), "b",
                                              r->b ? kb_trace_group_json(r->b) : json_null(),
                                              "ratio", kb_json_real(r->ratio)));
    }
    return json_pack("{s:o, s:o, s:o}", "a", side(d->a), "b", side(d->b), "kernels", rows);
}

kb_status kb_trace_diff_print(const kb_trace_diff *d, kb_results_format format, FILE *out) {
    kb_status st = KB_OK;
    if (format == KB_RESULTS_TABLE)
        print_table(d, out);
    else if (format == KB_RESULTS_MARKDOWN)
        st = print_markdown(d, out);
    else if (format == KB_RESULTS_JSON) {
        json_t *root = diff_json(d);
        if (!root)
            return kb_fail(KB_ENOMEM, "out of memory");
        st = kb_json_write(out, root, KB_JSON_EXACT | JSON_INDENT(2));
        json_decref(root);
    } else
        return kb_fail(KB_EINVAL, "a trace diff is a table, markdown or JSON, not %s",
                       kb_results_format_name(format));
    if (st == KB_OK && ferror(out))
        st = kb_fail(KB_EIO, "cannot write the report");
    return st;
}
