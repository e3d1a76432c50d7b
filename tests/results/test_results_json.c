/* Results files: what a run writes reads back equal, field by field; files that are not
 * valid results are refused with a message naming the file and the field; the CSV and
 * markdown reports have one row per case. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "kbench/bench.h"
#include "kbench/results.h"
#include "test_util.h"

static void spin(kb_bench_case *c, int64_t calls) {
    volatile double x = 1;
    for (int64_t i = 0; i < calls; i++)
        x = x * 1.0000001;
}

static void fails(kb_bench_case *c, int64_t calls) {
    kb_bench_fail(c, KB_EINVAL, "broken, with \"quotes\", commas and a | bar");
}

static const char *const impls[] = {"x", "y", NULL};
static const char *const sizes[] = {"8", NULL};
static const kb_bench_axis axes[] = {{"n", sizes, KB_BENCH_AXIS_BARE},
                                     {"impl", impls, KB_BENCH_AXIS_IMPLEMENTATION},
                                     {NULL, NULL, 0}};

/* Peaks that make the spin cases' 32 bytes and 4 FLOPs take at least 3.2 ns and 0.4 ns
 * (10 GB/s, 10 GFLOP/s everywhere): roofline metrics without a measurement. */
static kb_peaks peaks;

static void make_peaks(void) {
    memset(&peaks, 0, sizeof peaks);
    for (int s = 0; s < KB_PEAKS_SET_COUNT; s++) {
        kb_peak_set *set = &peaks.sets[s];
        set->threads = s + 1;
        for (int k = 0; k < KB_BW_KERNEL_COUNT; k++)
            for (int l = 0; l < KB_MEM_LEVEL_COUNT; l++) {
                set->bandwidth[k][l].working_set_bytes = 4096 << l;
                set->bandwidth[k][l].bytes_per_second = (kb_rate){1e10, 1e10, 1e10, 1e10, 1};
            }
        for (int t = 0; t < KB_FLOP_TYPE_COUNT; t++)
            for (int l = 0; l < KB_SIMD_LEVEL_COUNT; l++)
                set->flops[t][l] = (kb_rate){1e10, 1e10, 1e10, 1e10, 1};
    }
    for (int c = 0; c < KB_CACHE_LEVEL_COUNT; c++)
        peaks.caches[c] = (kb_cache){.size = 32768 << c, .line_size = 64, .shared_by = 1};
    peaks.logical_cpus = 2;
    peaks.load_average = -1;
    peaks.measured_at = 1700000000;
}

/* A real (tiny) run: two cases that ran and one that failed. */
static void make_results(kb_results *r) {
    kb_bench_def ok = {
        .name = "t/ok", .axes = axes, .run = spin, .bytes_per_call = 32, .flops_per_call = 4};
    kb_bench_def bad = {.name = "t/bad", .run = fails};
    kb_bench_plan *p;
    assert_int_equal(kb_bench_plan_new(&p), KB_OK);
    assert_int_equal(kb_bench_plan_add(p, &ok), KB_OK);
    assert_int_equal(kb_bench_plan_add(p, &bad), KB_OK);
    const char *filters[] = {"t/", "-nothing"};
    assert_int_equal(kb_bench_plan_filter(p, filters, 2), KB_OK);
    kb_bench_settings s;
    kb_bench_settings_default(&s);
    s.min_time = 0.002;
    s.repetitions = 2;
    make_peaks();
    s.peaks = &peaks;
    assert_int_equal(kb_bench_run(p, &s, NULL, r), KB_OK);
    r->context.command = strdup("test \"run\"");
    r->context.peaks_origin = strdup("file peaks.json");
    /* A load of its own, whatever this machine's: the tests below edit its text. */
    r->context.env.load = (kb_env_load){.known = true, .average = 1.5, .usable_cores = 2};
    kb_bench_plan_free(p);
}

static test_dir dir;

static int create_dir(void **state) {
    return test_dir_create(&dir);
}

static int destroy_dir(void **state) {
    return test_dir_destroy(&dir);
}

/* *text: the results as kb_results_print writes them in the given format, for the caller
 * to free. */
static void print_to_text(const kb_results *r, kb_results_format format, char **text) {
    size_t size = 0;
    FILE *f = open_memstream(text, &size);
    assert_non_null(f);
    assert_int_equal(kb_results_print(r, format, f), KB_OK);
    fclose(f);
}

#define SAME_STRING(a, b) assert_string_equal((a) ? (a) : "(null)", (b) ? (b) : "(null)")
#define SAME(a, b) assert_true((a) == (b))

