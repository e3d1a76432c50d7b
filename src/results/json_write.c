/* Results as JSON (docs/results-schema.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/json.h"
#include "results/speedup.h"
#include "results/usage_json.h"
#include "machine/internal.h"
#include "util/internal.h"

static json_t *string_list(char *const *list, int n) {
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, kb_json_text(list[i]));
    return a;
}

static json_t *clock_json(const kb_clock_measurement *m) {
    if (m->repetitions <= 0)
        return json_null();
    return json_pack("{s:f, s:f, s:f, s:i}", "mhz", m->mhz, "min_mhz", m->min_mhz, "max_mhz",
                     m->max_mhz, "repetitions", m->repetitions);
}

static json_t *build_json(const kb_bench_build *b) {
    const kb_build_info info = {b->version,    b->git_commit, b->compiler,
                                b->c_flags,    b->build_type, b->arch,
                                b->sanitizers, b->optimized,  b->git_branch};
    return kb_build_json(&info);
}

static json_t *time_or_null(int64_t t) {
    char when[32];
    return t > 0 && kb_format_utc(when, sizeof when, t) ? json_string(when) : json_null();
}

static json_t *probes_json(const kb_bench_context *c) {
    json_t *a = json_array();
    for (int i = 0; i < c->nprobes && a; i++) {
        const kb_bench_probe *p = &c->probes[i];
        json_array_append_new(
            a,
            json_pack("{s:i, s:s, s:s, s:I, s:o, s:o, s:o, s:o, s:b}", "threads", p->threads,
                      "kernel", kb_bw_kernel_name(p->kernel), "level", kb_mem_level_name(p->level),
                      "working_set_bytes", (json_int_t)p->working_set_bytes,
                      "before_bytes_per_second", kb_json_positive(p->before), "before_at",
                      time_or_null(p->before_at), "after_bytes_per_second",
                      kb_json_positive(p->after), "after_at", time_or_null(p->after_at), "disagree",
                      kb_bw_probes_disagree(p->before, p->after)));
    }
    return a;
}

/* The peaks the results were held against, as kbench peaks --json writes them (their history
 * includes the run's probes), and the probes. */
static json_t *peaks_json(const kb_bench_context *c) {
    if (!c->has_peaks)
        return json_null();
    return json_pack("{s:o, s:o, s:o}", "origin",
                     c->peaks_origin ? kb_json_text(c->peaks_origin) : json_null(), "measured",
                     kb_peaks_json_build(&c->peaks), "probes", probes_json(c));
}

/* What the baseline runner said of itself, and what a comparison with it includes. */
static json_t *baselines_json(const kb_bench_context *c, const char *comparison) {
    if (!c->baseline_info)
        return json_null();
    json_t *runner = json_loads(c->baseline_info, 0, NULL);
    json_t *unsupported =
        c->baseline_unsupported ? json_loads(c->baseline_unsupported, 0, NULL) : NULL;
    return json_pack("{s:s, s:o, s:o}", "comparison", comparison, "runner",
                     runner ? runner : json_null(), "unsupported",
                     unsupported ? unsupported : json_array());
}

/* The numbers the load check compared; null when it read none. */
static json_t *load_json(const kb_env_load *load) {
    if (!load->known)
        return json_null();
    return json_pack("{s:f, s:i}", "average_1min", load->average, "usable_cores",
                     load->usable_cores);
}

