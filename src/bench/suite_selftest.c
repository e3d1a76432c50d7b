/* Suites that measure the harness rather than kbench's kernels: `selftest` times an empty
 * loop body (what the harness adds to every call), a call of an empty function and a plain C
 * loop summing 8 floats into a double (the yardstick of a small call to kb_reduce_into,
 * `reduce/sum/f32/8/axis=None`); `failing`
 * fails on purpose in setup and in run, so that tests and users can see how failures are
 * reported. */
#include "bench/plan.h"
#include "bench/suites.h"

static void empty_body(kb_bench_case *c, int64_t calls) {
    for (int64_t i = 0; i < calls; i++)
        kb_clobber_memory();
}

/* noinline and an opaque body: the call stays a call. */
__attribute__((noinline)) static void empty_function(void) {
    __asm__ __volatile__("");
}

static void empty_call(kb_bench_case *c, int64_t calls) {
    for (int64_t i = 0; i < calls; i++)
        empty_function();
}

/* The 8 floats and the sum's destination are reached through pointers the compiler cannot
 * see through, so each call reads the floats and writes the sum, as kb_reduce_into reads its
 * input and writes its output. */
static const float eight_floats[8] = {0.5f, -1.25f, 2.0f, 3.5f, -0.75f, 1.0f, 4.25f, -2.5f};
static double eight_sum;

static void sum8_loop(kb_bench_case *c, int64_t calls) {
    const float *x = eight_floats;
    double *out = &eight_sum;
    for (int64_t i = 0; i < calls; i++) {
        __asm__ __volatile__("" : "+r"(x), "+r"(out));
        double s = 0;
        for (int j = 0; j < 8; j++)
            s += x[j];
        *out = s;
        kb_clobber_memory();
    }
}

static kb_status fail_setup(kb_bench_case *c) {
    return kb_bench_fail(c, KB_EINVAL, "this case fails in setup on purpose");
}

static void fail_run(kb_bench_case *c, int64_t calls) {
    kb_bench_fail(c, KB_EINVAL, "this case fails while running, on purpose");
}

kb_status kb_suite_selftest_add(kb_bench_plan *plan, const char *suite) {
    static const kb_bench_def empty = {.name = "selftest/empty", .run = empty_body};
    static const kb_bench_def call = {.name = "selftest/call", .run = empty_call};
    static const kb_bench_def sum8 = {.name = "selftest/sum8_loop", .run = sum8_loop};
    int before = kb_bench_plan_size(plan);
    kb_status st = kb_plan_add_def(plan, &empty);
    if (st == KB_OK)
        st = kb_plan_add_def(plan, &call);
    if (st == KB_OK)
        st = kb_plan_add_def(plan, &sum8);
    return kb_plan_finish_suite(plan, before, suite, st);
}

kb_status kb_suite_failing_add(kb_bench_plan *plan, const char *suite) {
    static const kb_bench_def in_setup = {
        .name = "failing/setup", .setup = fail_setup, .run = empty_body};
    static const kb_bench_def in_run = {.name = "failing/run", .run = fail_run};
    int before = kb_bench_plan_size(plan);
    kb_status st = kb_plan_add_def(plan, &in_setup);
    if (st == KB_OK)
        st = kb_plan_add_def(plan, &in_run);
    return kb_plan_finish_suite(plan, before, suite, st);
}
