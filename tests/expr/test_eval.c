/* The evaluator: names, keywords and values checked against each reduction's signature, with
 * the column of the offending token in every message; results of small reductions, nested
 * calls, literals and the identity, computed by hand. NumPy itself is the reference in
 * tests/cli/test_eval.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/expr.h"
#include "kbench/reduce.h"

/* x: float64 [[0 1 2] [3 4 5]]; n: int32 [[[0..3] [4..7] [8..11]] [[12..15] ...]] (2, 3, 4) */
static double x_data[6] = {0, 1, 2, 3, 4, 5};
static int32_t n_data[24];
static kb_array x, n;
static kb_expr_binding bindings[3];

static int setup(void **state) {
    int64_t xs[2] = {2, 3}, ns[3] = {2, 3, 4};
    for (int i = 0; i < 24; i++)
        n_data[i] = i;
    if (kb_array_view(&x, KB_F64, 2, xs, NULL, x_data, KB_ARRAY_READONLY) != KB_OK ||
        kb_array_view(&n, KB_INT32, 3, ns, NULL, n_data, KB_ARRAY_READONLY) != KB_OK)
        return -1;
    bindings[0] = (kb_expr_binding){"x", &x};
    bindings[1] = (kb_expr_binding){"n", &n};
    bindings[2] = (kb_expr_binding){"x", &n}; /* shadowed: the first binding wins */
    return 0;
}

static kb_status eval(const char *src, kb_array *out) {
    kb_expr *e;
    kb_status st = kb_expr_parse(src, &e);
    if (st != KB_OK)
        return st;
    st = kb_expr_eval(e, bindings, 3, out);
    kb_expr_free(e);
    return st;
}

static void expect_error(const char *src, const char *message) {
    kb_array out;
    kb_status st = eval(src, &out);
    if (st == KB_OK)
        fail_msg("'%s' evaluated, expected \"%s\"", src, message);
    assert_string_equal(kb_last_error(), message);
    assert_null(out.data); /* nothing to free after a failure */
}

static void semantic_errors_point_at_their_column(void **state) {
    expect_error("meen(x)", "unknown function 'meen' at column 1");
    expect_error("np.meen(x)", "unknown function 'np.meen' at column 1");
    expect_error("numpy.sum(x)", "unknown function 'numpy.sum' at column 1");
    expect_error("np.np.sum(x)", "unknown function 'np.np.sum' at column 1");
    expect_error("x(1)", "unknown function 'x' at column 1");
    expect_error("sum(mean(x), axis=meen(x))",
                 "axis must be an integer, a tuple of integers or None at column 19");
    expect_error("mean(x, axes=0)", "unknown keyword 'axes' at column 9");
    expect_error("mean(y)", "unknown variable 'y' at column 6");
    expect_error("sum(max(y, axis=0))", "unknown variable 'y' at column 9");
    expect_error("sum(x, ddof=1)", "ddof is only valid for var and std at column 8");
    expect_error("argmax(x, ddof=0)", "ddof is only valid for var and std at column 11");
    expect_error("var(x, ddof=None)", "ddof must be a number at column 13");
    expect_error("var(x, ddof=(1,))", "ddof must be a number at column 13");
    expect_error("sum(x, axis=1.0)",
                 "axis must be an integer, a tuple of integers or None at column 13");
    expect_error("sum(x, axis=True)",
                 "axis must be an integer, a tuple of integers or None at column 13");
    expect_error("sum(x, axis=(0, None))",
                 "axis must be an integer, a tuple of integers or None at column 17");
    expect_error("sum(x, axis=x)",
                 "axis must be an integer, a tuple of integers or None at column 13");
    expect_error("sum(x, keepdims=1.5)", "keepdims must be True or False at column 17");
    expect_error("sum(x, axis=0, axis=1)", "keyword argument 'axis' repeated at column 16");
    expect_error("var(x, ddof=0, ddof=0)", "keyword argument 'ddof' repeated at column 16");
    expect_error("sum()", "sum needs an array argument at column 1");
    expect_error("np.std(axis=0)", "std needs an array argument at column 1");
    expect_error("sum(x, 0, None, None, True, 1)",
                 "sum takes at most 5 positional arguments at column 29");
    expect_error("argmax(x, 0, None, True)",
                 "argmax takes at most 3 positional arguments at column 20");
    expect_error("sum(x, 0, axis=1)", "sum got multiple values for argument 'axis' at column 11");
    expect_error("sum(x, 0, 1)", "dtype is not supported (only None) at column 11");
    expect_error("max(x, out=x)", "out is not supported (only None) at column 12");
    expect_error("argmax(x, axis=(0,))",
                 "argmax takes one axis or None, not a tuple of axes at column 16");
    expect_error("argmin(x, axis=(0, 1))",
                 "argmin takes one axis or None, not a tuple of axes at column 16");
    expect_error("sum(x, axis=(0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0))",
                 "axis tuple has more than 32 entries at column 13");
    expect_error("x + n", "operands could not be broadcast together with shapes (2,3) (2,3,4) "
                          "at column 3");
    expect_error("1 + sum(x, axis=1) * x",
                 "operands could not be broadcast together with shapes (2,) (2,3) at column 20");
    expect_error("where(x > 1, x)", "where takes 3 arguments, not 2 at column 1");
    expect_error("exp(x, out=x)", "exp takes no keyword 'out' at column 8");
    expect_error("astype(x, 'float33')", "unknown dtype 'float33' at column 11");
    expect_error("x & 1", "bitwise_and is not supported for float64, int64 at column 3");
    expect_error("-(x > 1)",
                 "numpy boolean negative is not supported, use ~ or logical operations instead "
                 "at column 1");
    expect_error("astype(n, 'uint8') + 256",
                 "Python integer 256 out of bounds for uint8 at column 20");
    expect_error("n ** -1", "Integers to negative integer powers are not allowed at column 3");
    expect_error("a = x; b", "unknown variable 'b' at column 8");
    expect_error("x; y + 1; x", "unknown variable 'y' at column 4"); /* a statement dropped */
    expect_error("sum(None)", "expected an array, not None at column 5");
    expect_error("sum((1, 2))", "expected an array, not a tuple at column 5");
    expect_error("None", "expected an array, not None at column 1");
    /* Checked by kb_reduce against the array, then given the call's column. */
    expect_error("sum(x, axis=2)", "axis 2 out of range for a 2-d array at column 1");
    expect_error("sum(mean(x, axis=-3))", "axis -3 out of range for a 2-d array at column 5");
    expect_error("sum(x, axis=(0, -2))", "axis -2 repeated at column 1");
    expect_error("sum(x, axis=9999999999)",
                 "axis 9999999999 out of range for a 2-d array at column 13");
}

