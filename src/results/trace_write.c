/* kb_results_save_trace: a run's timeline as a Chrome trace (Perfetto, chrome://tracing). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/internal.h"
#include "results/json.h"
#include "util/internal.h"
#include "kbench/results.h"

/* All events are one process's; each library that is timed has its own track. */
#define TRACE_PID 1
#define TRACE_TID_KBENCH 1

/* Microseconds, the unit of Chrome traces' ts and dur, from the run's first block. */
static double trace_us(int64_t ns, int64_t origin_ns) {
    return (double)(ns - origin_ns) / 1e3;
}

/* The track of a result: kbench's own implementations on one, each baseline library on its
 * own, numbered in order of appearance from 2 on. */
typedef struct trace_tracks {
    int count;
    const char *library[16];
} trace_tracks;

static int track_of(trace_tracks *t, const kb_bench_result *r) {
    if (!r->baseline)
        return TRACE_TID_KBENCH;
    for (int i = 0; i < t->count; i++)
        if (strcmp(t->library[i], r->baseline) == 0)
            return TRACE_TID_KBENCH + 1 + i;
    if (t->count == (int)(sizeof t->library / sizeof t->library[0]))
        return TRACE_TID_KBENCH + t->count;
    t->library[t->count++] = r->baseline;
    return TRACE_TID_KBENCH + t->count;
}

static json_t *thread_name(int tid, const char *name) {
    return json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "thread_name", "ph", "M", "pid",
                     TRACE_PID, "tid", tid, "args", "name", name);
}

/* The median time per call of a block's samples; 0 for an empty block. */
static double block_median_ns(const kb_bench_result *r, const kb_sample_block *b) {
    if (b->count < 1 || r->calls_per_sample < 1)
        return 0;
    double *t = malloc((size_t)b->count * sizeof *t);
    if (!t)
        return 0;
    for (int64_t i = 0; i < b->count; i++)
        t[i] = (double)r->sample_ns[b->first + i] / (double)r->calls_per_sample;
    kb_sort_doubles(t, (size_t)b->count);
    double median = kb_median_sorted(t, (size_t)b->count);
    free(t);
    return median;
}

/* A rate in units per second (GB/s for bytes / 1e9) at time_ns per call; null when unknown. */
static json_t *rate(double count, double time_ns, double unit) {
    return time_ns > 0 && count > 0 ? kb_json_positive(count / time_ns * 1e9 / unit) : json_null();
}

/* What the case measured as a whole, as its results file entry has it. */
static json_t *case_args(const kb_bench_result *r) {
    const kb_roofline *f = &r->roofline;
    return json_pack(
        "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "median_ns_per_call",
        kb_json_positive(r->stats.median), "ci_low_ns_per_call", kb_json_positive(r->stats.ci_low),
        "ci_high_ns_per_call", kb_json_positive(r->stats.ci_high), "gb_per_s",
        kb_json_positive(r->gb_per_s), "gflop_per_s", kb_json_positive(r->gflop_per_s),
        "percent_of_bound", r->has_roofline ? kb_json_positive(f->percent_of_bound) : json_null(),
        "bound_level", r->has_roofline ? json_string(kb_mem_level_name(f->level)) : json_null(),
        "flags", r->has_roofline ? kb_roofline_flags_json(f) : json_array());
}

/* The block of samples as one complete event, with its own median and rates beside the
 * case's; and the untimed call before it, when this process timed one. */
static kb_status add_block(json_t *events, const kb_bench_result *r, const kb_sample_block *b,
                           int tid, int64_t origin_ns) {
    double median = block_median_ns(r, b);
    /* The bound is a time per call: the block's share of it scales with its own median. */
    double percent =
        r->has_roofline && median > 0 ? r->roofline.percent_of_bound * r->stats.median / median : 0;
    json_t *args =
        json_pack("{s:I, s:I, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "samples",
                  (json_int_t)b->count, "calls_per_sample", (json_int_t)r->calls_per_sample,
                  "warmed_up", b->warm, "bytes_per_call", kb_json_positive(r->bytes_per_call),
                  "flops_per_call", kb_json_positive(r->flops_per_call), "median_ns_per_call",
                  kb_json_positive(median), "gb_per_s", rate(r->bytes_per_call, median, 1e9),
                  "gflop_per_s", rate(r->flops_per_call, median, 1e9), "percent_of_bound",
                  percent > 0 ? kb_json_positive(percent) : json_null(), "case", case_args(r));
    json_t *block = json_pack(
        "{s:s, s:s, s:s, s:f, s:f, s:i, s:i, s:o}", "name", r->name, "cat",
        r->baseline ? "baseline" : "kbench", "ph", "X", "ts", trace_us(b->start_ns, origin_ns),
        "dur", (double)(b->end_ns - b->start_ns) / 1e3, "pid", TRACE_PID, "tid", tid, "args", args);
    if (!block || json_array_append_new(events, block) != 0)
        return kb_fail(KB_ENOMEM, "out of memory for the trace");
    if (b->warm_ns <= 0)
        return KB_OK;
    json_t *warm =
        json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:i, s:{s:s}}", "name", "warm-up", "cat",
                  "warm-up", "ph", "X", "ts", trace_us(b->start_ns, origin_ns), "dur",
                  (double)b->warm_ns / 1e3, "pid", TRACE_PID, "tid", tid, "args", "case", r->name);
    if (!warm || json_array_append_new(events, warm) != 0)
        return kb_fail(KB_ENOMEM, "out of memory for the trace");
    return KB_OK;
}

