/* The peaks for people: measured figures beside the datasheet's, as a table or JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "app/peaks_report.h"
#include "app/usage.h"
#include "kbench/version.h"
#include "machine/internal.h"
#include "util/internal.h"
#include "util/strings.h"

/* A clock this far below nominal is reported as throttled: a few percent is measurement noise
 * of the add chain. */
#define KB_THROTTLE_RATIO 0.95

/* The clock the datasheet's FLOP peaks are scaled to: the one measured with the peaks, which
 * is the one they ran at; the nominal clock when it could not be measured. */
static double peaks_clock(const kb_peaks_report *r) {
    if (r->peaks.clock_mhz > 0)
        return r->peaks.clock_mhz;
    return r->row && r->row->base_mhz > 0 ? r->row->base_mhz : r->machine.nominal_mhz;
}

/* Rated clock: the datasheet's base clock, else what the machine says. */
static double nominal_clock(const kb_peaks_report *r) {
    return r->row && r->row->base_mhz > 0 ? r->row->base_mhz : r->machine.nominal_mhz;
}

/* Cores that FLOP/s scale with: hardware threads of one core share its FMA pipes. */
static int cores_used(const kb_peaks_report *r, int threads) {
    int cores = r->machine.physical_cores > 0 ? r->machine.physical_cores : r->machine.logical_cpus;
    return threads < cores || cores < 1 ? threads : cores;
}

static double theoretical_flops(const kb_peaks_report *r, int t, int l, int threads) {
    return kb_datasheet_core_flops(r->row, (kb_flop_type)t, (kb_simd_level)l, peaks_clock(r)) *
           cores_used(r, threads);
}

/* The least clock at which the one-thread FMA peaks fit the datasheet's pipes; 0 without a
 * row. A clock measured below it was disturbed. */
static double implied_clock(const kb_peaks_report *r) {
    double mhz = 0;
    for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++)
        for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
            double per_mhz = kb_datasheet_core_flops(r->row, (kb_flop_type)t, (kb_simd_level)l, 1);
            const kb_rate *one = &r->peaks.sets[KB_PEAKS_ONE_THREAD].flops[t][l];
            if (per_mhz > 0 && one->repetitions > 0)
                mhz = fmax(mhz, one->best / per_mhz);
        }
    return mhz;
}

/* The clock now: the fastest repetition, which sharing the core with other work slows least. */
static double clock_now(const kb_peaks_report *r) {
    return r->clock.max_mhz;
}

static const char *clock_status(const kb_peaks_report *r) {
    double nominal = nominal_clock(r);
    if (!(clock_now(r) > 0) || !(nominal > 0))
        return "unknown";
    double ratio = clock_now(r) / nominal;
    return ratio < KB_THROTTLE_RATIO ? "below_nominal" : ratio > 1.05 ? "above_nominal" : "nominal";
}

/* One figure of the peaks, for the history section. */
typedef struct figure {
    char name[48]; /* "load DRAM", "FMA float64 avx2" */
    int threads;
    bool bandwidth;
    const kb_peak_history *history;
} figure;

/* Every figure with a history: bandwidth by level and kernel, then FMA, each at 1 thread and
 * at all cores (once when those are one count). Returns how many (at most max). */
static int figures(const kb_peaks *p, figure *out, int max) {
    int n = 0;
    int sets = p->sets[1].threads == p->sets[0].threads ? 1 : KB_PEAKS_SET_COUNT;
    for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++)
        for (int k = 0; k < KB_BW_KERNEL_COUNT; k++)
            for (int s = 0; s < sets && n < max; s++) {
                const kb_peak_history *h = &p->sets[s].bandwidth[k][l].history;
                if (h->count == 0)
                    continue;
                figure *f = &out[n++];
                snprintf(f->name, sizeof f->name, "%s %s", kb_bw_kernel_name((kb_bw_kernel)k),
                         kb_mem_level_name((kb_mem_level)l));
                f->threads = p->sets[s].threads;
                f->bandwidth = true;
                f->history = h;
            }
    for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++)
        for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++)
            for (int s = 0; s < sets && n < max; s++) {
                const kb_peak_history *h = &p->sets[s].flops_history[t][l];
                if (h->count == 0)
                    continue;
                figure *f = &out[n++];
                snprintf(f->name, sizeof f->name, "FMA %s %s", kb_flop_type_name((kb_flop_type)t),
                         kb_simd_name((kb_simd_level)l));
                f->threads = p->sets[s].threads;
                f->bandwidth = false;
                f->history = h;
            }
    return n;
}

