/* kb_trace_print: a trace's analysis as a table, markdown or JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "kbench/roofline.h"
#include "kbench/trace.h"
#include "results/trace_format.h"
#include "util/internal.h"

/* A table's kernel column: long template names are cut; markdown and JSON keep them whole. */
#define NAME_WIDTH 48

static void peaks_line(const kb_trace_analysis *a, char *buf, size_t size) {
    const kb_gpu_row *r = &a->device;
    size_t n = (size_t)snprintf(buf, size, "%.0f GB/s", r->memory_gbs);
    for (int k = 0; k < KB_GPU_PEAK_COUNT && n < size; k++)
        if (r->tflops[k] > 0)
            n += (size_t)snprintf(buf + n, size - n, ", %s %g", kb_gpu_peak_name(k),
                                  kb_gpu_flops(r, k, a->clock_mhz) * 1e-12);
    if (n < size)
        snprintf(buf + n, size - n, " TFLOP/s at %.0f MHz%s",
                 a->clock_mhz > 0 ? a->clock_mhz : r->boost_mhz,
                 a->clock_mhz > 0 ? "" : " (boost)");
}

/* "12 unknown-op, 3 no-cpu-op" of the kernels whose work is not known. */
static void uncounted(const kb_trace_analysis *a, char *buf, size_t size) {
    size_t n = 0;
    buf[0] = '\0';
    for (int r = KB_TRACE_COUNTED + 1; r < KB_TRACE_REASON_COUNT && n < size; r++)
        if (a->reasons[r] > 0)
            n += (size_t)snprintf(buf + n, size - n, "%s%lld %s", n ? ", " : "",
                                  (long long)a->reasons[r], kb_trace_reason_name(r));
}

static double counted_share(const kb_trace_analysis *a) {
    double t = 0;
    for (int i = 0; i < a->ngroups; i++)
        t += a->groups[i].counted_seconds;
    return a->seconds > 0 ? t / a->seconds : 0;
}

/* The lines above the table (markdown: prefix "- "). */
static void summary(const kb_trace_analysis *a, const char *prefix, FILE *out) {
    char line[1024], total[32], rest[512];
    kb_format_duration(total, sizeof total, a->seconds * 1e9);
    fprintf(out, "%strace: %s\n", prefix, a->label);
    peaks_line(a, line, sizeof line);
    fprintf(out, "%sdevice: %s = %s (%s)\n", prefix, a->device_name, a->device.id, a->device.name);
    fprintf(out, "%speaks: %s\n", prefix, line);
    fprintf(out, "%skernels: %lld in %d name%s, %s; %lld event%s read\n", prefix,
            (long long)a->kernels, a->ngroups, kb_plural(a->ngroups), total, (long long)a->events,
            kb_plural(a->events));
    uncounted(a, rest, sizeof rest);
    fprintf(out, "%swork counted: %lld kernel%s (%.1f%% of the time)%s%s\n", prefix,
            (long long)a->reasons[KB_TRACE_COUNTED], kb_plural(a->reasons[KB_TRACE_COUNTED]),
            100 * counted_share(a), rest[0] ? "; not: " : "", rest);
    if (a->malformed > 0)
        fprintf(out,
                "%sskipped: %lld malformed event%s (a kernel or op without a name, ts or "
                "dur)\n",
                prefix, (long long)a->malformed, kb_plural(a->malformed));
    if (a->assumed > 0)
        fprintf(out,
                "%sassumed: stride 1, padding 0, dilation 1 for %lld convolution kernel%s "
                "(not recorded)\n",
                prefix, (long long)a->assumed, kb_plural(a->assumed));
    if (a->tf32)
        fprintf(out, "%sfloat32 products held against the TF32 tensor peak (--tf32)\n", prefix);
}

static void columns(const kb_trace_group *g, char cells[8][32]) {
    kb_format_duration(cells[0], 32, g->seconds * 1e9);
    kb_format_duration(cells[1], 32, g->count ? g->seconds / (double)g->count * 1e9 : 0);
    snprintf(cells[2], 32, "%.1f%%", 100 * g->share);
    kb_trace_format_percent(cells[3], 32, g->percent_of_bound);
    kb_trace_format_percent(cells[4], 32, g->percent_of_flops);
    kb_trace_format_percent(cells[5], 32, g->percent_of_bandwidth);
    if (isfinite(g->flops_per_second))
        kb_format_3(cells[6], 32, g->flops_per_second * 1e-12);
    else
        snprintf(cells[6], 32, "-");
    if (isfinite(g->bytes_per_second))
        kb_format_3(cells[7], 32, g->bytes_per_second * 1e-9);
    else
        snprintf(cells[7], 32, "-");
}