/* The usage monitor's samples as counter tracks: the CPUs kbench, other processes and the
 * hypervisor took over each interval, the load average and the available memory. A counter
 * holds its value until the next, so each interval's figures are placed at its start. */
static kb_status add_usage(json_t *events, const kb_usage_series *u, int64_t origin_ns) {
    int64_t from = u->started_ns;
    for (int i = 0; i < u->count; i++) {
        const kb_usage_sample *s = &u->samples[i];
        double ts = trace_us(from, origin_ns);
        json_t *cpus =
            json_pack("{s:s, s:s, s:f, s:i, s:{s:f, s:f, s:f}}", "name", "CPUs in use", "ph", "C",
                      "ts", ts, "pid", TRACE_PID, "args", "kbench", s->own_cpus, "other processes",
                      s->others_cpus, "steal", s->steal_cpus);
        if (!cpus || json_array_append_new(events, cpus) != 0)
            return KB_ENOMEM;
        if (s->load1 >= 0) {
            json_t *load = json_pack("{s:s, s:s, s:f, s:i, s:{s:f}}", "name", "load average", "ph",
                                     "C", "ts", ts, "pid", TRACE_PID, "args", "1 minute", s->load1);
            if (!load || json_array_append_new(events, load) != 0)
                return KB_ENOMEM;
        }
        if (s->mem_available_bytes >= 0) {
            json_t *mem = json_pack("{s:s, s:s, s:f, s:i, s:{s:f}}", "name", "memory available",
                                    "ph", "C", "ts", ts, "pid", TRACE_PID, "args", "GiB",
                                    (double)s->mem_available_bytes / (1 << 30));
            if (!mem || json_array_append_new(events, mem) != 0)
                return KB_ENOMEM;
        }
        from = s->at_ns;
    }
    return KB_OK;
}

static json_t *trace_json(const kb_results *results) {
    const kb_usage_series *usage = &results->context.usage;
    int64_t origin = usage->count > 0 ? usage->started_ns : INT64_MAX;
    for (int i = 0; i < results->ncases; i++)
        for (int64_t k = 0; k < results->cases[i].nblocks; k++)
            if (results->cases[i].blocks[k].start_ns < origin)
                origin = results->cases[i].blocks[k].start_ns;
    json_t *events = json_array();
    json_t *root =
        json_pack("{s:o, s:s, s:{s:s, s:s, s:s, s:s}}", "traceEvents", events, "displayTimeUnit",
                  "ns", "otherData", "kbench_version", results->context.build.version, "git_commit",
                  results->context.build.git_commit, "date", results->context.date, "cpu",
                  results->context.machine.cpu_model);
    if (!root)
        return NULL;
    trace_tracks tracks = {0};
    json_t *process = json_pack("{s:s, s:s, s:i, s:{s:s}}", "name", "process_name", "ph", "M",
                                "pid", TRACE_PID, "args", "name", "kbench run");
    if (json_array_append_new(events, process) != 0 ||
        json_array_append_new(events, thread_name(TRACE_TID_KBENCH, "kbench")) != 0)
        goto fail;
    for (int i = 0; i < results->ncases; i++) {
        const kb_bench_result *r = &results->cases[i];
        if (r->failed)
            continue;
        int known = tracks.count, tid = track_of(&tracks, r);
        if (tracks.count > known) {
            char name[96];
            snprintf(name, sizeof name, "baseline %s (its own process)", r->baseline);
            if (json_array_append_new(events, thread_name(tid, name)) != 0)
                goto fail;
        }
        for (int64_t k = 0; k < r->nblocks; k++)
            if (add_block(events, r, &r->blocks[k], tid, origin) != KB_OK)
                goto fail;
    }
    if (add_usage(events, usage, origin) != KB_OK)
        goto fail;
    return root;
fail:
    json_decref(root);
    return NULL;
}

kb_status kb_results_save_trace(const kb_results *results, const char *path) {
    json_t *root = trace_json(results);
    if (!root)
        return kb_fail(KB_ENOMEM, "%s: out of memory for the trace", path);
    kb_status st = kb_json_save_file(path, root, KB_JSON_EXACT | JSON_COMPACT);
    json_decref(root);
    return st;
}