static json_t *context_json(const kb_bench_context *c, const char *comparison) {
    json_t *vars = json_object();
    for (int i = 0; i < c->nenv_vars; i++)
        json_object_set_new(vars, c->env_names[i], kb_json_text(c->env_values[i]));
    const kb_bench_settings *s = &c->settings;
    json_t *settings = json_pack(
        "{s:f, s:i, s:i, s:s, s:b, s:o, s:I, s:I, s:i, s:i}", "min_time_s", s->min_time,
        "min_samples", s->min_samples, "repetitions", s->repetitions, "cache",
        kb_bench_cache_name(s->cache), "pin", s->pin, "pinned_cpus",
        c->pinned_cpus[0] ? kb_json_text(c->pinned_cpus) : json_null(), "sample_target_ns",
        (json_int_t)c->sample_target_ns, "flush_bytes", (json_int_t)c->flush_bytes,
        "resolution_factor", KB_BENCH_RESOLUTION_FACTOR, "target_samples", KB_BENCH_TARGET_SAMPLES);
    json_object_set_new(settings, "probe_seconds", json_real(s->probe_seconds));
    json_object_set_new(settings, "monitor_interval_s", json_real(s->monitor_interval_s));
    json_t *selection =
        json_pack("{s:o, s:o, s:{s:i, s:i}}", "suites", string_list(c->suites, c->nsuites),
                  "filters", string_list(c->filters, c->nfilters), "shard", "index", c->shard_index,
                  "count", c->shard_count);
    const kb_machine *m = &c->machine;
    json_t *clock =
        json_pack("{s:o, s:s, s:o, s:o}", "nominal_mhz", kb_json_positive(m->nominal_mhz),
                  "nominal_source", kb_clock_source_name(m->nominal_source), "start",
                  clock_json(&c->clock_start), "end", clock_json(&c->clock_end));
    json_t *timer = json_pack("{s:s, s:f, s:f, s:f}", "clock", KB_MONOTONIC_CLOCK_NAME,
                              "resolution_ns", c->timer.resolution_ns, "overhead_ns",
                              c->timer.overhead_ns, "reported_resolution_ns", c->timer.reported_ns);
    json_t *o = json_pack(
        "{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
        "s:o, s:o, s:o}",
        "date", c->date, "command", c->command ? kb_json_text(c->command) : json_null(),
        "kbench_version", kb_json_text(c->build.version), "git_commit",
        kb_json_text(c->build.git_commit), "git_branch", kb_json_text(c->build.git_branch), "build",
        build_json(&c->build), "system", kb_system_json(m), "cpu",
        kb_cpu_json(m, c->instruction_sets), "clock", clock, "simd",
        kb_simd_json(c->simd_compiled, c->simd_available, c->simd_selected), "threads",
        kb_threads_json(c->threads, c->usable_cores), "load", load_json(&c->env.load),
        "environment_warnings", kb_env_warnings_json(&c->env), "environment_variables", vars,
        "timer", timer, "settings", settings, "selection", selection, "peaks", peaks_json(c),
        "baselines", baselines_json(c, comparison));
    if (o)
        json_object_set_new(o, "monitor", kb_usage_series_json(&c->usage));
    return o;
}

static json_t *statistics_json(const kb_bench_stats *s) {
    return json_pack("{s:s, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, "
                     "s:f, s:f, s:I, s:I, s:b}",
                     "unit", "ns per call", "n", (json_int_t)s->n, "median_ns", s->median,
                     "mean_ns", s->mean, "min_ns", s->min, "max_ns", s->max, "stddev_ns", s->stddev,
                     "mad_ns", s->mad, "q1_ns", s->q1, "q3_ns", s->q3, "iqr_ns", s->iqr, "cv",
                     s->cv, "ci_low_ns", s->ci_low, "ci_high_ns", s->ci_high, "ci_level", 0.95,
                     "ci_coverage", s->ci_coverage, "outliers_low", (json_int_t)s->outliers_low,
                     "outliers_high", (json_int_t)s->outliers_high, "unstable", s->unstable);
}

/* Counts come from users' setup functions, and jansson refuses NaN and infinity. */
static json_t *finite_or_null(double v) {
    return isfinite(v) ? json_real(v) : json_null();
}

/* The measured figure the bound came from, to explain a flag. */
static json_t *figure_json(const kb_roofline *f) {
    const kb_roofline_figure *g = &f->figure;
    if (g->threads < 1 || !f->figure_name[0])
        return json_null();
    return json_pack("{s:s, s:i, s:f, s:o, s:f, s:i}", "name", f->figure_name, "threads",
                     g->threads, "per_second", g->value, "measured_at",
                     time_or_null(g->measured_at), "highest_per_second", g->highest, "measurements",
                     g->count);
}

json_t *kb_roofline_flags_json(const kb_roofline *f) {
    json_t *flags = json_array();
    for (unsigned bit = 1; bit <= KB_ROOFLINE_SUSPICIOUS_LOW; bit <<= 1)
        if (f->flags & bit)
            json_array_append_new(flags, json_string(kb_roofline_flag_name(bit)));
    return flags;
}

static json_t *roofline_json(const kb_bench_result *r) {
    if (!r->has_roofline)
        return json_null();
    const kb_roofline *f = &r->roofline;
    char why[320];
    kb_roofline_explain(f, why, (int)sizeof why);
    json_t *flags = kb_roofline_flags_json(f);
    /* SI units, as kb_roofline holds them, so that a file reads back exactly. */
    json_t *o = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
                          "level", kb_mem_level_name(f->level), "bound",
                          f->bound_known ? json_string(f->memory_bound ? "memory" : "compute")
                                         : json_null(),
                          "bytes_per_second", finite_or_null(f->bytes_per_second),
                          "flops_per_second", finite_or_null(f->flops_per_second),
                          "intensity_flop_per_byte", finite_or_null(f->intensity),
                          "peak_bytes_per_second", kb_json_positive(f->peak_bytes_per_second),
                          "peak_flops_per_second", kb_json_positive(f->peak_flops_per_second),
                          "bound_seconds", finite_or_null(f->bound_seconds),
                          "bound_flops_per_second", finite_or_null(f->bound_flops_per_second),
                          "percent_of_bound", finite_or_null(f->percent_of_bound),
                          "percent_of_bandwidth", finite_or_null(f->percent_of_bandwidth),
                          "percent_of_flops", finite_or_null(f->percent_of_flops), "flags", flags);
    if (o) {
        json_object_set_new(o, "bound_figure", figure_json(f));
        json_object_set_new(o, "above_probe_bytes_per_second", kb_json_positive(f->above_probe));
        json_object_set_new(o, "percent_of_probe", finite_or_null(f->percent_of_probe));
        json_object_set_new(o, "explanation", why[0] ? json_string(why) : json_null());
    }
    return o;
}