static void same_context(const kb_bench_context *a, const kb_bench_context *b) {
    SAME_STRING(a->date, b->date);
    SAME_STRING(a->command, b->command);
    assert_memory_equal(&a->build, &b->build, sizeof a->build);
    SAME_STRING(a->machine.os, b->machine.os);
    SAME_STRING(a->machine.kernel_release, b->machine.kernel_release);
    SAME_STRING(a->machine.hostname, b->machine.hostname);
    SAME_STRING(a->machine.hypervisor, b->machine.hypervisor);
    SAME_STRING(a->machine.cpu_model, b->machine.cpu_model);
    SAME(a->machine.logical_cpus, b->machine.logical_cpus);
    for (int l = 0; l < KB_CACHE_LEVEL_COUNT; l++) {
        SAME(a->machine.caches[l].size, b->machine.caches[l].size);
        SAME(a->machine.caches[l].line_size, b->machine.caches[l].line_size);
    }
    SAME(a->machine.nominal_mhz, b->machine.nominal_mhz);
    SAME(a->machine.nominal_source, b->machine.nominal_source);
    SAME_STRING(a->instruction_sets, b->instruction_sets);
    SAME(a->clock_start.mhz, b->clock_start.mhz);
    SAME(a->clock_end.repetitions, b->clock_end.repetitions);
    SAME(a->simd_compiled, b->simd_compiled);
    SAME(a->simd_available, b->simd_available);
    SAME(a->simd_selected, b->simd_selected);
    SAME(a->threads, b->threads);
    SAME(a->usable_cores, b->usable_cores);
    SAME(a->env.count, b->env.count);
    for (int i = 0; i < a->env.count; i++) {
        SAME(a->env.warnings[i].code, b->env.warnings[i].code);
        SAME_STRING(a->env.warnings[i].message, b->env.warnings[i].message);
    }
    SAME(a->env.load.known, b->env.load.known);
    SAME(a->env.load.average, b->env.load.average);
    SAME(a->env.load.usable_cores, b->env.load.usable_cores);
    SAME(a->timer.resolution_ns, b->timer.resolution_ns);
    SAME(a->timer.overhead_ns, b->timer.overhead_ns);
    SAME(a->settings.min_time, b->settings.min_time);
    SAME(a->settings.min_samples, b->settings.min_samples);
    SAME(a->settings.repetitions, b->settings.repetitions);
    SAME(a->settings.cache, b->settings.cache);
    SAME(a->settings.pin, b->settings.pin);
    SAME(a->sample_target_ns, b->sample_target_ns);
    SAME(a->flush_bytes, b->flush_bytes);
    SAME(a->nenv_vars, b->nenv_vars);
    for (int i = 0; i < a->nenv_vars; i++) {
        SAME_STRING(a->env_names[i], b->env_names[i]);
        SAME_STRING(a->env_values[i], b->env_values[i]);
    }
    SAME(a->nsuites, b->nsuites);
    for (int i = 0; i < a->nsuites; i++)
        SAME_STRING(a->suites[i], b->suites[i]);
    SAME(a->nfilters, b->nfilters);
    for (int i = 0; i < a->nfilters; i++)
        SAME_STRING(a->filters[i], b->filters[i]);
    SAME(a->shard_index, b->shard_index);
    SAME(a->shard_count, b->shard_count);
    SAME_STRING(a->peaks_origin, b->peaks_origin);
    SAME(a->has_peaks, b->has_peaks);
    SAME(a->peaks.sets[1].threads, b->peaks.sets[1].threads);
    SAME(a->peaks.sets[0].bandwidth[KB_BW_COPY][KB_MEM_L3].bytes_per_second.best,
         b->peaks.sets[0].bandwidth[KB_BW_COPY][KB_MEM_L3].bytes_per_second.best);
    SAME(a->peaks.sets[1].flops[KB_FLOP_F64][KB_SIMD_SCALAR].best,
         b->peaks.sets[1].flops[KB_FLOP_F64][KB_SIMD_SCALAR].best);
}

