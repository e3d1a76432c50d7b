/* The built-in suites' random inputs: every dtype they use filled within its range, the same
 * bytes for the same seed, element i independent of the rest; other dtypes refused. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bench/inputs.h"
#include "kbench/half.h"

enum { N = 4099 };

static double value_at(const kb_array *a, int64_t i) {
    switch (a->dtype) {
        case KB_F32:
            return ((const float *)a->data)[i];
        case KB_F64:
            return ((const double *)a->data)[i];
        case KB_F16:
            return kb_f16_to_f32(((const uint16_t *)a->data)[i]);
        default:
            return ((const int32_t *)a->data)[i];
    }
}

static void every_suite_dtype_within_range(void **state) {
    static const kb_dtype dtypes[] = {KB_F32, KB_F64, KB_F16, KB_INT32};
    int64_t shape[1] = {N};
    for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
        kb_array a, b, tail;
        assert_int_equal(kb_array_new(&a, dtypes[d], 1, shape, KB_ORDER_C), KB_OK);
        assert_int_equal(kb_array_new(&b, dtypes[d], 1, shape, KB_ORDER_C), KB_OK);
        assert_int_equal(kb_bench_fill_uniform(&a, 42, -1, 1), KB_OK);
        assert_int_equal(kb_bench_fill_uniform(&b, 42, -1, 1), KB_OK);
        assert_memory_equal(a.data, b.data, (size_t)N * kb_dtype_size(dtypes[d]));
        double scale = dtypes[d] == KB_INT32 ? KB_BENCH_INT_SCALE : 1;
        double lo = 0, hi = 0;
        int64_t distinct = 0;
        for (int64_t i = 0; i < N; i++) {
            double v = value_at(&a, i);
            assert_true(v >= -scale && v <= scale);
            lo = fmin(lo, v);
            hi = fmax(hi, v);
            distinct += i > 0 && v != value_at(&a, i - 1);
        }
        /* Spread over the range, not a constant. */
        assert_true(lo < -0.9 * scale && hi > 0.9 * scale && distinct > N / 2);
        /* Element i comes from seed + i: a fill from seed + 7 is the same bytes 7 later. */
        int64_t tail_shape[1] = {N - 7};
        assert_int_equal(kb_array_new(&tail, dtypes[d], 1, tail_shape, KB_ORDER_C), KB_OK);
        assert_int_equal(kb_bench_fill_uniform(&tail, 42 + 7, -1, 1), KB_OK);
        assert_memory_equal(tail.data, (const char *)a.data + 7 * kb_dtype_size(dtypes[d]),
                            (size_t)(N - 7) * kb_dtype_size(dtypes[d]));
        kb_array_free(&a);
        kb_array_free(&b);
        kb_array_free(&tail);
    }
}

static void other_dtypes_refused(void **state) {
    int64_t shape[1] = {8};
    kb_array a;
    assert_int_equal(kb_array_new(&a, KB_INT8, 1, shape, KB_ORDER_C), KB_OK);
    assert_int_equal(kb_bench_fill_uniform(&a, 1, -1, 1), KB_EINVAL);
    kb_array_free(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_suite_dtype_within_range),
        cmocka_unit_test(other_dtypes_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
