/* The runner end to end on tiny cases: one setup and teardown per group, calibrated samples
 * (at least the minimum count), interleaved rounds, an implementation's own counts, failures in
 * setup and in run recorded per case, and the settings left as they were. No timing is
 * asserted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/bench.h"
#include "kbench/threads.h"

typedef struct log {
    int setups, teardowns;
    int n;
    char who[100000]; /* the implementation of each run call, in order */
} log;

static log the_log;

static kb_status setup(kb_bench_case *c) {
    log *l = c->user;
    l->setups++;
    assert_null(kb_bench_param(c, "impl")); /* the group does not see implementations */
    assert_non_null(kb_bench_param(c, "n"));
    static int data = 42;
    c->data = &data;
    c->bytes_per_call = 64;
    c->flops_per_call = 8;
    return KB_OK;
}

static void teardown(kb_bench_case *c) {
    log *l = c->user;
    l->teardowns++;
    assert_int_equal(*(int *)c->data, 42);
}

static void run(kb_bench_case *c, int64_t calls) {
    log *l = c->user;
    assert_int_equal(*(int *)c->data, 42);
    if (l->n < (int)sizeof l->who)
        l->who[l->n++] = kb_bench_param(c, "impl")[0];
    /* Something to time: a little arithmetic per call. */
    volatile double x = 1;
    for (int64_t i = 0; i < calls; i++)
        x = x * 1.0000001 + 1e-9;
}

static const char *const impls[] = {"a", "b", "c", NULL};
static const char *const sizes[] = {"1", NULL};
static const kb_bench_axis axes[] = {
    {"n", sizes, 0}, {"impl", impls, KB_BENCH_AXIS_IMPLEMENTATION}, {NULL, NULL, 0}};

static kb_bench_settings quick_settings(void) {
    kb_bench_settings s;
    kb_bench_settings_default(&s);
    s.min_time = 0.002;
    return s;
}

/* Runs the n definitions as one plan with the settings s. */
static void run_plan(const kb_bench_def *defs, int n, const kb_bench_settings *s, kb_results *r) {
    kb_bench_plan *p;
    assert_int_equal(kb_bench_plan_new(&p), KB_OK);
    for (int i = 0; i < n; i++)
        assert_int_equal(kb_bench_plan_add(p, &defs[i]), KB_OK);
    assert_int_equal(kb_bench_run(p, s, NULL, r), KB_OK);
    kb_bench_plan_free(p);
}

static void interleaved_rounds(void **state) {
    memset(&the_log, 0, sizeof the_log);
    kb_bench_def def = {.name = "t",
                        .axes = axes,
                        .setup = setup,
                        .run = run,
                        .teardown = teardown,
                        .user = &the_log};
    kb_bench_settings s = quick_settings();
    s.repetitions = 2;
    kb_results r;
    run_plan(&def, 1, &s, &r);
    assert_int_equal(the_log.setups, 1);
    assert_int_equal(the_log.teardowns, 1);
    assert_int_equal(r.ncases, 3);
    for (int i = 0; i < 3; i++) {
        const kb_bench_result *c = &r.cases[i];
        assert_false(c->failed);
        assert_string_equal(c->group, "t/n=1");
        assert_int_equal(c->nrepetitions, 2);
        assert_true(c->repetition_samples[0] >= s.min_samples);
        assert_true(c->repetition_samples[1] >= s.min_samples);
        assert_int_equal(c->repetition_samples[0] + c->repetition_samples[1], c->nsamples);
        assert_int_equal(c->stats.n, c->nsamples);
        assert_true(c->calls_per_sample >= 1);
        assert_true(c->bytes_per_call == 64 && c->flops_per_call == 8);
        assert_true(c->working_set_bytes == 64);
        assert_true(c->stats.min <= c->stats.median && c->stats.median <= c->stats.max);
        assert_true(c->gb_per_s > 0 && c->gflop_per_s > 0);
        assert_int_equal(c->nparams, 2);
        assert_false(c->params[0].implementation);
        assert_true(c->params[1].implementation);
    }
    /* After the calibration, samples of equally fast implementations go a b c a b c ...
     * (the last round or two may hold fewer, as each stops when its budget is full). */
    the_log.who[the_log.n < (int)sizeof the_log.who ? the_log.n : (int)sizeof the_log.who - 1] =
        '\0';
    assert_non_null(strstr(the_log.who, "abcabcabcabcabcabcabcabcabcabc"));
    assert_int_equal(kb_results_failed(&r), 0);
    assert_true(r.context.timer.resolution_ns > 0);
    assert_true(r.context.sample_target_ns >= 1000 * r.context.timer.resolution_ns);
    assert_int_equal(r.context.nsuites, 1);
    assert_string_equal(r.context.suites[0], "t");
    kb_results_free(&r);
}

/* "slow" does 200000 times the work of "fast" per call. */
static void uneven(kb_bench_case *c, int64_t calls) {
    int64_t work = strcmp(kb_bench_param(c, "impl"), "slow") == 0 ? 200000 : 1;
    volatile double x = 1;
    for (int64_t i = 0; i < calls * work; i++)
        x = x * 1.0000001 + 1e-9;
}

/* Each implementation gets its own budget: the slow one its minimum count of long samples,
 * the fast one min_time of short samples, taken in blocks between the slow one's. */