static void same_case(const kb_bench_result *a, const kb_bench_result *b) {
    SAME_STRING(a->name, b->name);
    SAME_STRING(a->group, b->group);
    SAME(a->nparams, b->nparams);
    for (int i = 0; i < a->nparams; i++) {
        SAME_STRING(a->params[i].name, b->params[i].name);
        SAME_STRING(a->params[i].value, b->params[i].value);
        SAME(a->params[i].implementation, b->params[i].implementation);
    }
    SAME(a->failed, b->failed);
    SAME_STRING(a->error, b->error);
    SAME(a->simd, b->simd);
    SAME(a->threads, b->threads);
    SAME(a->bytes_per_call, b->bytes_per_call);
    SAME(a->flops_per_call, b->flops_per_call);
    SAME(a->working_set_bytes, b->working_set_bytes);
    if (a->failed)
        return;
    SAME(a->calls_per_sample, b->calls_per_sample);
    SAME(a->nrepetitions, b->nrepetitions);
    for (int i = 0; i < a->nrepetitions; i++)
        SAME(a->repetition_samples[i], b->repetition_samples[i]);
    SAME(a->nsamples, b->nsamples);
    for (int64_t i = 0; i < a->nsamples; i++)
        SAME(a->sample_ns[i], b->sample_ns[i]);
    assert_memory_equal(&a->stats, &b->stats, sizeof a->stats);
    SAME(a->gb_per_s, b->gb_per_s);
    SAME(a->gb_per_s_low, b->gb_per_s_low);
    SAME(a->gflop_per_s_high, b->gflop_per_s_high);
    SAME(a->traffic, b->traffic);
    SAME(a->flop_type, b->flop_type);
    SAME(a->has_roofline, b->has_roofline);
    assert_true(a->has_roofline); /* the peaks bound every case that ran */
    const kb_roofline *x = &a->roofline, *y = &b->roofline;
    SAME(x->level, y->level);
    SAME(x->memory_bound, y->memory_bound);
    SAME(x->bound_known, y->bound_known);
    SAME(x->flags, y->flags);
    /* Rates are written in GB/s and read back in bytes/s: equal to rounding. */
    assert_true(fabs(x->bytes_per_second - y->bytes_per_second) <= 1e-12 * x->bytes_per_second);
    assert_true(fabs(x->bound_seconds - y->bound_seconds) <= 1e-12 * x->bound_seconds);
    SAME(x->percent_of_bound, y->percent_of_bound);
    SAME(x->intensity, y->intensity);
    /* a share of a probe, or none (null, read back as NAN) */
    assert_true(isnan(x->percent_of_probe) ? isnan(y->percent_of_probe)
                                           : x->percent_of_probe == y->percent_of_probe);
    /* 32 bytes at 10 GB/s: 3.2 ns, against 4 FLOPs at 10 GFLOP/s: memory-bound. */
    assert_true(fabs(x->bound_seconds - 3.2e-9) < 1e-15 && x->memory_bound);
    assert_true(fabs(x->percent_of_bound - 100 * 3.2 / a->stats.median) < 1e-9);
}

static void round_trip(void **state) {
    kb_results r, back;
    make_results(&r);
    assert_int_equal(r.ncases, 3);
    /* The peaks have no probes: no case has a share of one, but the first is given one here. */
    assert_true(isnan(r.cases[1].roofline.percent_of_probe));
    r.cases[0].roofline.percent_of_probe = 97.25;
    char path[1024];
    test_dir_path(&dir, "r.json", path, sizeof path);
    assert_int_equal(kb_results_save(&r, KB_RESULTS_JSON, path), KB_OK);
    assert_int_equal(kb_results_load(path, &back), KB_OK);
    same_context(&r.context, &back.context);
    assert_int_equal(back.ncases, r.ncases);
    for (int i = 0; i < r.ncases; i++)
        same_case(&r.cases[i], &back.cases[i]);
    /* Written again, the file is the same byte for byte. */
    char again[1024];
    test_dir_path(&dir, "r.2.json", again, sizeof again);
    assert_int_equal(kb_results_save(&back, KB_RESULTS_JSON, again), KB_OK);
    size_t size1, size2;
    char *first = test_read_file(path, &size1), *second = test_read_file(again, &size2);
    assert_int_equal(size1, size2);
    assert_memory_equal(first, second, size1);
    free(first);
    free(second);
    kb_results_free(&back);
    kb_results_free(&r);
}

/* The JSON text of a tiny run, to break in the tests below. */
static char *results_text(void) {
    kb_results r;
    make_results(&r);
    char *text;
    print_to_text(&r, KB_RESULTS_JSON, &text);
    kb_results_free(&r);
    return text;
}

/* Replaces the first occurrence of from with to and parses the result into out; returns the
 * status and leaves the message in kb_last_error(). */