static void print_table(const kb_trace_analysis *a, FILE *out) {
    summary(a, "", out);
    int width = 6;
    for (int i = 0; i < a->ngroups; i++) {
        int n = (int)strlen(a->groups[i].name);
        width = n > width ? (n < NAME_WIDTH ? n : NAME_WIDTH) : width;
    }
    fprintf(out, "\n%-*s %7s %9s %9s %6s %7s %7s %7s %8s %7s  %s\n", width, "kernel", "count",
            "total", "mean", "share", "%bound", "%flop", "%bw", "TFLOP/s", "GB/s", "flags");
    for (int i = 0; i < a->ngroups; i++) {
        const kb_trace_group *g = &a->groups[i];
        char name[NAME_WIDTH + 1], cells[8][32], flags[64];
        kb_trace_format_name(name, sizeof name, g->name, width);
        columns(g, cells);
        kb_roofline_flags_describe(g->flags, flags, sizeof flags);
        fprintf(out, "%-*s %7lld %9s %9s %6s %7s %7s %7s %8s %7s%s%s\n", width, name,
                (long long)g->count, cells[0], cells[1], cells[2], cells[3], cells[4], cells[5],
                cells[6], cells[7], flags[0] ? "  " : "", flags);
    }
}

static kb_status print_markdown(const kb_trace_analysis *a, FILE *out) {
    fprintf(out, "## Kernels of %s\n\n", a->label);
    summary(a, "- ", out);
    fprintf(out, "\n| kernel | count | total | mean | share | %% bound | %% FLOP | %% BW | TFLOP/s "
                 "| GB/s | op | peak | flags |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:"
                 "|---|---|---|\n");
    for (int i = 0; i < a->ngroups; i++) {
        const kb_trace_group *g = &a->groups[i];
        char cells[8][32], flags[64];
        char *name = kb_markdown_cell(g->name);
        if (!name)
            return KB_ENOMEM;
        columns(g, cells);
        kb_roofline_flags_describe(g->flags, flags, sizeof flags);
        fprintf(out, "| `%s` | %lld | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                name, (long long)g->count, cells[0], cells[1], cells[2], cells[3], cells[4],
                cells[5], cells[6], cells[7], g->op[0] ? g->op : "-", g->peak[0] ? g->peak : "-",
                flags);
        free(name);
    }
    return KB_OK;
}

static json_t *device_json(const kb_trace_analysis *a) {
    json_t *peaks = json_object();
    for (int k = 0; k < KB_GPU_PEAK_COUNT; k++)
        json_object_set_new(peaks, kb_gpu_peak_name(k),
                            a->device.tflops[k] > 0
                                ? json_real(kb_gpu_flops(&a->device, k, a->clock_mhz))
                                : json_null());
    return json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "name", a->device_name, "id", a->device.id,
                     "datasheet_name", a->device.name, "clock_mhz",
                     json_real(a->clock_mhz > 0 ? a->clock_mhz : a->device.boost_mhz),
                     "bytes_per_second", json_real(kb_gpu_bandwidth(&a->device)),
                     "flops_per_second", peaks);
}

json_t *kb_trace_analysis_json(const kb_trace_analysis *a) {
    json_t *reasons = json_object(), *groups = json_array();
    for (int r = 0; r < KB_TRACE_REASON_COUNT; r++)
        json_object_set_new(reasons, kb_trace_reason_name(r), json_integer(a->reasons[r]));
    for (int i = 0; i < a->ngroups; i++)
        json_array_append_new(groups, kb_trace_group_json(&a->groups[i]));
    return json_pack("{s:s, s:o, s:b, s:I, s:I, s:I, s:o, s:o, s:I, s:o}", "trace", a->label,
                     "device", device_json(a), "tf32", a->tf32, "events", (json_int_t)a->events,
                     "malformed_events", (json_int_t)a->malformed, "kernels",
                     (json_int_t)a->kernels, "kernel_seconds", json_real(a->seconds),
                     "kernels_by_reason", reasons, "assumed_geometry", (json_int_t)a->assumed,
                     "groups", groups);
}

kb_status kb_trace_print(const kb_trace_analysis *a, kb_results_format format, FILE *out) {
    kb_status st = KB_OK;
    if (format == KB_RESULTS_TABLE)
        print_table(a, out);
    else if (format == KB_RESULTS_MARKDOWN)
        st = print_markdown(a, out);
    else if (format == KB_RESULTS_JSON) {
        json_t *root = kb_trace_analysis_json(a);
        if (!root)
            return kb_fail(KB_ENOMEM, "out of memory");
        st = kb_json_write(out, root, KB_JSON_EXACT | JSON_INDENT(2));
        json_decref(root);
    } else
        return kb_fail(KB_EINVAL, "a trace's analysis is a table, markdown or JSON, not %s",
                       kb_results_format_name(format));
    if (st == KB_OK && ferror(out))
        st = kb_fail(KB_EIO, "cannot write the report");
    return st;
}