static void uneven_speeds(void **state) {
    static const char *const which[] = {"fast", "slow", NULL};
    static const kb_bench_axis ax[] = {{"impl", which, KB_BENCH_AXIS_IMPLEMENTATION},
                                       {NULL, NULL, 0}};
    kb_bench_def def = {.name = "u", .axes = ax, .run = uneven};
    kb_bench_settings s = quick_settings();
    kb_results r;
    run_plan(&def, 1, &s, &r);
    const kb_bench_result *fast = &r.cases[0], *slow = &r.cases[1];
    assert_true(fast->nsamples >= s.min_samples && slow->nsamples >= s.min_samples);
    int64_t fast_ns = 0;
    for (int64_t i = 0; i < fast->nsamples; i++)
        fast_ns += fast->sample_ns[i];
    assert_true((double)fast_ns >= s.min_time * 1e9);
    /* When ten slow calls outlast the budget, the slow case stops at its minimum count (or
     * a round later). */
    if (slow->stats.median > s.min_time * 1e9 / s.min_samples)
        assert_true(slow->nsamples <= s.min_samples + 2);
    kb_results_free(&r);
}

/* Implementation "b" moves twice the group's bytes and works on a working set of its own. */
static void counts_of_b(kb_bench_case *c) {
    assert_int_equal(*(int *)c->data, 42); /* after setup, with the group's data */
    if (strcmp(kb_bench_param(c, "impl"), "b") == 0) {
        c->bytes_per_call *= 2;
        c->working_set_bytes = 1000;
    }
}

/* A definition's counts callback sets one implementation's counts; the others keep the
 * group's, and its rates follow its own. */
static void counts_per_implementation(void **state) {
    memset(&the_log, 0, sizeof the_log);
    kb_bench_def def = {.name = "k",
                        .axes = axes,
                        .setup = setup,
                        .run = run,
                        .teardown = teardown,
                        .counts = counts_of_b,
                        .user = &the_log};
    kb_bench_settings s = quick_settings();
    kb_results r;
    run_plan(&def, 1, &s, &r);
    assert_int_equal(r.ncases, 3);
    for (int i = 0; i < 3; i++) {
        const kb_bench_result *c = &r.cases[i];
        bool b = i == 1;
        assert_false(c->failed);
        assert_true(c->bytes_per_call == (b ? 128 : 64) && c->flops_per_call == 8);
        assert_true(c->working_set_bytes == (b ? 1000 : 64));
        double rate = c->bytes_per_call / c->stats.median; /* bytes per ns: GB/s */
        assert_true(c->gb_per_s - rate <= 1e-9 * rate && rate - c->gb_per_s <= 1e-9 * rate);
    }
    kb_results_free(&r);
}

static kb_status failing_setup(kb_bench_case *c) {
    return kb_bench_fail(c, KB_ENOMEM, "no room for %d", 7);
}

static void run_fails_for_b(kb_bench_case *c, int64_t calls) {
    if (strcmp(kb_bench_param(c, "impl"), "b") == 0)
        kb_bench_fail(c, KB_EINVAL, "b breaks\non two lines");
}

static void failures_are_recorded(void **state) {
    const kb_bench_def defs[] = {{.name = "s",
                                  .axes = axes,
                                  .setup = failing_setup,
                                  .run = run,
                                  .teardown = teardown,
                                  .user = &the_log},
                                 {.name = "r", .axes = axes, .run = run_fails_for_b}};
    memset(&the_log, 0, sizeof the_log);
    kb_bench_settings s = quick_settings();
    kb_results r;
    run_plan(defs, 2, &s, &r);
    assert_int_equal(r.ncases, 6);
    for (int i = 0; i < 3; i++) {
        assert_true(r.cases[i].failed);
        assert_string_equal(r.cases[i].error, "setup: no room for 7");
        assert_int_equal(r.cases[i].nsamples, 0);
    }
    assert_int_equal(the_log.teardowns, 0); /* no teardown after a failed setup */
    assert_int_equal(the_log.n, 0);
    assert_false(r.cases[3].failed);
    assert_true(r.cases[4].failed);
    assert_string_equal(r.cases[4].error, "b breaks on two lines");
    assert_false(r.cases[5].failed);
    assert_int_equal(kb_results_failed(&r), 4);
    kb_results_free(&r);
}

static void settings_restored(void **state) {
    static const char *const simd[] = {"scalar", NULL};
    static const char *const threads[] = {"1", NULL};
    static const char *const impl[] = {"a", NULL};
    static const kb_bench_axis ax[] = {
        {"simd", simd, 0}, {"threads", threads, 0}, {"impl", impl, 0}, {NULL, NULL, 0}};
    kb_bench_def def = {.name = "x", .axes = ax, .run = run_fails_for_b};
    kb_simd_level before_simd, after_simd;
    int before_threads, after_threads;
    assert_int_equal(kb_threads_set(2), KB_OK);
    assert_int_equal(kb_simd_current(&before_simd), KB_OK);
    assert_int_equal(kb_threads_current(&before_threads), KB_OK);
    kb_bench_settings s = quick_settings();
    kb_results r;
    run_plan(&def, 1, &s, &r);
    assert_false(r.cases[0].failed);
    assert_int_equal(r.cases[0].simd, KB_SIMD_SCALAR);
    assert_int_equal(r.cases[0].threads, 1);
    assert_int_equal(kb_simd_current(&after_simd), KB_OK);
    assert_int_equal(kb_threads_current(&after_threads), KB_OK);
    assert_int_equal(after_simd, before_simd);
    assert_int_equal(after_threads, before_threads);
    kb_results_free(&r);

    kb_bench_settings bad = quick_settings();
    bad.min_samples = 3;
    assert_int_equal(kb_bench_settings_check(&bad), KB_EINVAL);
    bad = quick_settings();
    bad.min_time = 0;
    assert_int_equal(kb_bench_settings_check(&bad), KB_EINVAL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(interleaved_rounds),    cmocka_unit_test(uneven_speeds),
        cmocka_unit_test(failures_are_recorded), cmocka_unit_test(counts_per_implementation),
        cmocka_unit_test(settings_restored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