static void check_f64(const kb_array *a, int ndim, const int64_t *shape, const double *want) {
    assert_int_equal(a->dtype, KB_F64);
    assert_int_equal(a->ndim, ndim);
    int64_t size = 1;
    for (int i = 0; i < ndim; i++) {
        assert_int_equal(a->shape[i], shape[i]);
        size *= shape[i];
    }
    assert_true(kb_array_is_c_contiguous(a));
    for (int64_t i = 0; i < size; i++)
        assert_true(((const double *)a->data)[i] == want[i]);
}

static void reductions_evaluate(void **state) {
    kb_array out;
    assert_int_equal(eval("mean(x, axis=0)", &out), KB_OK);
    check_f64(&out, 1, (int64_t[]){3}, (double[]){1.5, 2.5, 3.5});
    kb_array_free(&out);

    assert_int_equal(eval("np.sum(x, axis=-1, keepdims=True)", &out), KB_OK);
    check_f64(&out, 2, (int64_t[]){2, 1}, (double[]){3, 12});
    kb_array_free(&out);

    assert_int_equal(eval("var(x, axis=None, ddof=1)", &out), KB_OK);
    check_f64(&out, 0, NULL, (double[]){3.5});
    kb_array_free(&out);

    assert_int_equal(eval("sum(x, axis=())", &out), KB_OK); /* reduces nothing */
    check_f64(&out, 2, (int64_t[]){2, 3}, x_data);
    kb_array_free(&out);

    /* int32 sums widen to int64, as NumPy's do. */
    assert_int_equal(eval("sum(n, axis=(0, 2))", &out), KB_OK);
    assert_int_equal(out.dtype, KB_INT64);
    assert_int_equal(out.ndim, 1);
    assert_int_equal(out.shape[0], 3);
    int64_t want[3] = {0 + 1 + 2 + 3 + 12 + 13 + 14 + 15, 4 + 5 + 6 + 7 + 16 + 17 + 18 + 19,
                       8 + 9 + 10 + 11 + 20 + 21 + 22 + 23};
    assert_memory_equal(out.data, want, sizeof want);
    kb_array_free(&out);

    assert_int_equal(eval("argmax(n, axis=1)", &out), KB_OK);
    assert_int_equal(out.dtype, KB_INT64);
    assert_int_equal(out.ndim, 2);
    for (int i = 0; i < 8; i++)
        assert_int_equal(((int64_t *)out.data)[i], 2);
    kb_array_free(&out);
}

static void calls_nest(void **state) {
    kb_array out;
    assert_int_equal(eval("sum(max(x, axis=1))", &out), KB_OK);
    check_f64(&out, 0, NULL, (double[]){2 + 5});
    kb_array_free(&out);
    assert_int_equal(eval("mean(sum(n, axis=2), axis=(0, 1), keepdims=True)", &out), KB_OK);
    check_f64(&out, 2, (int64_t[]){1, 1}, (double[]){276.0 / 6});
    kb_array_free(&out);
}

