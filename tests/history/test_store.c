/* The history store, the same tests against each backend: SQLite always, PostgreSQL when
 * KB_TEST_PG_HOST names the socket directory of a throwaway server with empty databases t1,
 * ... t10 (tests/cli/pg_server.py runs this program so). A real (tiny) run's file reads back
 * point by point; the same file is stored once; machines and builds never share a series; a
 * hostile case name is stored verbatim; a malformed file is refused naming the field, with
 * nothing written; prune; migrations run once; a series' change points; the default URL. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "kbench/bench.h"
#include "kbench/history.h"
#include "kbench/results.h"
#include "test_util.h"

static test_dir dir;
static int stores; /* numbers the stores the tests open */

/* A fresh store of the backend the test runs against: state is "sqlite" or "postgresql". */
static kb_history *fresh_store(void **state, char *url, size_t size) {
    const char *backend = *state;
    stores++;
    if (strcmp(backend, "sqlite") == 0) {
        char name[32];
        snprintf(name, sizeof name, "store%d/history.sqlite", stores);
        char path[400];
        snprintf(url, size, "sqlite:%s", test_dir_path(&dir, name, path, sizeof path));
    } else {
        snprintf(url, size, "postgresql://kbench@/t%d?host=%s", stores, getenv("KB_TEST_PG_HOST"));
    }
    kb_history *h;
    if (kb_history_open(url, &h) != KB_OK)
        fail_msg("cannot open %s: %s", url, kb_last_error());
    assert_string_equal(kb_history_backend_name(h), backend);
    return h;
}

static void spin(kb_bench_case *c, int64_t calls) {
    volatile double x = 1;
    for (int64_t i = 0; i < calls; i++)
        x = x * 1.0000001;
}

static void fails(kb_bench_case *c, int64_t calls) {
    kb_bench_fail(c, KB_EINVAL, "broken on purpose");
}

static const char *const impls[] = {"x", "y", NULL};
static const kb_bench_axis axes[] = {{"impl", impls, KB_BENCH_AXIS_IMPLEMENTATION},
                                     {NULL, NULL, 0}};

/* A real run: two cases that ran (with bytes, so GB/s), one that failed; two repetitions. */
static kb_results run;

static int make_run(void **state) {
    if (test_dir_create(&dir) != 0)
        return -1;
    kb_bench_def ok = {.name = "t/ok", .axes = axes, .run = spin, .bytes_per_call = 32};
    kb_bench_def bad = {.name = "t/bad", .run = fails};
    kb_bench_plan *p;
    kb_bench_settings s;
    kb_bench_settings_default(&s);
    s.min_time = 0.002;
    s.repetitions = 2;
    if (kb_bench_plan_new(&p) != KB_OK || kb_bench_plan_add(p, &ok) != KB_OK ||
        kb_bench_plan_add(p, &bad) != KB_OK || kb_bench_run(p, &s, NULL, &run) != KB_OK)
        return -1;
    kb_bench_plan_free(p);
    return 0;
}

/* Each backend's stores count from 1: PostgreSQL's databases are t1 ... */
static int first_store(void **state) {
    stores = 0;
    return 0;
}

static int free_run(void **state) {
    kb_results_free(&run);
    return test_dir_destroy(&dir);
}

/* The run saved as a results file named name; returns its path in buf. */
static const char *save(const kb_results *r, const char *name, char *buf, size_t size) {
    test_dir_path(&dir, name, buf, size);
    assert_int_equal(kb_results_save(r, KB_RESULTS_JSON, buf), KB_OK);
    return buf;
}

static int64_t add(kb_history *h, const char *path, bool duplicate) {
    kb_history_added added;
    if (kb_history_add_file(h, path, NULL, &added) != KB_OK)
        fail_msg("%s", kb_last_error());
    assert_int_equal(added.duplicate, duplicate);
    return added.run_id;
}

/* The series of the store, and their count. */
static size_t list(kb_history *h, const kb_history_select *select, kb_history_series **series) {
    size_t n;
    assert_int_equal(kb_history_series_list(h, select, series, &n), KB_OK);
    return n;
}

static size_t count_series(kb_history *h) {
    kb_history_series *series;
    size_t n = list(h, NULL, &series);
    kb_history_series_free(series, n);
    return n;
}

