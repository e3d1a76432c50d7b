/* kb_expr_explain's plans as C sees them (the struct behind --explain), tuples of results
 * through kb_expr_eval_results, results into the caller's arrays (kb_expr_eval_into), and the
 * refusals of each; numbers worked out by hand.
 * tests/cli/test_fusion_golden.py holds the CLI's plans to the golden table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/expr.h"

static float x_data[100];
static int32_t i_data[10];
static kb_array x, i32;
static kb_expr_binding bindings[2];

static int setup(void **state) {
    (void)state;
    int64_t xs[2] = {10, 10}, is[1] = {10};
    for (int k = 0; k < 100; k++)
        x_data[k] = (float)(k % 13) - 6;
    for (int k = 0; k < 10; k++)
        i_data[k] = k;
    if (kb_array_view(&x, KB_F32, 2, xs, NULL, x_data, KB_ARRAY_READONLY) != KB_OK ||
        kb_array_view(&i32, KB_INT32, 1, is, NULL, i_data, KB_ARRAY_READONLY) != KB_OK)
        return -1;
    bindings[0] = (kb_expr_binding){"x", &x};
    bindings[1] = (kb_expr_binding){"i", &i32};
    return 0;
}

static void explain(const char *source, kb_expr_mode mode, kb_expr_plan *plan) {
    kb_expr *e;
    assert_int_equal(kb_expr_parse(source, &e), KB_OK);
    kb_expr_inputs in = {.bindings = bindings, .nbindings = 2, .mode = mode};
    assert_int_equal(kb_expr_explain(e, &in, plan), KB_OK);
    kb_expr_free(e);
}

static const char *const softmax =
    "m = max(x, axis=1, keepdims=True); e = exp(x - m); e / sum(e, axis=1, keepdims=True)";

static void fused_softmax_is_one_kernel(void **state) {
    (void)state;
    kb_expr_plan p;
    explain(softmax, KB_EXPR_FUSED, &p);
    assert_int_equal(p.mode, KB_EXPR_FUSED);
    assert_string_equal(p.note, "");
    assert_int_equal(p.nkernels, 1);
    const kb_expr_kernel *k = &p.kernels[0];
    assert_string_equal(k->ops, "max, subtract, exp, sum, divide");
    assert_int_equal(k->nreads, 1);
    assert_string_equal(k->reads[0].name, "x");
    assert_int_equal(k->reads[0].dtype, KB_F32);
    assert_int_equal(k->reads[0].elements, 100);
    assert_int_equal(k->reads[0].bytes, 400);
    assert_int_equal(k->nwrites, 1);
    assert_string_equal(k->writes[0].name, "out0");
    assert_int_equal(k->writes[0].elements, 100);
    assert_int_equal(k->elements_read + k->elements_written, 200);
    assert_int_equal(k->bytes_read + k->bytes_written, 800);
    assert_int_equal(p.numel, 200);
    assert_int_equal(p.bytes, 800);
    kb_expr_plan_free(&p);
    kb_expr_plan_free(&p); /* zeroed: harmless */
}

static void eager_softmax_is_five_kernels(void **state) {
    (void)state;
    kb_expr_plan p;
    explain(softmax, KB_EXPR_EAGER, &p);
    assert_int_equal(p.mode, KB_EXPR_EAGER);
    assert_int_equal(p.nkernels, 5);
    /* max (100 + 10), x - m (110 + 100), exp (100 + 100), sum (100 + 10), e / s (110 + 100) */
    static const int64_t numel[5] = {110, 210, 200, 110, 210};
    static const char *const ops[5] = {"max", "subtract", "exp", "sum", "divide"};
    for (int k = 0; k < 5; k++) {
        assert_string_equal(p.kernels[k].ops, ops[k]);
        assert_int_equal(p.kernels[k].elements_read + p.kernels[k].elements_written, numel[k]);
    }
    assert_string_equal(p.kernels[0].reads[0].name, "x");
    assert_int_equal(p.numel, 840);
    assert_int_equal(p.bytes, 840 * 4);
    kb_expr_plan_free(&p);
}

static void unfused_expressions_say_why(void **state) {
    (void)state;
    kb_expr_plan p;
    explain("i * 2", KB_EXPR_FUSED, &p);
    assert_int_equal(p.mode, KB_EXPR_FUSED);
    assert_string_equal(p.note, "evaluated eagerly: i is int32: the fused executor computes "
                                "float32 and float64");
    assert_int_equal(p.nkernels, 1);
    assert_int_equal(p.numel, 20);
    kb_expr_plan_free(&p);
}