#define MAX_FIGURES                                                                                \
    (KB_PEAKS_SET_COUNT *                                                                          \
     (KB_BW_KERNEL_COUNT * KB_MEM_LEVEL_COUNT + KB_FLOP_TYPE_COUNT * KB_SIMD_LEVEL_COUNT))

/* What a figure's history says in words, when it is not steady ("" when it is). All-core
 * bandwidth that is bimodal is what a VM shows whose vCPUs are sometimes placed on two
 * hyperthreads of one core: the issue that made kbench keep a history says so plainly. */
static void spread_note(const figure *f, const kb_peak_summary *s, char *buf, size_t size) {
    const char *unit = f->bandwidth ? "GB/s" : "GFLOP/s";
    buf[0] = '\0';
    if (s->spread == KB_PEAK_BIMODAL && f->bandwidth && f->threads > 1)
        snprintf(buf, size,
                 "all-core bandwidth on this machine varies between %.0f and %.0f %s (%.47s at %d "
                 "threads: about %.0f or about %.0f, %d measurements); this happens on VMs whose "
                 "vCPUs share physical cores",
                 s->lowest * 1e-9, s->bound * 1e-9, unit, f->name, f->threads, s->low_mode * 1e-9,
                 s->high_mode * 1e-9, s->count);
    else if (s->spread == KB_PEAK_BIMODAL)
        snprintf(buf, size,
                 "%.47s at %d thread%s is bimodal: about %.1f or about %.1f %s (%d measurements)",
                 f->name, f->threads, kb_plural(f->threads), s->low_mode * 1e-9,
                 s->high_mode * 1e-9, unit, s->count);
    else if (s->spread == KB_PEAK_VARIES)
        snprintf(buf, size,
                 "%.47s at %d thread%s varies by more than %.0f%%: between %.1f and %.1f %s (%d "
                 "measurements)",
                 f->name, f->threads, kb_plural(f->threads), 100 * KB_PEAK_SPREAD_MARGIN,
                 s->lowest * 1e-9, s->bound * 1e-9, unit, s->count);
}

/* A curve point's figure for the table: this measurement and its history's bound. */
static void print_curve_point(const kb_bw_curve *c, int i) {
    if (i >= c->count) {
        printf(" | %9s %8s %8s", "", "", "");
        return;
    }
    char ws[32];
    kb_format_bytes(ws, sizeof ws, c->points[i].working_set_bytes);
    kb_peak_summary s;
    kb_peak_history_summarize(&c->points[i].history, &s);
    printf(" | %9s %8.1f %8.1f", ws, c->points[i].bytes_per_second.best * 1e-9, s.bound * 1e-9);
}

/* The load curve of each set side by side, row by row (the sets' working sets differ). */
static void print_curve(const kb_peaks *p) {
    const kb_peak_set *sets = p->sets;
    int sets_shown = sets[1].threads == sets[0].threads ? 1 : KB_PEAKS_SET_COUNT;
    int rows = 0;
    for (int s = 0; s < sets_shown; s++)
        rows = sets[s].curves[KB_BW_LOAD].count > rows ? sets[s].curves[KB_BW_LOAD].count : rows;
    if (rows == 0)
        return;
    printf("\nload curve, GB/s: this measurement and the bound of each working set's history; a "
           "result is\nheld against the curve at its own working set (docs/roofline.md)\n  ");
    char a[32];
    for (int s = 0; s < sets_shown; s++) {
        snprintf(a, sizeof a, "%d thread%s", sets[s].threads, kb_plural(sets[s].threads));
        printf(" | %-27s", a);
    }
    printf("\n  ");
    for (int s = 0; s < sets_shown; s++)
        printf(" | %9s %8s %8s", "ws", "now", "bound");
    printf("\n");
    for (int i = 0; i < rows; i++) {
        printf("  ");
        for (int s = 0; s < sets_shown; s++)
            print_curve_point(&sets[s].curves[KB_BW_LOAD], i);
        printf("\n");
    }
}

