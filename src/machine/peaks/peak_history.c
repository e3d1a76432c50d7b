/* The history of one peak figure: adding measurements, and the bound, typical figure and
 * spread they give (docs/roofline.md, "Peaks as a history"). */
#include <math.h>
#include <string.h>

#include "kbench/peaks.h"
#include "util/internal.h"

/* Whether sample i is among the KB_PEAK_HISTORY_KEEP highest (ties: the later ones). */
static bool among_highest(const kb_peak_history *h, int i) {
    int above = 0;
    for (int j = 0; j < h->count; j++)
        if (h->samples[j].value > h->samples[i].value ||
            (h->samples[j].value == h->samples[i].value && j > i))
            above++;
    return above < KB_PEAK_HISTORY_KEEP;
}

void kb_peak_history_add(kb_peak_history *h, int64_t at, double value) {
    if (!(value > 0) || !isfinite(value))
        return;
    if (h->count == KB_PEAK_HISTORY_MAX) {
        int drop = 0;
        while (among_highest(h, drop))
            drop++;
        memmove(h->samples + drop, h->samples + drop + 1,
                (size_t)(KB_PEAK_HISTORY_MAX - 1 - drop) * sizeof *h->samples);
        h->count--;
    }
    h->samples[h->count++] = (kb_peak_sample){at, value};
}

const char *kb_peak_spread_name(kb_peak_spread spread) {
    static const char *const names[] = {"steady", "varies", "bimodal"};
    return (unsigned)spread <= KB_PEAK_BIMODAL ? names[spread] : "?";
}

/* Two clusters when some gap between neighbours (in sorted order) is wider than
 KB_PEAK_SPREAD_MARGIN of the value below it and wider than the range of the values on either side,
 * each side holding at least two: a single odd value is an outlier or a stray, not a mode. */
static bool find_modes(const double *v, int n, double *low, double *high) {
    double widest = 0;
    for (int i = 1; i + 2 < n; i++) {
        double gap = v[i + 1] - v[i];
        if (gap > KB_PEAK_SPREAD_MARGIN * v[i] && gap > v[i] - v[0] && gap > v[n - 1] - v[i + 1] &&
            gap > widest) {
            widest = gap;
            *low = v[i];
            *high = v[i + 1];
        }
    }
    return widest > 0;
}

void kb_peak_history_summarize(const kb_peak_history *h, kb_peak_summary *out) {
    memset(out, 0, sizeof *out);
    int n = h->count < KB_PEAK_HISTORY_MAX ? h->count : KB_PEAK_HISTORY_MAX;
    if (n <= 0)
        return;
    out->count = n;
    int top = 0, second = -1;
    for (int i = 1; i < n; i++)
        if (h->samples[i].value >= h->samples[top].value)
            top = i; /* ties: the most recent */
    for (int i = 0; i < n; i++)
        if (i != top && (second < 0 || h->samples[i].value >= h->samples[second].value))
            second = i;
    out->highest = h->samples[top].value;
    out->highest_at = h->samples[top].at;
    out->outlier = n >= KB_PEAK_OUTLIER_MIN_COUNT &&
                   out->highest > (1 + KB_PEAK_OUTLIER_MARGIN) * h->samples[second].value;
    int bound = out->outlier ? second : top;
    out->bound = h->samples[bound].value;
    out->bound_at = h->samples[bound].at;

    double credible[KB_PEAK_HISTORY_MAX], recent[KB_PEAK_RECENT];
    int nc = 0, nr = 0;
    out->lowest = out->highest;
    for (int i = 0; i < n; i++) {
        double v = h->samples[i].value;
        if (v < out->lowest)
            out->lowest = v;
        if (out->outlier && i == top)
            continue;
        credible[nc++] = v;
    }
    for (int i = n - 1; i >= 0 && nr < KB_PEAK_RECENT; i--)
        if (!(out->outlier && i == top))
            recent[nr++] = h->samples[i].value;
    kb_sort_doubles(recent, (size_t)nr);
    out->typical = kb_median_sorted(recent, (size_t)nr);
    kb_sort_doubles(credible, (size_t)nc);
    if (find_modes(credible, nc, &out->low_mode, &out->high_mode))
        out->spread = KB_PEAK_BIMODAL;
    else if (out->bound > (1 + KB_PEAK_SPREAD_MARGIN) * credible[0])
        out->spread = KB_PEAK_VARIES;
}