static void tuples_give_several_results(void **state) {
    (void)state;
    kb_expr *e;
    assert_int_equal(kb_expr_parse("(sum(x, axis=1), transpose(x) * 2)", &e), KB_OK);
    assert_int_equal(kb_expr_result_count(e), 2);
    for (int mode = 0; mode < 2; mode++) {
        kb_expr_inputs in = {.bindings = bindings, .nbindings = 2, .mode = (kb_expr_mode)mode};
        kb_array out[2];
        assert_int_equal(kb_expr_eval_results(e, &in, out, 2), KB_OK);
        assert_int_equal(out[0].ndim, 1);
        assert_int_equal(out[1].ndim, 2);
        for (int r = 0; r < 10; r++) {
            float s = 0;
            for (int c = 0; c < 10; c++) {
                s += x_data[r * 10 + c];
                assert_true(((float *)out[1].data)[c * 10 + r] == 2 * x_data[r * 10 + c]);
            }
            assert_true(((float *)out[0].data)[r] == s); /* small integers: exact */
        }
        kb_array_free(&out[0]);
        kb_array_free(&out[1]);
        kb_array one;
        assert_int_equal(kb_expr_eval_inputs(e, &in, &one), KB_EINVAL);
        assert_string_equal(kb_last_error(),
                            "the expression gives 2 results, not 1 (evaluate it with "
                            "kb_expr_eval_results) at column 1");
        assert_null(one.data);
    }
    kb_expr_inputs bad = {.bindings = bindings, .nbindings = 2, .mode = (kb_expr_mode)7};
    kb_array out[2];
    assert_int_equal(kb_expr_eval_results(e, &bad, out, 2), KB_EINVAL);
    assert_string_equal(kb_last_error(), "kb_expr_eval: unknown mode 7");
    kb_expr_plan p;
    assert_int_equal(kb_expr_explain(e, &bad, &p), KB_EINVAL);
    assert_int_equal(kb_expr_explain(e, NULL, &p), KB_EINVAL);
    assert_int_equal(kb_expr_explain(NULL, &bad, &p), KB_EINVAL);
    kb_expr_free(e);
}

/* Results written into the caller's arrays, here column-major views, equal the results of a
 * plain evaluation; arrays of another shape, dtype or read-only are refused. */
static void results_go_into_given_arrays(void **state) {
    (void)state;
    kb_expr *e;
    assert_int_equal(kb_expr_parse("(x * 2 - transpose(x), sum(exp(x - max(x, axis=1, "
                                   "keepdims=True)), axis=1))",
                                   &e),
                     KB_OK);
    for (int mode = 0; mode < 2; mode++) {
        kb_expr_inputs in = {.bindings = bindings, .nbindings = 2, .mode = (kb_expr_mode)mode};
        kb_array want[2], into[2];
        assert_int_equal(kb_expr_eval_results(e, &in, want, 2), KB_OK);
        int64_t square[2] = {10, 10}, row[1] = {10};
        assert_int_equal(kb_array_new(&into[0], KB_F32, 2, square, KB_ORDER_F), KB_OK);
        assert_int_equal(kb_array_new(&into[1], KB_F32, 1, row, KB_ORDER_C), KB_OK);
        assert_int_equal(kb_expr_eval_into(e, &in, into, 2), KB_OK);
        for (int r = 0; r < 10; r++) {
            for (int c = 0; c < 10; c++)
                assert_true(((float *)into[0].data)[c * 10 + r] ==
                            ((float *)want[0].data)[r * 10 + c]);
            assert_true(((float *)into[1].data)[r] == ((float *)want[1].data)[r]);
        }
        kb_array_free(&into[1]);
        assert_int_equal(kb_array_new(&into[1], KB_F64, 1, row, KB_ORDER_C), KB_OK);
        assert_int_equal(kb_expr_eval_into(e, &in, into, 2), KB_EINVAL);
        if (mode == KB_EXPR_FUSED)
            assert_string_equal(kb_last_error(), "result 1 is float32 (10,); its array is "
                                                 "float64 (10,)");
        kb_array_free(&into[0]);
        kb_array_free(&into[1]);
        kb_array_free(&want[0]);
        kb_array_free(&want[1]);
    }
    kb_expr_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fused_softmax_is_one_kernel),
        cmocka_unit_test(eager_softmax_is_five_kernels),
        cmocka_unit_test(unfused_expressions_say_why),
        cmocka_unit_test(tuples_give_several_results),
        cmocka_unit_test(results_go_into_given_arrays),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