/* The bound of a curve's last point at or below ws when that point is above ws / 2; 0 when
 * there is none. */
static double octave_bound(const kb_bw_curve *c, int64_t ws) {
    int at = -1;
    for (int i = 0; i < c->count && c->points[i].working_set_bytes <= ws; i++)
        at = i;
    if (at < 0 || c->points[at].working_set_bytes <= ws / 2)
        return 0;
    kb_peak_summary s;
    kb_peak_history_summarize(&c->points[at].history, &s);
    return s.bound;
}

/* Every kernel's curve side by side, compactly: a row per power of two of the working set. */
static void print_curves(const kb_peaks *p) {
    const kb_peak_set *sets = p->sets;
    int sets_shown = sets[1].threads == sets[0].threads ? 1 : KB_PEAKS_SET_COUNT;
    int64_t first = INT64_MAX, last = 0;
    for (int s = 0; s < sets_shown; s++)
        for (int k = 0; k < KB_BW_KERNEL_COUNT; k++) {
            const kb_bw_curve *c = &sets[s].curves[k];
            if (c->count == 0)
                continue;
            first = c->points[0].working_set_bytes < first ? c->points[0].working_set_bytes : first;
            last = c->points[c->count - 1].working_set_bytes > last
                       ? c->points[c->count - 1].working_set_bytes
                       : last;
        }
    if (last == 0)
        return;
    printf("\nbandwidth curves, GB/s: each kernel's bound at its point at or below each power of "
           "two (copy and triad\nround working sets to whole blocks of their two and three "
           "arrays; the JSON has every point)\n  %-9s",
           "");
    char a[32];
    for (int s = 0; s < sets_shown; s++) {
        snprintf(a, sizeof a, "%d thread%s", sets[s].threads, kb_plural(sets[s].threads));
        printf(" | %-26s", a);
    }
    printf("\n  %-9s", "ws");
    for (int s = 0; s < sets_shown; s++)
        printf(" | %8s %8s %8s", "load", "copy", "triad");
    printf("\n");
    int64_t ws = 1;
    while (ws < first)
        ws *= 2;
    for (; ws / 2 < last; ws *= 2) {
        double bound[KB_PEAKS_SET_COUNT][KB_BW_KERNEL_COUNT];
        bool any = false;
        for (int s = 0; s < sets_shown; s++)
            for (int k = 0; k < KB_BW_KERNEL_COUNT; k++)
                any |= (bound[s][k] = octave_bound(&sets[s].curves[k], ws)) > 0;
        if (!any)
            continue;
        kb_format_bytes(a, sizeof a, ws);
        printf("  %-9s", a);
        for (int s = 0; s < sets_shown; s++) {
            printf(" |");
            for (int k = 0; k < KB_BW_KERNEL_COUNT; k++) {
                if (bound[s][k] > 0)
                    printf(" %8.1f", bound[s][k] * 1e-9);
                else
                    printf(" %8s", "");
            }
        }
        printf("\n");
    }
}

/* The levels' effective capacities of each set, from the curve's knees, beside the OS's. */
static void print_capacities(const kb_peaks *p) {
    const kb_peak_set *sets = p->sets;
    int sets_shown = sets[1].threads == sets[0].threads ? 1 : KB_PEAKS_SET_COUNT;
    if (sets[0].curves[KB_BW_LOAD].count == 0)
        return;
    printf("\neffective capacities, from the load curve's knees (the OS's sizes in brackets):\n");
    for (int s = 0; s < sets_shown; s++) {
        int64_t cap[KB_MEM_DRAM];
        kb_bw_curve_capacities(&sets[s].curves[KB_BW_LOAD], p->caches, sets[s].threads, cap);
        char t[32];
        snprintf(t, sizeof t, "%d thread%s", sets[s].threads, kb_plural(sets[s].threads));
        printf("  %-10s", t);
        for (int l = 0; l < KB_MEM_DRAM; l++) {
            char a[32], b[32];
            kb_format_bytes(a, sizeof a, cap[l]);
            kb_format_bytes(b, sizeof b,
                            kb_level_capacity(p->caches, (kb_mem_level)l, sets[s].threads));
            printf("  %s %s (%s)", kb_mem_level_name((kb_mem_level)l), a, b);
        }
        printf("\n");
    }
}