static json_t *baseline_json(const kb_bench_result *r) {
    if (!r->baseline)
        return json_null();
    bool checked = !r->failed && (r->check_ok || r->check_detail);
    return json_pack("{s:s, s:s, s:o, s:o}", "library", r->baseline, "check",
                     !checked      ? "none"
                     : r->check_ok ? "ok"
                                   : "mismatch",
                     "error_ratio", checked ? finite_or_null(r->check_error) : json_null(),
                     "detail", r->check_detail ? kb_json_text(r->check_detail) : json_null());
}

static json_t *case_json(const kb_bench_result *r) {
    json_t *params = json_object(), *impl = json_object();
    for (int i = 0; i < r->nparams; i++) {
        json_object_set_new(params, r->params[i].name, kb_json_text(r->params[i].value));
        if (r->params[i].implementation)
            json_object_set_new(impl, r->params[i].name, kb_json_text(r->params[i].value));
    }
    json_t *samples = json_array();
    int64_t k = 0;
    for (int rep = 0; rep < r->nrepetitions && !r->failed; rep++) {
        json_t *one = json_array();
        for (int64_t i = 0; i < r->repetition_samples[rep]; i++, k++)
            json_array_append_new(one, json_integer(r->sample_ns[k]));
        json_array_append_new(samples, one);
    }
    json_t *stats = r->failed ? json_null() : statistics_json(&r->stats);
    json_t *rates = r->failed ? json_null()
                              : json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "gb_per_s",
                                          kb_json_positive(r->gb_per_s), "gb_per_s_low",
                                          kb_json_positive(r->gb_per_s_low), "gb_per_s_high",
                                          kb_json_positive(r->gb_per_s_high), "gflop_per_s",
                                          kb_json_positive(r->gflop_per_s), "gflop_per_s_low",
                                          kb_json_positive(r->gflop_per_s_low), "gflop_per_s_high",
                                          kb_json_positive(r->gflop_per_s_high));
    return json_pack("{s:o, s:o, s:o, s:o, s:s, s:o, s:s, s:i, s:o, s:o, s:o, s:s, s:s, s:I, "
                     "s:o, s:o, s:o, s:o, s:o, s:o}",
                     "name", kb_json_text(r->name), "group", kb_json_text(r->group), "params",
                     params, "implementation", impl, "status", r->failed ? "failed" : "ok", "error",
                     r->error ? kb_json_text(r->error) : json_null(), "simd", kb_simd_name(r->simd),
                     "threads", r->threads, "bytes_per_call", finite_or_null(r->bytes_per_call),
                     "flops_per_call", finite_or_null(r->flops_per_call), "working_set_bytes",
                     finite_or_null(r->working_set_bytes), "traffic", kb_bw_kernel_name(r->traffic),
                     "flop_type", kb_flop_type_name(r->flop_type), "calls_per_sample",
                     (json_int_t)r->calls_per_sample, "samples_ns", samples, "statistics", stats,
                     "rates", rates, "roofline", roofline_json(r), "baseline", baseline_json(r),
                     "usage", kb_result_usage_json(r));
}

json_t *kb_results_to_json(const kb_results *results) {
    json_t *cases = json_array();
    for (int i = 0; i < results->ncases; i++) {
        json_t *c = case_json(&results->cases[i]);
        if (!c || json_array_append_new(cases, c) != 0) {
            json_decref(cases);
            return NULL;
        }
    }
    kb_speedup_report speedups;
    if (kb_speedup_report_make(results, &speedups) != KB_OK) {
        json_decref(cases);
        return NULL;
    }
    json_t *speedup = kb_speedup_json(&speedups), *eager = kb_eager_json(&speedups);
    kb_speedup_report_free(&speedups);
    return json_pack("{s:s, s:i, s:o, s:{s:i, s:i}, s:o, s:o, s:o}", "schema", KB_RESULTS_SCHEMA,
                     "schema_version", KB_RESULTS_SCHEMA_VERSION, "context",
                     context_json(&results->context, kb_results_comparison(results)), "summary",
                     "cases", results->ncases, "failed", kb_results_failed(results), "cases", cases,
                     "speedups", speedup, "eager_speedups", eager);
}