static kb_status parse_edited_into(const char *text, const char *from, const char *to,
                                   kb_results *out) {
    const char *at = strstr(text, from);
    assert_non_null(at);
    size_t n = strlen(text) + strlen(to) + 1;
    char *edited = malloc(n);
    snprintf(edited, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    kb_status st = kb_results_parse(edited, strlen(edited), "r.json", out);
    free(edited);
    return st;
}

static kb_status parse_edited(const char *text, const char *from, const char *to) {
    kb_results r;
    kb_status st = parse_edited_into(text, from, to, &r);
    if (st == KB_OK)
        kb_results_free(&r);
    return st;
}

static void expect_error(const char *text, const char *from, const char *to, const char *message) {
    assert_int_equal(parse_edited(text, from, to), KB_EFORMAT);
    if (!strstr(kb_last_error(), message)) {
        print_error("message '%s' lacks '%s'\n", kb_last_error(), message);
        fail();
    }
}

static void refuses_bad_files(void **state) {
    char *text = results_text();
    kb_results r;
    assert_int_equal(kb_results_parse(text, strlen(text), "r.json", &r), KB_OK);
    kb_results_free(&r);

    assert_int_equal(kb_results_parse("{\"a\": ", 6, "r.json", &r), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "r.json: not valid JSON"));
    assert_int_equal(kb_results_parse("[1, 2]", 6, "r.json", &r), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "not a kbench results file"));
    expect_error(text, "\"kbench-results\"", "\"other\"", "r.json: not a kbench results file");
    expect_error(text, "\"schema_version\": 2", "\"schema_version\": 3",
                 "r.json: schema_version: 3 is newer than this kbench reads (2)");
    expect_error(text, "\"schema_version\": 2", "\"schema_version\": \"2\"",
                 "schema_version: expected an integer, found a string");
    expect_error(text,
                 "\"median_ns\":", "\"median\":", "r.json: cases[0].statistics.median_ns: missing");
    expect_error(text, "\"calls_per_sample\":", "\"calls_per_sample\":\"x\",\"was\":",
                 "cases[0].calls_per_sample: expected an integer, found a string");
    expect_error(text, "\"samples_ns\":[[", "\"samples_ns\":[[-5,",
                 "cases[0].samples_ns[0]: item 0: expected a non-negative integer");
    expect_error(text, "\"status\":\"ok\"", "\"status\":\"fine\"",
                 "cases[0].status: expected \"ok\" or \"failed\"");
    expect_error(text, "\"resolution_ns\":", "\"resolution_ns\": \"fast\", \"x\":",
                 "r.json: context.timer.resolution_ns: expected a number, found a string");
    expect_error(text, "\"cache\": \"hot\"", "\"cache\": \"warm\"",
                 "context.settings.cache: expected \"hot\" or \"cold\"");
    expect_error(text, "\"cases\": 3", "\"cases\": 4", "summary: counts 4 cases");
    expect_error(text, "\"simd\":\"", "\"simd\":\"mmx", "cases[0].simd: unknown SIMD level");
    expect_error(text, "\"implementation\":{", "\"implementation\":{\"zzz\":\"1\",",
                 "cases[0].implementation.zzz: not a parameter of the case");
    expect_error(text,
                 "\"unit\":\"ns per call\",\"n\":", "\"unit\":\"ns per call\",\"n\":1000,\"was\":",
                 "cases[0].statistics.n: 1000, but");
    expect_error(text, "\"error\":\"broken", "\"error\":null,\"was\":\"",
                 "cases[2].error: expected a string, found null");
    expect_error(text, "{\"name\":\"t/ok", "{\"nom\":\"t/ok", "cases[0].name: missing");
    assert_int_equal(parse_edited(text, "\"cases\": [", "\"cases\": 7, \"was\": ["), KB_EFORMAT);
    assert_int_equal(kb_results_load("/nonexistent/r.json", &r), KB_EIO);
    assert_non_null(strstr(kb_last_error(), "/nonexistent/r.json"));
    /* Unknown keys are for later versions to add, not errors. */
    expect_error(text, "\"flags\":[", "\"flags\":[\"odd\"],\"was\":[",
                 "cases[0].roofline.flags: item 0: not a roofline flag");
    expect_error(text, "\"level\":\"", "\"level\":\"L9\",\"was\":\"",
                 "cases[0].roofline.level: unknown value \"L9\"");
    expect_error(text, "\"traffic\":\"load\"", "\"traffic\":\"stream\"",
                 "cases[0].traffic: unknown value \"stream\"");
    expect_error(text, "\"format\": \"kbench-peaks/3\"", "\"format\": \"other\"",
                 "context.peaks.measured:");
    assert_int_equal(parse_edited(text, "\"schema_version\": 2,",
                                  "\"schema_version\": 2, \"later\": {\"x\": []},"),
                     KB_OK);
    free(text);
}