/* The history of every figure: how many measurements, their range, the typical recent one
 * and the bound results are held against; then what the spread and the checks say. */
static void print_history(const kb_peaks *p) {
    static figure list[MAX_FIGURES];
    int n = figures(p, list, MAX_FIGURES);
    if (n == 0)
        return;
    printf("\nhistory: every measurement kept (up to %d per figure); results are held against "
           "the bound,\nthe highest credible figure (docs/roofline.md)\n",
           KB_PEAK_HISTORY_MAX);
    printf("  %-18s %7s %5s %9s %9s %9s %9s  %s\n", "figure", "threads", "count", "lowest",
           "typical", "bound", "highest", "spread");
    char note[400];
    int notes = 0;
    for (int i = 0; i < n; i++) {
        kb_peak_summary s;
        kb_peak_history_summarize(list[i].history, &s);
        printf("  %-18s %7d %5d %9.1f %9.1f %9.1f %9.1f  %s%s\n", list[i].name, list[i].threads,
               s.count, s.lowest * 1e-9, s.typical * 1e-9, s.bound * 1e-9, s.highest * 1e-9,
               kb_peak_spread_name(s.spread), s.outlier ? " (highest set aside)" : "");
    }
    for (int i = 0; i < n; i++) {
        kb_peak_summary s;
        kb_peak_history_summarize(list[i].history, &s);
        spread_note(&list[i], &s, note, sizeof note);
        if (note[0])
            printf("%s  %s\n", notes++ ? "" : "\n", note);
    }
    char lines[16][160];
    int found = kb_peaks_check(p, lines, 16);
    for (int i = 0; i < found && i < 16; i++)
        printf("%s  CHECK %s\n", i ? "" : "\n", lines[i]);
}

static double spread(const kb_rate *rate) {
    return rate->median > 0 ? (rate->max - rate->min) / rate->median : 0;
}

