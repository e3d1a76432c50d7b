/* The bandwidth probes of a run (docs/roofline.md, "The probe in every run"). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bench/probe.h"
#include "core/internal.h"
#include "machine/internal.h"

/* Repetitions of a probe: enough for a best-of that is not one lucky sample, few enough that
 * each lasts long enough to time a whole DRAM sweep. */
#define KB_PROBE_REPETITIONS 7

/* The level a result is held to: by the capacities the roofline names levels by. */
static kb_mem_level level_of(const kb_peaks *p, double working_set, int threads) {
    int64_t capacity[KB_MEM_DRAM];
    kb_peaks_capacities(p, threads, capacity);
    for (int l = KB_MEM_L1; l < KB_MEM_DRAM; l++)
        if (capacity[l] > 0 && working_set <= (double)capacity[l])
            return (kb_mem_level)l;
    return KB_MEM_DRAM;
}

/* One measurement of a figure, as kbench peaks measures it but shorter; 0 when it fails. */
static double measure(const kb_probes *p, const kb_bench_probe *probe) {
    const kb_peaks *peaks = &p->context->peaks;
    /* The warm-up that sizes the repetitions takes about one more. */
    kb_measure_settings s = {p->seconds / (KB_PROBE_REPETITIONS + 1), KB_PROBE_REPETITIONS};
    kb_bw_peak out;
    if (kb_bw_measure(probe->kernel, peaks->bandwidth_simd, probe->threads,
                      probe->working_set_bytes, &s, &out) != KB_OK)
        return 0;
    return out.bytes_per_second.best;
}

static void record(kb_probes *p, const kb_bench_probe *probe, double value, int64_t at) {
    kb_bw_record r = {probe->threads, probe->kernel, probe->level, at, value};
    kb_peaks_add_record(&p->context->peaks, &r);
}

static bool probed(const kb_bench_context *c, int threads, kb_bw_kernel kernel,
                   kb_mem_level level) {
    for (int i = 0; i < c->nprobes; i++)
        if (c->probes[i].threads == threads && c->probes[i].kernel == kernel &&
            c->probes[i].level == level)
            return true;
    return false;
}

void kb_probes_before_group(kb_probes *p, const kb_bench_case *group, const int *threads, int n) {
    kb_bench_context *c = p->context;
    if (group->bytes_per_call <= 0 || (unsigned)group->traffic >= KB_BW_KERNEL_COUNT)
        return;
    double ws = group->working_set_bytes > 0 ? group->working_set_bytes : group->bytes_per_call;
    for (int i = 0; i < n && c->nprobes < KB_BENCH_MAX_PROBES; i++) {
        int t = threads[i] > 0 ? threads[i] : 1;
        kb_mem_level level = level_of(&c->peaks, ws, t);
        if (probed(c, t, group->traffic, level))
            continue;
        kb_bench_probe *probe = &c->probes[c->nprobes++];
        memset(probe, 0, sizeof *probe);
        probe->threads = t;
        probe->kernel = group->traffic;
        probe->level = level;
        probe->working_set_bytes =
            kb_peaks_working_set(c->peaks.caches, c->peaks.logical_cpus, level, t, c->peaks.quick);
        probe->before = measure(p, probe);
        probe->before_at = (int64_t)time(NULL);
        record(p, probe, probe->before, probe->before_at);
    }
}

void kb_probes_after(kb_probes *p) {
    kb_bench_context *c = p->context;
    for (int i = 0; i < c->nprobes; i++) {
        kb_bench_probe *probe = &c->probes[i];
        probe->after = measure(p, probe);
        probe->after_at = (int64_t)time(NULL);
        record(p, probe, probe->after, probe->after_at);
    }
    kb_probes_check(c);
}

kb_status kb_bench_probes_record(const kb_bench_context *c, const char *cache_path,
                                 const char *cache_key) {
    kb_bw_record records[2 * KB_BENCH_MAX_PROBES];
    int n = 0;
    for (int i = 0; i < c->nprobes; i++) {
        const kb_bench_probe *p = &c->probes[i];
        if (p->before > 0)
            records[n++] = (kb_bw_record){p->threads, p->kernel, p->level, p->before_at, p->before};
        if (p->after > 0)
            records[n++] = (kb_bw_record){p->threads, p->kernel, p->level, p->after_at, p->after};
    }
    return kb_peaks_cache_add(cache_path, cache_key, records, n);
}