static void round_trip(void **state) {
    char url[512], path[512];
    kb_history *h = fresh_store(state, url, sizeof url);
    save(&run, "round.json", path, sizeof path);
    kb_history_added added;
    const kb_history_add_options options = {.branch = "main"};
    assert_int_equal(kb_history_add_file(h, path, &options, &added), KB_OK);
    assert_false(added.duplicate);
    assert_int_equal(added.ncases, 3);
    assert_string_equal(added.kind, "kbench");

    /* What was stored is what the file says, read back through the results reader. */
    kb_results file;
    assert_int_equal(kb_results_load(path, &file), KB_OK);
    kb_history_series *series;
    size_t n = list(h, NULL, &series);
    assert_int_equal(n, 2); /* t/bad failed: stored, but no point */
    for (size_t i = 0; i < n; i++) {
        const kb_bench_result *r = NULL;
        for (int c = 0; c < file.ncases; c++)
            if (strcmp(file.cases[c].name, series[i].case_name) == 0)
                r = &file.cases[c];
        assert_non_null(r);
        assert_int_equal(series[i].npoints, 1);
        assert_int_equal(strlen(series[i].machine), 16);
        kb_history_point *points;
        size_t np;
        assert_int_equal(kb_history_points(h, series[i].id, NULL, &points, &np), KB_OK);
        assert_int_equal(np, 1);
        const kb_history_point *p = &points[0];
        assert_int_equal(p->run_id, added.run_id);
        assert_true(p->median_ns == r->stats.median);
        assert_true(p->ci_low_ns == r->stats.ci_low);
        assert_true(p->ci_high_ns == r->stats.ci_high);
        assert_true(p->mad_ns == r->stats.mad);
        assert_int_equal(p->nsamples, r->nsamples);
        assert_true(p->gb_per_s == r->gb_per_s);
        assert_true(isnan(p->percent_of_bound)); /* no peaks, no roofline */
        assert_string_equal(p->flags, r->stats.unstable ? "unstable" : "");
        assert_string_equal(p->branch, "main");
        if (strcmp(file.context.build.git_commit, "unknown") != 0)
            assert_string_equal(p->commit, file.context.build.git_commit);
        char date[32];
        struct tm tm;
        time_t t = (time_t)p->time;
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
        assert_string_equal(date, file.context.date);
        kb_history_points_free(points, np);
    }
    kb_history_series_free(series, n);
    kb_results_free(&file);
    kb_history_close(h);
}

static void stored_once(void **state) {
    char url[512], path[512];
    kb_history *h = fresh_store(state, url, sizeof url);
    save(&run, "once.json", path, sizeof path);
    int64_t id = add(h, path, false);
    assert_int_equal(add(h, path, true), id);
    kb_history_series *series;
    size_t n = list(h, NULL, &series);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(series[i].npoints, 1);
    kb_history_series_free(series, n);
    kb_history_close(h);
}

/* Two more runs of the same cases: one on another machine, one with another build. Each of
 * the three is a series of its own, and selecting by machine finds one. */
static void machines_never_mix(void **state) {
    char url[512], path[512];
    kb_history *h = fresh_store(state, url, sizeof url);
    add(h, save(&run, "here.json", path, sizeof path), false);
    kb_results other = run;
    snprintf(other.context.machine.cpu_model, sizeof other.context.machine.cpu_model,
             "Another CPU");
    add(h, save(&other, "there.json", path, sizeof path), false);
    other = run;
    snprintf(other.context.build.build_type, sizeof other.context.build.build_type, "Profile");
    add(h, save(&other, "profile.json", path, sizeof path), false);

    kb_history_select select = {.case_name = "t/ok/impl=x"};
    kb_history_series *series;
    size_t n = list(h, &select, &series);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(series[i].npoints, 1);
    /* Two on one machine (two builds), one on the other. */
    int same_machine = (strcmp(series[0].machine, series[1].machine) == 0) +
                       (strcmp(series[0].machine, series[2].machine) == 0) +
                       (strcmp(series[1].machine, series[2].machine) == 0);
    assert_int_equal(same_machine, 1);
    char prefix[9];
    snprintf(prefix, sizeof prefix, "%s", series[0].machine);
    kb_history_series_free(series, n);
    select.machine = prefix;
    kb_history_series *mine;
    n = list(h, &select, &mine);
    assert_true(n >= 1 && n <= 2);
    for (size_t i = 0; i < n; i++)
        assert_memory_equal(mine[i].machine, prefix, 8);
    kb_history_series_free(mine, n);
    kb_history_close(h);
}