static void variables_and_literals_are_arrays(void **state) {
    kb_array out;
    assert_int_equal(eval("x", &out), KB_OK);
    check_f64(&out, 2, (int64_t[]){2, 3}, x_data);
    assert_ptr_not_equal(out.data, x_data); /* a copy the caller owns */
    assert_false(out.flags & KB_ARRAY_READONLY);
    kb_array_free(&out);

    assert_int_equal(eval("((x))", &out), KB_OK);
    kb_array_free(&out);

    assert_int_equal(eval("-2.5", &out), KB_OK);
    check_f64(&out, 0, NULL, (double[]){-2.5});
    kb_array_free(&out);

    assert_int_equal(eval("sum(-3)", &out), KB_OK);
    assert_int_equal(out.dtype, KB_INT64);
    assert_int_equal(out.ndim, 0);
    assert_int_equal(*(int64_t *)out.data, -3);
    kb_array_free(&out);

    assert_int_equal(eval("sum(True)", &out), KB_OK);
    assert_int_equal(out.dtype, KB_INT64);
    assert_int_equal(*(int64_t *)out.data, 1);
    kb_array_free(&out);
}

/* Statements, elementwise operations and Python scalars, against values computed by hand
 * (NumPy is the reference of tests/cli/test_expr_differential.py). */
static void elementwise_and_statements_evaluate(void **state) {
    kb_array out;
    assert_int_equal(eval("m = max(x, axis=1, keepdims=True)\nx - m", &out), KB_OK);
    check_f64(&out, 2, (int64_t[]){2, 3}, (double[]){-2, -1, 0, -2, -1, 0});
    kb_array_free(&out);

    assert_int_equal(eval("x; y = x * 2; y - x", &out), KB_OK);
    check_f64(&out, 2, (int64_t[]){2, 3}, x_data);
    kb_array_free(&out);

    /* int32 stays int32 beside Python ints; // and % floor, as Python's. */
    assert_int_equal(eval("(n - 12) // 5 % 3", &out), KB_OK);
    assert_int_equal(out.dtype, KB_INT32);
    assert_int_equal(out.ndim, 3);
    const int32_t *r = out.data;
    for (int i = 0; i < 24; i++) {
        int q = i - 12 >= 0 ? (i - 12) / 5 : -((12 - i + 4) / 5); /* floor((i - 12) / 5) */
        assert_int_equal(r[i], ((q % 3) + 3) % 3);
    }
    kb_array_free(&out);

    /* A bound scalar is weak: float32 * 0.5 is float32, int32 * 2 int32. */
    float f_data[2] = {1, 3};
    int64_t fs[1] = {2};
    kb_array f;
    assert_int_equal(kb_array_view(&f, KB_F32, 1, fs, NULL, f_data, KB_ARRAY_READONLY), KB_OK);
    kb_expr_binding b[2] = {{"f", &f}, {"n", &n}};
    kb_expr_scalar sc[2] = {{.name = "half", .dtype = KB_F64, .value.f = 0.5},
                            {.name = "two", .dtype = KB_INT64, .value.i = 2}};
    kb_expr_inputs in = {.bindings = b, .nbindings = 2, .scalars = sc, .nscalars = 2};
    kb_expr *e;
    assert_int_equal(kb_expr_parse("f * half + sum(n * two > 40)", &e), KB_OK);
    assert_int_equal(kb_expr_eval_inputs(e, &in, &out), KB_OK);
    kb_expr_free(e);
    /* sum(...) is a strong int64 0-d array: float32 with int64 is float64, as in NumPy. */
    assert_int_equal(out.dtype, KB_F64);
    assert_true(((double *)out.data)[0] == 0.5 + 3 && ((double *)out.data)[1] == 1.5 + 3);
    kb_array_free(&out);
    assert_int_equal(kb_expr_parse("f * half", &e), KB_OK);
    assert_int_equal(kb_expr_eval_inputs(e, &in, &out), KB_OK);
    kb_expr_free(e);
    assert_int_equal(out.dtype, KB_F32);
    assert_true(((float *)out.data)[0] == 0.5f && ((float *)out.data)[1] == 1.5f);
    kb_array_free(&out);
}

static void arguments_are_checked(void **state) {
    kb_expr *e;
    kb_array out;
    assert_int_equal(kb_expr_parse("x", &e), KB_OK);
    assert_int_equal(kb_expr_eval(NULL, bindings, 1, &out), KB_EINVAL);
    assert_int_equal(kb_expr_eval(e, NULL, 1, &out), KB_EINVAL);
    assert_int_equal(kb_expr_eval(e, bindings, -1, &out), KB_EINVAL);
    kb_expr_binding nameless = {NULL, &x};
    assert_int_equal(kb_expr_eval(e, &nameless, 1, &out), KB_EINVAL);
    assert_int_equal(kb_expr_eval(e, NULL, 0, &out), KB_EINVAL); /* x is unbound */
    assert_string_equal(kb_last_error(), "unknown variable 'x' at column 1");
    kb_expr_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(semantic_errors_point_at_their_column),
        cmocka_unit_test(reductions_evaluate),
        cmocka_unit_test(calls_nest),
        cmocka_unit_test(variables_and_literals_are_arrays),
        cmocka_unit_test(elementwise_and_statements_evaluate),
        cmocka_unit_test(arguments_are_checked),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