int kb_peaks_print_text(const kb_peaks_report *r) {
    const kb_machine *m = &r->machine;
    const kb_peaks *p = &r->peaks;
    const kb_peak_set *sets = p->sets;
    char when[32], a[32], b[32];
    kb_format_utc(when, sizeof when, p->measured_at);

    printf("kbench peaks: %s %s", m->cpu_vendor, m->cpu_model);
    if (m->signature.x86_family >= 0)
        printf(" (family %d, model %d)", m->signature.x86_family, m->signature.x86_model);
    else if (m->signature.arm_implementer >= 0)
        printf(" (implementer 0x%02x, part 0x%03x)", m->signature.arm_implementer,
               m->signature.arm_part);
    printf(", %d logical cpus\n", m->logical_cpus);
    printf("  peaks      measured %s%s, %s %s\n", when, p->quick ? " with --quick" : "",
           r->source.reused             ? "read from"
           : r->source.cache_warning[0] ? "not cached:"
                                        : "cached in",
           r->source.cache_warning[0] && !r->source.reused ? r->source.cache_warning
                                                           : r->source.cache_path);

    /* Peaks measured beside other work are low, and results held against them look too good:
     * the threshold is kbench info's load warning. */
    int cores = m->logical_cpus > 0 ? m->logical_cpus : 1;
    if (p->load_average > 0.5 * cores)
        printf("  LOAD       the load average was %.2f on %d cpus while the peaks were measured: "
               "they are likely low;\n             measure again on a quiet machine with "
               "--refresh\n",
               p->load_average, cores);
    double nominal = nominal_clock(r);
    printf("  clock      ");
    if (clock_now(r) > 0)
        printf("%.0f MHz now, ", clock_now(r));
    if (p->clock_mhz > 0)
        printf("%.0f MHz with the peaks, ", p->clock_mhz);
    if (nominal > 0)
        printf("nominal %.0f MHz (%s)", nominal,
               r->row && r->row->base_mhz > 0 ? "datasheet base"
                                              : kb_clock_source_name(m->nominal_source));
    else
        printf("nominal unknown");
    if (strcmp(clock_status(r), "below_nominal") == 0)
        printf("; BELOW NOMINAL (%.0f%%): throttled, or sharing its core with other work",
               100 * clock_now(r) / nominal);
    printf("\n");
    if (r->row)
        printf("  datasheet  %s [%s]\n             source: %s\n", r->row->name, r->row->id,
               r->row->source);
    else
        printf("  datasheet  this CPU is not in the table: no theoretical peaks\n");

    printf("\nbandwidth, GB/s: best of %d; bytes counted as likwid-bench does (load 8, copy 16, "
           "triad 24 per element), no write-allocate\n",
           sets[0].bandwidth[0][0].bytes_per_second.repetitions);
    double worst = 0;
    printf("  %-5s", "");
    for (int s = 0; s < KB_PEAKS_SET_COUNT; s++) {
        snprintf(a, sizeof a, "%d thread%s", sets[s].threads, kb_plural(sets[s].threads));
        printf(" | %-36s", a);
    }
    printf("\n  %-5s", "level");
    for (int s = 0; s < KB_PEAKS_SET_COUNT; s++)
        printf(" | %9s %8s %8s %8s", "ws", "load", "copy", "triad");
    printf("\n");
    for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++) {
        printf("  %-5s", kb_mem_level_name((kb_mem_level)l));
        for (int s = 0; s < KB_PEAKS_SET_COUNT; s++) {
            kb_format_bytes(a, sizeof a, sets[s].bandwidth[KB_BW_LOAD][l].working_set_bytes);
            printf(" | %9s", a);
            for (int k = 0; k < KB_BW_KERNEL_COUNT; k++) {
                const kb_rate *rate = &sets[s].bandwidth[k][l].bytes_per_second;
                printf(" %8.1f", rate->best * 1e-9);
                worst = fmax(worst, spread(rate));
            }
        }
        printf("\n");
    }
    printf("  with write-allocate (L2, L3, DRAM): copy x1.5, triad x1.33; spread (max-min)/median "
           "up to %.0f%%\n",
           100 * worst);
    double memory = kb_datasheet_memory_bandwidth(r->row);
    if (memory > 0) {
        const kb_rate *dram =
            &sets[KB_PEAKS_ALL_THREADS].bandwidth[KB_BW_LOAD][KB_MEM_DRAM].bytes_per_second;
        printf("  datasheet: %.1f GB/s per socket (%d channels x 8 B x %.0f MT/s); DRAM load at %d "
               "threads is %.1f%% of it\n",
               memory * 1e-9, r->row->memory_channels, r->row->memory_mts,
               sets[KB_PEAKS_ALL_THREADS].threads, 100 * dram->best / memory);
    }
    print_curve(p);
    print_curves(p);
    print_capacities(p);

    printf("\nflops, GFLOP/s: best of %d; FMA chains, 2 FLOPs per lane\n",
           sets[0].flops[0][0].repetitions);
    snprintf(a, sizeof a, "%d thread%s", sets[0].threads, kb_plural(sets[0].threads));
    snprintf(b, sizeof b, "%d thread%s", sets[1].threads, kb_plural(sets[1].threads));
    printf("  %-15s %12s %12s", "", a, b);
    if (r->row)
        printf("   %s at %.0f MHz: per core, %% of it at 1 and %d threads", "datasheet",
               peaks_clock(r), sets[1].threads);
    printf("\n");
    worst = 0;
    for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++)
        for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
            const kb_rate *one = &sets[0].flops[t][l], *all = &sets[1].flops[t][l];
            if (one->repetitions == 0)
                continue;
            snprintf(a, sizeof a, "%s %s", kb_flop_type_name((kb_flop_type)t),
                     kb_simd_name((kb_simd_level)l));
            printf("  %-15s %12.1f %12.1f", a, one->best * 1e-9, all->best * 1e-9);
            worst = fmax(worst, fmax(spread(one), spread(all)));
            double core = theoretical_flops(r, t, l, 1);
            if (core > 0)
                printf("   %9.1f %6.1f%% %6.1f%%", core * 1e-9, 100 * one->best / core,
                       100 * all->best / theoretical_flops(r, t, l, sets[1].threads));
            printf("\n");
        }
    printf("  spread (max-min)/median up to %.0f%%\n", 100 * worst);
    if (implied_clock(r) > peaks_clock(r) * 1.02)
        printf("  above 100%% of the datasheet: the FMA peaks imply a clock of at least %.0f MHz; "
               "the clock was measured while\n  the core was shared with other work (see the "
               "load average), or the datasheet row undercounts the FMA pipes\n",
               implied_clock(r));
    print_history(p);
    return KB_EXIT_OK;
}

