/* The speedup of fused cases over their eager twins for people and for files: the terminal
 * table and markdown after a run's speedups, and the results file's eager_speedups. */
#include <math.h>
#include <string.h>

#include "results/speedup.h"
#include "util/internal.h"

/* The flag of a row that falls short of the traffic rule, as the notes column says it. */
#define BELOW_TRAFFIC "below-traffic"

static void traffic_text(char *buf, size_t size, double ratio) {
    if (isfinite(ratio))
        snprintf(buf, size, "%.2fx", ratio);
    else
        snprintf(buf, size, "-");
}

void kb_eager_print_table(const kb_speedup_report *report, FILE *out) {
    if (report->neager == 0)
        return;
    int width = 4;
    for (int i = 0; i < report->neager; i++) {
        int len = (int)strlen(report->eager[i].fused->name);
        if (len > width)
            width = len;
    }
    fprintf(out,
            "\nSpeedup over eager (the same case through the eager evaluator, /eval=eager, in the "
            "same rounds): ratio of medians, 95%% bootstrap interval; traffic: eager bytes / "
            "fused bytes; " BELOW_TRAFFIC ": speedup below %.1f x traffic\n"
            "%-*s %10s %10s %24s %8s  %s\n",
            KB_EAGER_TRAFFIC_SHARE, width, "case", "time/call", "eager", "speedup", "traffic",
            "notes");
    for (int i = 0; i < report->neager; i++) {
        const kb_eager_speedup *e = &report->eager[i];
        char fused[32], eager[32], sp[64], traffic[32];
        kb_format_duration(fused, sizeof fused, e->fused->stats.median);
        kb_format_duration(eager, sizeof eager, e->eager->stats.median);
        snprintf(sp, sizeof sp, "%.2fx (%.2f to %.2f)", e->over_eager.ratio, e->over_eager.low,
                 e->over_eager.high);
        traffic_text(traffic, sizeof traffic, e->traffic_ratio);
        fprintf(out, "%-*s %10s %10s %24s %8s  %s\n", width, e->fused->name, fused, eager, sp,
                traffic, e->below_traffic ? BELOW_TRAFFIC : "");
    }
}

void kb_eager_print_markdown(const kb_speedup_report *report, FILE *out) {
    if (report->neager == 0)
        return;
    fprintf(out,
            "\n## Speedup over eager\n\n"
            "Each fused case against its eager twin (`/eval=eager`: the same expression through "
            "the eager evaluator, timed in the same rounds): ratio of medians (eager / fused) "
            "with its 95%% bootstrap interval; traffic: eager bytes / fused bytes, each plan's "
            "count; `" BELOW_TRAFFIC "`: the speedup is below %.1f x the traffic ratio.\n\n"
            "| case | time/call | eager | speedup | 95%% CI | traffic | notes |\n"
            "|---|---:|---:|---:|---|---:|---|\n",
            KB_EAGER_TRAFFIC_SHARE);
    for (int i = 0; i < report->neager; i++) {
        const kb_eager_speedup *e = &report->eager[i];
        char fused[32], eager[32], traffic[32];
        kb_format_duration(fused, sizeof fused, e->fused->stats.median);
        kb_format_duration(eager, sizeof eager, e->eager->stats.median);
        traffic_text(traffic, sizeof traffic, e->traffic_ratio);
        fprintf(out, "| `%s` | %s | %s | %.2fx | %.2f to %.2f | %s | %s |\n", e->fused->name, fused,
                eager, e->over_eager.ratio, e->over_eager.low, e->over_eager.high, traffic,
                e->below_traffic ? "**" BELOW_TRAFFIC "**" : "");
    }
}

json_t *kb_eager_json(const kb_speedup_report *report) {
    if (report->neager == 0)
        return json_null();
    json_t *rows = json_array();
    for (int i = 0; i < report->neager; i++) {
        const kb_eager_speedup *e = &report->eager[i];
        json_array_append_new(
            rows,
            json_pack("{s:s, s:s, s:{s:f, s:f, s:f}, s:o, s:b}", "case", e->fused->name,
                      "eager_case", e->eager->name, "over_eager", "ratio", e->over_eager.ratio,
                      "ci_low", e->over_eager.low, "ci_high", e->over_eager.high, "traffic_ratio",
                      isfinite(e->traffic_ratio) ? json_real(e->traffic_ratio) : json_null(),
                      "below_traffic", e->below_traffic));
    }
    return json_pack("{s:s, s:s, s:f, s:f, s:o}", "ratio", "median(eager) / median(fused)",
                     "traffic_ratio", "bytes_per_call(eager) / bytes_per_call(fused)", "ci_level",
                     0.95, "traffic_share", KB_EAGER_TRAFFIC_SHARE, "rows", rows);
}
