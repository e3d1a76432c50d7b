/* The pieces the trace reports share: percentages, cut names, groups as JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/roofline.h"
#include "results/trace_format.h"
#include "util/internal.h"

void kb_trace_format_percent(char *buf, size_t size, double pct) {
    if (!isfinite(pct))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, pct < 999.95 ? "%.1f%%" : pct < 999999.5 ? "%.0f%%" : "%.0e%%", pct);
}

void kb_trace_format_name(char *buf, size_t size, const char *name, int width) {
    size_t n = strlen(name);
    if (n <= (size_t)width || width < 4)
        snprintf(buf, size, "%s", name);
    else
        snprintf(buf, size, "%.*s...", width - 3, name);
}

json_t *kb_trace_group_json(const kb_trace_group *g) {
    json_t *flags = json_array();
    for (unsigned f = KB_ROOFLINE_IMPOSSIBLE; f <= KB_ROOFLINE_SUSPICIOUS_LOW; f <<= 1)
        if (g->flags & f)
            json_array_append_new(flags, json_string(kb_roofline_flag_name(f)));
    return json_pack(
        "{s:s?, s:I, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s?, s:s?, s:o}",
        "name", g->name, "count", (json_int_t)g->count, "seconds", json_real(g->seconds),
        "mean_seconds", kb_json_real(g->count ? g->seconds / (double)g->count : NAN), "share",
        json_real(g->share), "counted", (json_int_t)g->counted, "counted_seconds",
        json_real(g->counted_seconds), "flops", json_real(g->flops), "bytes", json_real(g->bytes),
        "flops_per_second", kb_json_real(g->flops_per_second), "bytes_per_second",
        kb_json_real(g->bytes_per_second), "percent_of_bound", kb_json_real(g->percent_of_bound),
        "percent_of_flops", kb_json_real(g->percent_of_flops), "percent_of_bandwidth",
        kb_json_real(g->percent_of_bandwidth), "op", g->op[0] ? g->op : NULL, "peak",
        g->peak[0] ? g->peak : NULL, "flags", flags);
}