static json_t *id_or_null(int v) {
    return v >= 0 ? json_integer(v) : json_null();
}

static json_t *counting_json(void) {
    json_t *per = json_object();
    for (int k = 0; k < KB_BW_KERNEL_COUNT; k++) {
        kb_bw_traffic t;
        kb_bw_kernel_traffic((kb_bw_kernel)k, &t);
        json_object_set_new(per, kb_bw_kernel_name((kb_bw_kernel)k),
                            json_pack("{s:i, s:i, s:i}", "read", t.read_bytes, "write",
                                      t.write_bytes, "write_allocate", t.write_allocate_bytes));
    }
    return json_pack("{s:s, s:b, s:o, s:i}", "convention", "likwid-bench",
                     "write_allocate_included", 0, "bytes_per_element", per, "flops_per_fma_lane",
                     2);
}

static json_t *clock_json(const kb_peaks_report *r) {
    double nominal = nominal_clock(r);
    const char *status = clock_status(r);
    json_t *throttled = strcmp(status, "unknown") == 0
                            ? json_null()
                            : json_boolean(strcmp(status, "below_nominal") == 0);
    return json_pack(
        "{s:o, s:s, s:o, s:o, s:o, s:s, s:o}", "nominal_mhz", kb_json_positive(nominal),
        "nominal_source",
        r->row && r->row->base_mhz > 0 ? "datasheet"
                                       : kb_clock_source_name(r->machine.nominal_source),
        "measured_mhz", kb_json_positive(clock_now(r)), "peaks_mhz",
        kb_json_positive(r->peaks.clock_mhz), "ratio",
        clock_now(r) > 0 && nominal > 0 ? json_real(clock_now(r) / nominal) : json_null(), "status",
        status, "throttled", throttled);
}

static json_t *datasheet_json(const kb_peaks_report *r) {
    const kb_datasheet_row *row = r->row;
    if (!row)
        return json_null();
    const kb_peak_set *sets = r->peaks.sets;
    json_t *flops = json_array();
    for (int s = 0; s < KB_PEAKS_SET_COUNT; s++)
        for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++)
            for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++) {
                const kb_rate *rate = &sets[s].flops[t][l];
                double theory = theoretical_flops(r, t, l, sets[s].threads);
                if (rate->repetitions == 0 || theory <= 0)
                    continue;
                json_array_append_new(flops, json_pack("{s:s, s:s, s:i, s:f, s:f, s:f}", "type",
                                                       kb_flop_type_name((kb_flop_type)t), "simd",
                                                       kb_simd_name((kb_simd_level)l), "threads",
                                                       sets[s].threads, "theoretical_gflops_per_s",
                                                       theory * 1e-9, "measured_gflops_per_s",
                                                       rate->best * 1e-9, "percent",
                                                       100 * rate->best / theory));
            }
    double memory = kb_datasheet_memory_bandwidth(row);
    json_t *dram = json_array();
    for (int s = 0; memory > 0 && s < KB_PEAKS_SET_COUNT; s++)
        for (int k = 0; k < KB_BW_KERNEL_COUNT; k++) {
            const kb_rate *rate = &sets[s].bandwidth[k][KB_MEM_DRAM].bytes_per_second;
            json_array_append_new(dram, json_pack("{s:s, s:i, s:f, s:f}", "kernel",
                                                  kb_bw_kernel_name((kb_bw_kernel)k), "threads",
                                                  sets[s].threads, "measured_gbytes_per_s",
                                                  rate->best * 1e-9, "percent",
                                                  100 * rate->best / memory));
        }
    json_t *o = json_object();
    json_object_set_new(o, "id", json_string(row->id));
    json_object_set_new(o, "name", json_string(row->name));
    json_object_set_new(o, "source", json_string(row->source));
    json_object_set_new(o, "cores", kb_json_count(row->cores));
    json_object_set_new(o, "base_mhz", kb_json_positive(row->base_mhz));
    json_object_set_new(o, "boost_mhz", kb_json_positive(row->boost_mhz));
    json_object_set_new(o, "fma_units", kb_json_count(row->fma_units));
    json_object_set_new(o, "vector_bits", kb_json_count(row->vector_bits));
    json_object_set_new(o, "memory_channels", kb_json_count(row->memory_channels));
    json_object_set_new(o, "memory_mts", kb_json_positive(row->memory_mts));
    json_object_set_new(o, "memory_gbytes_per_s", kb_json_positive(memory * 1e-9));
    json_object_set_new(o, "clock_mhz", kb_json_positive(peaks_clock(r)));
    json_object_set_new(o, "flops", flops);
    json_object_set_new(o, "dram", dram);
    return o;
}

