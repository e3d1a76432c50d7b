/* The effective capacity of each cache level, read off the load bandwidth curve's knees. */
#include <math.h>
#include <stdbool.h>

#include "machine/peaks/working_sets.h"

/* The highest bound of the points whose working set is in (low, high]; its index in *at, -1
 * and 0 when there is none. */
static double plateau(const kb_bw_curve *c, int64_t low, int64_t high, int *at) {
    double best = 0;
    *at = -1;
    for (int i = 0; i < c->count; i++) {
        int64_t ws = c->points[i].working_set_bytes;
        kb_peak_summary s;
        kb_peak_history_summarize(&c->points[i].history, &s);
        if (ws > low && ws <= high && s.bound > best) {
            best = s.bound;
            *at = i;
        }
    }
    return best;
}

static double bound_at(const kb_bw_curve *c, int i) {
    kb_peak_summary s;
    kb_peak_history_summarize(&c->points[i].history, &s);
    return s.bound;
}

/* The knee of level l on the curve, given the OS's capacities os[0..KB_MEM_DRAM]: false when
 * the curve shows no plateau for it or no drop after it. */
static bool knee(const kb_bw_curve *c, int l, const int64_t *os, int64_t *found) {
    if (os[l] <= 0 || c->count < 2)
        return false;
    /* This level's plateau: the best of the working sets the OS says it holds; the next one's:
     * the best of the next level's, or memory's (the curve's last point). */
    int top, next_at = c->count - 1;
    double own = plateau(c, l > 0 ? os[l - 1] : 0, os[l], &top);
    double next = l + 1 < KB_MEM_DRAM && os[l + 1] > os[l] ? plateau(c, os[l], os[l + 1], &next_at)
                                                           : bound_at(c, c->count - 1);
    if (top < 0 || next_at < 0 || !(own >= KB_CURVE_KNEE_DROP * next))
        return false;
    /* The largest working set, from the plateau to the next level's, that has lost at most a
     * quarter of the way down to the next plateau (in ratio): further on, a growing share of
     * the bytes comes from the next level (at the midpoint, a working set 1.4 times a cache
     * still reads 70% of it from there). The largest, not the first below: one noisy point
     * does not end a plateau. */
    double keep = pow(own, 0.75) * pow(next, 0.25);
    int i = top;
    for (int j = top + 1; j <= next_at; j++)
        if (bound_at(c, j) >= keep)
            i = j;
    *found = c->points[i].working_set_bytes;
    return true;
}

void kb_bw_curve_capacities(const kb_bw_curve *curve, const kb_cache caches[KB_CACHE_LEVEL_COUNT],
                            int threads, int64_t capacity[KB_MEM_DRAM]) {
    int64_t os[KB_MEM_DRAM + 1];
    for (int l = 0; l <= KB_MEM_DRAM; l++)
        os[l] = kb_level_capacity(caches, (kb_mem_level)l, threads);
    int64_t below = 0; /* the capacity of the levels before: capacities only grow */
    for (int l = 0; l < KB_MEM_DRAM; l++) {
        int64_t found;
        capacity[l] = knee(curve, l, os, &found) && found > below ? found : os[l];
        below = capacity[l] > below ? capacity[l] : below;
    }
}

void kb_peaks_capacities(const kb_peaks *peaks, int threads, int64_t capacity[KB_MEM_DRAM]) {
    /* Whatever the traffic: the capacities are the caches', and the load kernel, which writes
     * nothing, shows them cleanest. */
    const kb_peak_set *nearer =
        &peaks->sets[threads <= 1 ? KB_PEAKS_ONE_THREAD : KB_PEAKS_ALL_THREADS];
    kb_bw_curve_capacities(&nearer->curves[KB_BW_LOAD], peaks->caches, threads, capacity);
}