/* Google Benchmark output whose names are SQL. */
static const char hostile[] = "'); DROP TABLE runs;--";

static void hostile_names_verbatim(void **state) {
    char url[512], path[512], text[2048];
    kb_history *h = fresh_store(state, url, sizeof url);
    const char *names[] = {hostile, "a \\\"quoted\\\" name; with; semicolons", "x' OR '1'='1"};
    const char *stored[] = {hostile, "a \"quoted\" name; with; semicolons", "x' OR '1'='1"};
    int n = snprintf(text, sizeof text,
                     "{\"context\": {\"date\": \"2026-01-02T03:04:05+00:00\", \"num_cpus\": 2},"
                     " \"benchmarks\": [");
    for (int i = 0; i < 3; i++)
        for (int rep = 0; rep < 3; rep++)
            n += snprintf(text + n, sizeof text - (size_t)n,
                          "%s{\"name\": \"%s\", \"run_type\": \"iteration\", \"real_time\": %d,"
                          " \"time_unit\": \"ns\"}",
                          i + rep ? ", " : "", names[i], 100 + rep);
    snprintf(text + n, sizeof text - (size_t)n, "]}");
    test_write_text(test_dir_path(&dir, "hostile.json", path, sizeof path), text);
    kb_history_added added;
    assert_int_equal(kb_history_add_file(h, path, NULL, &added), KB_OK);
    assert_string_equal(added.kind, "google-benchmark");
    for (int i = 0; i < 3; i++) {
        kb_history_select select = {.case_name = stored[i]};
        kb_history_series *series;
        assert_int_equal(list(h, &select, &series), 1);
        assert_string_equal(series[0].case_name, stored[i]);
        kb_history_point *points;
        size_t np;
        assert_int_equal(kb_history_points(h, series[0].id, NULL, &points, &np), KB_OK);
        assert_int_equal(np, 1);
        assert_true(points[0].median_ns == 101);
        assert_true(isnan(points[0].gb_per_s));
        kb_history_points_free(points, np);
        kb_history_series_free(series, 1);
    }
    /* The runs table is still there: another run goes in. */
    add(h, save(&run, "after.json", path, sizeof path), false);
    assert_int_equal(count_series(h), 5);
    kb_history_close(h);
}

/* A copy of the run's file with the first from replaced by to. */
static const char *edited(const char *name, const char *from, const char *to, char *buf,
                          size_t size) {
    char original[512];
    save(&run, "original.json", original, sizeof original);
    size_t n;
    char *text = test_read_file(original, &n);
    char *at = strstr(text, from);
    assert_non_null(at);
    size_t prefix = (size_t)(at - text), from_len = strlen(from), to_len = strlen(to);
    char *out = malloc(n - from_len + to_len + 1);
    memcpy(out, text, prefix);
    memcpy(out + prefix, to, to_len);
    memcpy(out + prefix + to_len, at + from_len, n - prefix - from_len + 1);
    test_write_text(test_dir_path(&dir, name, buf, size), out);
    free(out);
    free(text);
    return buf;
}

