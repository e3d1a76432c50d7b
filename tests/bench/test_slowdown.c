/* KB_TEST_SLOWDOWN, the test-only way to make the float32 sum cases of the reduce suite do
 * their work several times (or a fraction more, 1.1): the results stay the same to the bit,
 * other cases are untouched, and a bad factor fails the case's setup with one line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench/plan.h"
#include "kbench/bench.h"
#include "kbench/reduce.h"

/* The case of the quick suite named name, set up and run for two calls: returns its status,
 * and when it ran, whether its output is what kb_reduce makes of its input, to the bit. */
static kb_status run_case(const char *name, bool *same) {
    kb_bench_plan *plan;
    assert_int_equal(kb_bench_plan_new(&plan), KB_OK);
    assert_int_equal(kb_bench_plan_add_suite(plan, "quick"), KB_OK);
    const kb_bench_spec *spec = NULL;
    for (int i = 0; i < plan->count; i++)
        if (strcmp(plan->cases[i].name, name) == 0)
            spec = &plan->cases[i];
    assert_non_null(spec);
    kb_bench_case c = {.name = spec->name, .nparams = spec->nparams, .user = spec->user};
    for (int i = 0; i < spec->nparams; i++) {
        c.param_names[i] = spec->param_names[i];
        c.param_values[i] = spec->param_values[i];
    }
    kb_status st = spec->setup(&c);
    if (st == KB_OK) {
        spec->run(&c, 2);
        assert_int_equal(c.status, KB_OK);
        kb_bench_baseline_case b;
        assert_int_equal(spec->baseline_case(&c, &b), KB_OK);
        kb_reduce_args args = kb_reduce_args_axis(KB_REDUCE_SUM, 0);
        kb_array expected;
        assert_int_equal(kb_reduce(b.input, &args, &expected), KB_OK);
        *same = expected.dtype == b.output->dtype &&
                kb_array_size(&expected) == kb_array_size(b.output) &&
                memcmp(expected.data, b.output->data,
                       (size_t)kb_array_size(&expected) * kb_dtype_size(expected.dtype)) == 0;
        kb_array_free(&expected);
        spec->teardown(&c);
    }
    kb_bench_plan_free(plan);
    return st;
}

#define F32_SUM "reduce/sum/f32/1024x1024/axis=0/simd=scalar/threads=1"
#define F32_SUM_1D "reduce/sum/f32/8/axis=None/simd=scalar/threads=1"
#define F64_SUM "reduce/sum/f64/1024x1024/axis=0/simd=scalar/threads=1"

static void results_unchanged(void **state) {
    (void)state;
    bool same = false;
    assert_int_equal(unsetenv("KB_TEST_SLOWDOWN"), 0);
    assert_int_equal(run_case(F32_SUM, &same), KB_OK);
    assert_true(same);
    assert_int_equal(setenv("KB_TEST_SLOWDOWN", "7", 1), 0);
    same = false;
    assert_int_equal(run_case(F32_SUM, &same), KB_OK);
    assert_true(same);
    same = false;
    assert_int_equal(run_case(F64_SUM, &same), KB_OK);
    assert_true(same);
    /* A fractional part reduces leading rows once more, into an output of its own. */
    static const char *const fractional[] = {"1.1", "2.5", "1.999"};
    for (size_t i = 0; i < sizeof fractional / sizeof fractional[0]; i++) {
        assert_int_equal(setenv("KB_TEST_SLOWDOWN", fractional[i], 1), 0);
        same = false;
        assert_int_equal(run_case(F32_SUM, &same), KB_OK);
        assert_true(same);
        same = false;
        assert_int_equal(run_case(F32_SUM_1D, &same), KB_OK);
        assert_true(same);
    }
    assert_int_equal(unsetenv("KB_TEST_SLOWDOWN"), 0);
}

static void bad_factor(void **state) {
    (void)state;
    bool same;
    static const char *const bad[] = {"0",   "-2",  "0.5",  "x", "1001", "1000.5", "1e1",
                                      "nan", "inf", "1..1", ".", " 2",   "0x2p0",  "1.1x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(setenv("KB_TEST_SLOWDOWN", bad[i], 1), 0);
        assert_int_equal(run_case(F32_SUM, &same), KB_EINVAL);
        assert_non_null(strstr(kb_last_error(), "KB_TEST_SLOWDOWN"));
    }
    /* Only float32 sums read it. */
    assert_int_equal(run_case(F64_SUM, &same), KB_OK);
    assert_int_equal(unsetenv("KB_TEST_SLOWDOWN"), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(results_unchanged),
        cmocka_unit_test(bad_factor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
