/* kb_reduce_work_of against counts worked out by hand from the definitions in
 * kbench/reduce.h, for each op and axis of a 3 x 5 array, and for the dtypes whose arithmetic
 * type or result size differs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "kbench/array.h"
#include "kbench/reduce.h"

typedef struct expected {
    kb_reduce_op op;
    int axis; /* -99: None */
    int64_t outputs;
    double bytes_written, flops;
    kb_dtype flop_dtype;
} expected;

static void check(kb_dtype dtype, const expected *cases, size_t n) {
    int64_t shape[2] = {3, 5};
    kb_array a;
    assert_int_equal(kb_array_new(&a, dtype, 2, shape, KB_ORDER_C), KB_OK);
    for (size_t i = 0; i < n; i++) {
        const expected *e = &cases[i];
        kb_reduce_args args =
            e->axis == -99 ? kb_reduce_args_all(e->op) : kb_reduce_args_axis(e->op, e->axis);
        kb_reduce_work w;
        assert_int_equal(kb_reduce_work_of(&a, &args, &w), KB_OK);
        print_message("%s %s axis %d\n", kb_dtype_name(dtype), kb_reduce_op_name(e->op), e->axis);
        assert_int_equal(w.elements, 15);
        assert_int_equal(w.outputs, e->outputs);
        assert_true(w.bytes_read == 15.0 * (double)kb_dtype_size(dtype));
        assert_true(w.bytes_written == e->bytes_written);
        assert_true(w.flops == e->flops);
        assert_int_equal(w.flop_dtype, e->flop_dtype);
    }
    kb_array_free(&a);
}

/* float32, 3 x 5: m = 15 (None), 3 (axis 0, 5 outputs), 5 (axis 1, 3 outputs). */
static void float32_every_op_and_axis(void **state) {
    (void)state;
    static const expected cases[] = {
        {KB_REDUCE_SUM, -99, 1, 4, 15, KB_F64},    {KB_REDUCE_SUM, 0, 5, 20, 15, KB_F64},
        {KB_REDUCE_SUM, 1, 3, 12, 15, KB_F64},     {KB_REDUCE_PROD, 0, 5, 20, 15, KB_F64},
        {KB_REDUCE_MEAN, -99, 1, 4, 16, KB_F64},   {KB_REDUCE_MEAN, 0, 5, 20, 5 * 4, KB_F64},
        {KB_REDUCE_MEAN, 1, 3, 12, 3 * 6, KB_F64}, {KB_REDUCE_MIN, -99, 1, 4, 15, KB_F32},
        {KB_REDUCE_MAX, 1, 3, 12, 15, KB_F32},     {KB_REDUCE_ARGMIN, 0, 5, 40, 15, KB_F32},
        {KB_REDUCE_ARGMAX, -99, 1, 8, 15, KB_F32}, {KB_REDUCE_ARGMAX, 1, 3, 24, 15, KB_F32},
        {KB_REDUCE_VAR, -99, 1, 4, 62, KB_F64},    {KB_REDUCE_VAR, 0, 5, 20, 5 * 14, KB_F64},
        {KB_REDUCE_VAR, 1, 3, 12, 3 * 22, KB_F64}, {KB_REDUCE_STD, -99, 1, 4, 63, KB_F64},
        {KB_REDUCE_STD, 0, 5, 20, 5 * 15, KB_F64}, {KB_REDUCE_STD, 1, 3, 12, 3 * 23, KB_F64},
    };
    check(KB_F32, cases, sizeof cases / sizeof cases[0]);
}

static void float64_and_float16(void **state) {
    (void)state;
    static const expected f64[] = {
        {KB_REDUCE_SUM, 1, 3, 24, 15, KB_F64},
        {KB_REDUCE_MAX, 0, 5, 40, 15, KB_F64},
        {KB_REDUCE_ARGMIN, 1, 3, 24, 15, KB_F64},
    };
    check(KB_F64, f64, sizeof f64 / sizeof f64[0]);
    /* float16 results stay float16 (2 bytes); its compares count as float32. */
    static const expected f16[] = {
        {KB_REDUCE_MAX, 0, 5, 10, 15, KB_F32},
        {KB_REDUCE_SUM, -99, 1, 2, 15, KB_F64},
    };
    check(KB_F16, f16, sizeof f16 / sizeof f16[0]);
}

/* Integer sums stay integer (int64 results, no FLOPs); integer means are float64. */
static void integers(void **state) {
    (void)state;
    static const expected cases[] = {
        {KB_REDUCE_SUM, 0, 5, 40, 0, KB_BOOL},     {KB_REDUCE_MAX, 1, 3, 12, 0, KB_BOOL},
        {KB_REDUCE_ARGMAX, -99, 1, 8, 0, KB_BOOL}, {KB_REDUCE_MEAN, 1, 3, 24, 3 * 6, KB_F64},
        {KB_REDUCE_STD, 0, 5, 40, 5 * 15, KB_F64},
    };
    check(KB_INT32, cases, sizeof cases / sizeof cases[0]);
}

static void empty_and_bad_axis(void **state) {
    (void)state;
    int64_t shape[2] = {0, 4};
    kb_array a;
    assert_int_equal(kb_array_new(&a, KB_F32, 2, shape, KB_ORDER_C), KB_OK);
    kb_reduce_args args = kb_reduce_args_axis(KB_REDUCE_MEAN, 0);
    kb_reduce_work w;
    assert_int_equal(kb_reduce_work_of(&a, &args, &w), KB_OK);
    assert_int_equal(w.outputs, 4);
    assert_true(w.bytes_read == 0 && w.bytes_written == 16 && w.flops == 0);
    args = kb_reduce_args_axis(KB_REDUCE_SUM, 2);
    assert_int_equal(kb_reduce_work_of(&a, &args, &w), KB_EINVAL);
    kb_array_free(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(float32_every_op_and_axis),
        cmocka_unit_test(float64_and_float16),
        cmocka_unit_test(integers),
        cmocka_unit_test(empty_and_bad_axis),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