/* context.load: null (no load read) and absent (a file written before kbench recorded it)
 * both read as not known; numbers out of range are refused. */
static void reads_the_load(void **state) {
    char *text = results_text();
    kb_results r;
    assert_int_equal(kb_results_parse(text, strlen(text), "r.json", &r), KB_OK);
    assert_true(r.context.env.load.known && r.context.env.load.average == 1.5 &&
                r.context.env.load.usable_cores == 2);
    kb_results_free(&r);
    const char *unknown[] = {"\"load\": null, \"was\": {", "\"was\": {"};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(parse_edited_into(text, "\"load\": {", unknown[i], &r), KB_OK);
        assert_false(r.context.env.load.known);
        kb_results_free(&r);
    }
    expect_error(text, "\"load\": {",
                 "\"load\": {\"average_1min\": -1, \"usable_cores\": 2}, \"was\": {",
                 "r.json: context.load.average_1min: expected a number >= 0, found -1");
    expect_error(text, "\"load\": {",
                 "\"load\": {\"average_1min\": 1, \"usable_cores\": 0}, \"was\": {",
                 "r.json: context.load.usable_cores: expected an integer >= 1, found 0");
    expect_error(text, "\"load\": {", "\"load\": {\"usable_cores\": 2}, \"was\": {",
                 "r.json: context.load.average_1min: missing");
    expect_error(text, "\"load\": {", "\"load\": 3, \"was\": {", "r.json: context.load: expected");
    free(text);
}

static int count_lines(const char *s) {
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Fields of one CSV line, quotes respected. */
static int csv_fields(const char *line) {
    int n = 1;
    bool quoted = false;
    for (; *line && *line != '\n'; line++) {
        if (*line == '"')
            quoted = !quoted;
        else if (*line == ',' && !quoted)
            n++;
    }
    return n;
}

static void csv_and_markdown(void **state) {
    kb_results r;
    make_results(&r);
    char *buf;
    print_to_text(&r, KB_RESULTS_CSV, &buf);
    assert_int_equal(count_lines(buf), 1 + r.ncases);
    assert_true(strncmp(buf, "name,group,n,impl,status,", 25) == 0);
    int header = csv_fields(buf);
    for (const char *line = strchr(buf, '\n') + 1; *line; line = strchr(line, '\n') + 1)
        assert_int_equal(csv_fields(line), header);
    assert_non_null(strstr(buf, "\"broken, with \"\"quotes\"\", commas and a | bar\""));
    free(buf);

    print_to_text(&r, KB_RESULTS_MARKDOWN, &buf);
    assert_non_null(strstr(buf, "| case | time/call | 95% CI |"));
    assert_non_null(strstr(buf, "| `t/ok/8/impl=x` |"));
    assert_non_null(strstr(buf, "**failed**: broken, with \"quotes\", commas and a \\| bar |"));
    free(buf);

    print_to_text(&r, KB_RESULTS_TABLE, &buf);
    assert_int_equal(count_lines(buf), 1 + r.ncases);
    assert_non_null(strstr(buf, "\nt/bad "));
    assert_non_null(strstr(buf, " FAILED: broken"));
    free(buf);
    kb_results_free(&r);

    kb_results_format fmt;
    assert_int_equal(kb_results_format_of_path("a/b.md", &fmt), KB_OK);
    assert_int_equal(fmt, KB_RESULTS_MARKDOWN);
    assert_int_equal(kb_results_format_of_path("a.b/c", &fmt), KB_EINVAL);
    assert_int_equal(kb_results_format_parse("csv", &fmt), KB_OK);
    assert_int_equal(fmt, KB_RESULTS_CSV);
}

static void durations(void **state) {
    char buf[32];
    kb_format_duration(buf, sizeof buf, 0.271);
    assert_string_equal(buf, "0.271 ns");
    kb_format_duration(buf, sizeof buf, 1234);
    assert_string_equal(buf, "1.23 us");
    kb_format_duration(buf, sizeof buf, 999.7);
    assert_string_equal(buf, "1.00 us");
    kb_format_duration(buf, sizeof buf, 45.6e6);
    assert_string_equal(buf, "45.6 ms");
    kb_format_duration(buf, sizeof buf, 2.5e9);
    assert_string_equal(buf, "2.50 s");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),     cmocka_unit_test(refuses_bad_files),
        cmocka_unit_test(reads_the_load), cmocka_unit_test(csv_and_markdown),
        cmocka_unit_test(durations),
    };
    return cmocka_run_group_tests(tests, create_dir, destroy_dir);
}