static json_t *history_notes_json(const kb_peaks *p) {
    static figure list[MAX_FIGURES];
    int n = figures(p, list, MAX_FIGURES);
    json_t *a = json_array();
    char note[400];
    for (int i = 0; i < n && a; i++) {
        kb_peak_summary s;
        kb_peak_history_summarize(list[i].history, &s);
        spread_note(&list[i], &s, note, sizeof note);
        if (note[0])
            json_array_append_new(a, json_pack("{s:s, s:i, s:s, s:s}", "figure", list[i].name,
                                               "threads", list[i].threads, "spread",
                                               kb_peak_spread_name(s.spread), "note", note));
    }
    return a;
}

static json_t *checks_json(const kb_peaks *p) {
    char lines[16][160];
    int found = kb_peaks_check(p, lines, 16);
    json_t *a = json_array();
    for (int i = 0; i < found && i < 16 && a; i++)
        json_array_append_new(a, json_string(lines[i]));
    return a;
}

int kb_peaks_print_json(const kb_peaks_report *r) {
    const kb_machine *m = &r->machine;
    json_t *cpu = json_pack(
        "{s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:o}", "vendor", kb_json_text(m->cpu_vendor), "model",
        kb_json_text(m->cpu_model), "x86_family", id_or_null(m->signature.x86_family), "x86_model",
        id_or_null(m->signature.x86_model), "arm_implementer",
        id_or_null(m->signature.arm_implementer), "arm_part", id_or_null(m->signature.arm_part),
        "logical_cpus", m->logical_cpus, "physical_cores", kb_json_count(m->physical_cores));
    json_t *cache = json_pack("{s:o, s:o, s:b}", "path", kb_json_text(r->source.cache_path), "key",
                              kb_json_text(r->source.cache_key), "reused", r->source.reused);
    json_t *root =
        json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "version", KB_VERSION_STRING,
                  "cpu", cpu, "cache", cache, "counting", counting_json(), "clock", clock_json(r),
                  "peaks", kb_peaks_json_build(&r->peaks), "datasheet", datasheet_json(r),
                  "history_notes", history_notes_json(&r->peaks), "checks", checks_json(&r->peaks));
    if (!root) {
        fprintf(stderr, "kbench peaks: cannot build the JSON output\n");
        return KB_EXIT_FAILURE;
    }
    kb_status st = kb_json_write(stdout, root, KB_JSON_DISPLAY | JSON_INDENT(2));
    json_decref(root);
    if (st != KB_OK) {
        fprintf(stderr, "kbench peaks: cannot write JSON to stdout\n");
        return KB_EXIT_FAILURE;
    }
    return KB_EXIT_OK;
}