static void malformed_refused(void **state) {
    char url[512], path[512];
    kb_history *h = fresh_store(state, url, sizeof url);
    static const struct {
        const char *from, *to, *field;
    } cases[] = {
        {"\"median_ns\":", "\"medianns\":", "cases[0].statistics.median_ns"},
        {"\"n\":", "\"n\":\"many\",\"x\":", "cases[0].statistics.n"},
        {"\"date\":", "\"date\":1,\"was\":", "context.date"},
        {"\"name\":\"t/ok", "\"name\":7,\"was\":\"t/ok", "cases[0].name"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char name[32];
        snprintf(name, sizeof name, "bad%zu.json", i);
        edited(name, cases[i].from, cases[i].to, path, sizeof path);
        kb_history_added added;
        assert_int_equal(kb_history_add_file(h, path, NULL, &added), KB_EFORMAT);
        const char *e = kb_last_error();
        if (!strstr(e, path) || !strstr(e, cases[i].field) || strchr(e, '\n'))
            fail_msg("for %s: %s", cases[i].field, e);
    }
    /* Truncated: not JSON. */
    size_t n;
    save(&run, "whole.json", path, sizeof path);
    char *text = test_read_file(path, &n);
    text[n / 2] = '\0';
    test_write_text(test_dir_path(&dir, "half.json", path, sizeof path), text);
    free(text);
    kb_history_added added;
    assert_int_equal(kb_history_add_file(h, path, NULL, &added), KB_EFORMAT);
    assert_non_null(strstr(kb_last_error(), "half.json"));
    assert_int_equal(count_series(h), 0);
    kb_history_close(h);
}

static void prune_old_runs(void **state) {
    char url[512], path[512];
    kb_history *h = fresh_store(state, url, sizeof url);
    kb_results old = run;
    snprintf(old.context.date, sizeof old.context.date, "2020-01-01T00:00:00Z");
    add(h, save(&old, "old.json", path, sizeof path), false);
    kb_results other = run;
    snprintf(other.context.machine.cpu_model, sizeof other.context.machine.cpu_model, "Gone");
    snprintf(other.context.date, sizeof other.context.date, "2020-06-01T00:00:00Z");
    add(h, save(&other, "gone.json", path, sizeof path), false);
    snprintf(old.context.date, sizeof old.context.date, "2024-01-01T00:00:00Z");
    add(h, save(&old, "new.json", path, sizeof path), false);
    assert_int_equal(count_series(h), 4);
    int64_t removed;
    /* 2023-01-01: the two runs of 2020 go, and the series of the machine "Gone" with them. */
    assert_int_equal(kb_history_prune(h, 1672531200, &removed), KB_OK);
    assert_int_equal(removed, 2);
    kb_history_series *series;
    size_t n = list(h, NULL, &series);
    assert_int_equal(n, 2);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(series[i].npoints, 1);
    kb_history_series_free(series, n);
    assert_int_equal(kb_history_prune(h, 1672531200, &removed), KB_OK);
    assert_int_equal(removed, 0);
    kb_history_close(h);
}

/* Points oldest first, and the selection of the last ones or the recent ones. */
static void points_in_order(void **state) {
    char url[512], path[512];
    kb_history *h = fresh_store(state, url, sizeof url);
    const char *dates[] = {"2024-03-01T00:00:00Z", "2024-01-01T00:00:00Z", "2024-02-01T00:00:00Z"};
    for (int i = 0; i < 3; i++) {
        kb_results r = run;
        snprintf(r.context.date, sizeof r.context.date, "%s", dates[i]);
        char name[32];
        snprintf(name, sizeof name, "d%d.json", i);
        add(h, save(&r, name, path, sizeof path), false);
    }
    kb_history_select select = {.case_name = "t/ok/impl=y"};
    kb_history_series *series;
    assert_int_equal(list(h, &select, &series), 1);
    kb_history_point *points;
    size_t n;
    assert_int_equal(kb_history_points(h, series[0].id, &select, &points, &n), KB_OK);
    assert_int_equal(n, 3);
    assert_true(points[0].time < points[1].time && points[1].time < points[2].time);
    kb_history_points_free(points, n);
    select.last = 2;
    assert_int_equal(kb_history_points(h, series[0].id, &select, &points, &n), KB_OK);
    assert_int_equal(n, 2);
    assert_int_equal(points[1].time, 1709251200); /* 2024-03-01 */
    kb_history_points_free(points, n);
    select.last = 0;
    select.since = 1706745600; /* 2024-02-01 */
    assert_int_equal(kb_history_points(h, series[0].id, &select, &points, &n), KB_OK);
    assert_int_equal(n, 2);
    assert_int_equal(points[0].time, 1706745600);
    kb_history_points_free(points, n);
    kb_history_series_free(series, 1);
    kb_history_close(h);
}

/* A second open finds the schema at the latest version and runs nothing again (migration 1
 * would fail creating its tables twice). */
static void migrations_run_once(void **state) {
    char url[512], path[512];
    kb_history *h = fresh_store(state, url, sizeof url);
    add(h, save(&run, "kept.json", path, sizeof path), false);
    kb_history_close(h);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(kb_history_open(url, &h), KB_OK);
        int version = 0;
        assert_int_equal(kb_history_schema_version(h, &version), KB_OK);
        assert_int_equal(version, 1);
        assert_int_equal(count_series(h), 2);
        kb_history_close(h);
    }
}

/* The detector over a series' medians: a 10% step after 12 runs (with a jitter of 0.3% either
 * way) is one change point at run 12; the same series without the step, and one too short to
 * split, have none. */
static void change_points(void **state) {
    kb_history_point p[24];
    for (int i = 0; i < 24; i++)
        p[i] = (kb_history_point){.median_ns = (i >= 12 ? 110 : 100) * (1 + 0.003 * (i % 3 - 1))};
    kb_change_points cp;
    assert_int_equal(kb_history_change_points(p, 24, &cp), KB_OK);
    assert_int_equal(cp.count, 1);
    assert_int_equal(cp.points[0].index, 12);
    assert_true(fabs(cp.points[0].change - 0.1) < 0.01);
    assert_true(cp.points[0].regression);
    kb_change_points_free(&cp);
    for (int i = 12; i < 24; i++)
        p[i].median_ns /= 1.1;
    assert_int_equal(kb_history_change_points(p, 24, &cp), KB_OK);
    assert_int_equal(cp.count, 0);
    kb_change_points_free(&cp);
    assert_int_equal(kb_history_change_points(p, 2, &cp), KB_OK);
    assert_int_equal(cp.count, 0);
    kb_change_points_free(&cp);
    p[5].median_ns = 0;
    assert_int_equal(kb_history_change_points(p, 24, &cp), KB_EINVAL);
    kb_change_points_free(&cp);
}

static void default_url(void **state) {
    char url[256];
    setenv("KB_HISTORY_DB", "postgresql://team/db", 1);
    assert_int_equal(kb_history_default_url(url, sizeof url), KB_OK);
    assert_string_equal(url, "postgresql://team/db");
    unsetenv("KB_HISTORY_DB");
    setenv("XDG_DATA_HOME", "/data", 1);
    assert_int_equal(kb_history_default_url(url, sizeof url), KB_OK);
    assert_string_equal(url, "/data/kbench/history.sqlite");
    unsetenv("XDG_DATA_HOME");
    setenv("HOME", "/home/me", 1);
    assert_int_equal(kb_history_default_url(url, sizeof url), KB_OK);
    assert_string_equal(url, "/home/me/.local/share/kbench/history.sqlite");
    kb_history *h;
    assert_int_equal(kb_history_open("mysql://x", &h), KB_EINVAL);
    assert_null(h);
}

#define BACKEND_TESTS(backend)                                                                     \
    cmocka_unit_test_prestate(round_trip, backend),                                                \
        cmocka_unit_test_prestate(stored_once, backend),                                           \
        cmocka_unit_test_prestate(machines_never_mix, backend),                                    \
        cmocka_unit_test_prestate(hostile_names_verbatim, backend),                                \
        cmocka_unit_test_prestate(malformed_refused, backend),                                     \
        cmocka_unit_test_prestate(prune_old_runs, backend),                                        \
        cmocka_unit_test_prestate(points_in_order, backend),                                       \
        cmocka_unit_test_prestate(migrations_run_once, backend)

int main(void) {
    static char sqlite[] = "sqlite", postgresql[] = "postgresql";
    const struct CMUnitTest tests[] = {
        BACKEND_TESTS(sqlite),
        cmocka_unit_test(change_points),
        cmocka_unit_test(default_url),
    };
    const struct CMUnitTest pg_tests[] = {BACKEND_TESTS(postgresql)};
    int failed = cmocka_run_group_tests_name("history, sqlite", tests, make_run, NULL);
    if (getenv("KB_TEST_PG_HOST"))
        failed += cmocka_run_group_tests_name("history, postgresql", pg_tests, first_store, NULL);
    free_run(NULL);
    return failed;
}
