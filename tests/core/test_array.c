/* Array views: construction checks, contiguity, aligned allocation, the row walk (against
 * direct index arithmetic) and element conversion. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kbench/array.h"
#include "kbench/half.h"
#include "kbench/memory.h"
#include "test_util.h"

static void views_are_checked(void **state) {
    kb_array a;
    int64_t shape[3] = {2, -1, 3};
    assert_int_equal(kb_array_view(&a, KB_F32, 3, shape, NULL, NULL, 0), KB_EINVAL);
    assert_true(strlen(kb_last_error()) > 0);
    int64_t huge[2] = {INT64_MAX / 2, 3};
    assert_int_equal(kb_array_view(&a, KB_F32, 2, huge, NULL, NULL, 0), KB_EINVAL);
    int64_t empty_huge[3] = {0, INT64_MAX / 2, 3};
    assert_int_equal(kb_array_view(&a, KB_F32, 3, empty_huge, NULL, NULL, 0), KB_EINVAL);
    int64_t ok[2] = {0, 5};
    assert_int_equal(kb_array_view(&a, KB_F32, 2, ok, NULL, NULL, 0), KB_OK);
    assert_int_equal(kb_array_size(&a), 0);
    assert_int_equal(kb_array_view(&a, KB_F32, KB_MAX_DIMS + 1, ok, NULL, NULL, 0), KB_EINVAL);
    assert_int_equal(kb_array_view(&a, KB_DTYPE_COUNT, 2, ok, NULL, NULL, 0), KB_EINVAL);
    int64_t reach_shape[2] = {3, 3}, reach_strides[2] = {INT64_MAX / 2, 8};
    assert_int_equal(kb_array_view(&a, KB_F64, 2, reach_shape, reach_strides, NULL, 0), KB_EINVAL);
}

static void contiguity_follows_numpy(void **state) {
    kb_array a;
    int64_t shape[3] = {2, 3, 4};
    assert_int_equal(kb_array_new(&a, KB_F64, 3, shape, KB_ORDER_C), KB_OK);
    assert_int_equal((uintptr_t)a.data % KB_ALIGNMENT, 0);
    assert_true(kb_array_is_c_contiguous(&a));
    assert_false(kb_array_is_f_contiguous(&a));
    assert_int_equal(a.strides[0], 96);
    assert_int_equal(a.strides[2], 8);
    kb_array_free(&a);
    assert_null(a.data);

    assert_int_equal(kb_array_new(&a, KB_INT16, 3, shape, KB_ORDER_F), KB_OK);
    assert_true(kb_array_is_f_contiguous(&a));
    assert_false(kb_array_is_c_contiguous(&a));
    assert_int_equal(a.strides[0], 2);
    assert_int_equal(a.strides[2], 12);
    kb_array_free(&a);

    /* Length-1 dimensions and empty arrays are contiguous either way, whatever the stride. */
    int64_t row[2] = {1, 5}, strides[2] = {12345, 4};
    float buf[5];
    assert_int_equal(kb_array_view(&a, KB_F32, 2, row, strides, buf, 0), KB_OK);
    assert_true(kb_array_is_c_contiguous(&a));
    int64_t col_strides[2] = {4, -4};
    assert_int_equal(kb_array_view(&a, KB_F32, 2, row, col_strides, buf + 4, 0), KB_OK);
    assert_false(kb_array_is_c_contiguous(&a));
}

static test_rng rng = {0x9e3779b97f4a7c15u};

/* Random views of a buffer, with permuted, reversed, broadcast (zero) and sliced strides: the
 * walk must visit exactly the elements that index arithmetic gives, in C order. */
static void walk_visits_every_element_in_order(void **state) {
    enum { CAP = 1 << 16 };
    int32_t *buf = malloc(CAP * sizeof *buf);
    for (int i = 0; i < CAP; i++)
        buf[i] = i;
    for (int trial = 0; trial < 2000; trial++) {
        int ndim = (int)(test_rng_next(&rng) % 6);
        int64_t shape[KB_MAX_DIMS], strides[KB_MAX_DIMS];
        int64_t span = 1;
        for (int i = 0; i < ndim; i++)
            shape[i] = (int64_t)(test_rng_next(&rng) % 5) + (trial % 50 == 0 ? 0 : 1);
        /* Contiguous C strides of a larger array, then permuted, negated, zeroed or doubled. */
        for (int i = ndim - 1; i >= 0; i--) {
            strides[i] = span * 4;
            span *= shape[i] ? shape[i] : 1;
        }
        int64_t offset = 0;
        for (int i = 0; i < ndim; i++) {
            switch (test_rng_next(&rng) % 5) {
                case 0:
                    strides[i] = -strides[i];
                    offset += (shape[i] - 1) * -strides[i];
                    break;
                case 1:
                    strides[i] = 0;
                    break;
                case 2:
                    strides[i] *= 2;
                    break;
                default:
                    break;
            }
        }
        if (ndim >= 2 && test_rng_next(&rng) % 2) {
            int64_t t = strides[0];
            strides[0] = strides[ndim - 1];
            strides[ndim - 1] = t;
            t = shape[0];
            shape[0] = shape[ndim - 1];
            shape[ndim - 1] = t;
        }
        kb_array a;
        assert_int_equal(
            kb_array_view(&a, KB_INT32, ndim, shape, strides, (char *)buf + CAP * 2 + offset, 0),
            KB_OK);
        int64_t count = kb_array_size(&a), visited = 0;
        int64_t index[KB_MAX_DIMS] = {0};
        kb_walk w;
        kb_walk_init(&w, &a);
        char *row;
        while (kb_walk_next(&w, &row)) {
            for (int64_t j = 0; j < w.row_length; j++) {
                assert_true(visited < count);
                int32_t *expected = kb_array_at(&a, index);
                assert_ptr_equal(row + j * w.row_stride, expected);
                visited++;
                for (int i = ndim - 1; i >= 0; i--) {
                    if (++index[i] < shape[i])
                        break;
                    index[i] = 0;
                }
            }
        }
        assert_int_equal(visited, count);
    }
    free(buf);
}

/* Copies the n elements at data, of type from, into *dst, a new one-dimensional array of type
 * to (allocated whatever the outcome); returns kb_array_copy's status. */
static kb_status copy_new(kb_array *dst, kb_dtype to, kb_dtype from, int64_t n, void *data) {
    int64_t shape[1] = {n};
    kb_array src;
    assert_int_equal(kb_array_view(&src, from, 1, shape, NULL, data, 0), KB_OK);
    assert_int_equal(kb_array_new(dst, to, 1, shape, KB_ORDER_C), KB_OK);
    return kb_array_copy(dst, &src);
}

static void copy_converts_like_astype(void **state) {
    double in[7] = {1.5, -2.75, 0.0, 65520.0, 1e-8, 3.0e38, -0.0};
    kb_array dst;
    assert_int_equal(copy_new(&dst, KB_F16, KB_F64, 7, in), KB_OK);
    uint16_t *h = dst.data;
    assert_int_equal(h[0], 0x3e00);
    assert_int_equal(h[1], 0xc180);
    assert_int_equal(h[3], 0x7c00); /* 65520 ties away to infinity */
    assert_int_equal(h[6], 0x8000);
    kb_array_free(&dst);

    /* A float64 just above a float16 tie: rounding through float32 would hit the tie and go
     * to even (down); one correct rounding goes up. */
    double above_tie = 1.0 + ldexp(1, -11) + ldexp(1, -40);
    assert_int_equal(copy_new(&dst, KB_F16, KB_F64, 1, &above_tie), KB_OK);
    assert_int_equal(*(uint16_t *)dst.data, 0x3c01);
    kb_array_free(&dst);

    /* Integers wrap, floats truncate toward zero, NaN and out-of-range values are refused. */
    int64_t ints[3] = {300, -1, 65536 + 5};
    assert_int_equal(copy_new(&dst, KB_UINT8, KB_INT64, 3, ints), KB_OK);
    uint8_t *u = dst.data;
    assert_int_equal(u[0], 44);
    assert_int_equal(u[1], 255);
    assert_int_equal(u[2], 5);
    kb_array_free(&dst);

    double bad[2] = {-2.9, NAN};
    assert_int_equal(copy_new(&dst, KB_INT32, KB_F64, 2, bad), KB_EINVAL);
    assert_int_equal(((int32_t *)dst.data)[0], -2);
    assert_string_equal(kb_last_error(), "element (1,): value nan cannot be converted to int32");
    kb_array_free(&dst);

    /* uint64 above 2^53 to float32: one rounding from the exact value. */
    uint64_t big = (1ull << 60) + (1ull << 36) + 1; /* just above a float32 tie */
    assert_int_equal(copy_new(&dst, KB_F32, KB_UINT64, 1, &big), KB_OK);
    assert_true(*(float *)dst.data == ldexpf(1, 60) + ldexpf(1, 37));
    kb_array_free(&dst);

    int64_t one[1] = {1}, two[1] = {2};
    kb_array ro, src;
    assert_int_equal(kb_array_view(&ro, KB_F64, 1, two, NULL, bad, KB_ARRAY_READONLY), KB_OK);
    assert_int_equal(kb_array_view(&src, KB_UINT64, 1, one, NULL, &big, 0), KB_OK);
    assert_int_equal(kb_array_copy(&ro, &src), KB_EINVAL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(views_are_checked),
        cmocka_unit_test(contiguity_follows_numpy),
        cmocka_unit_test(walk_visits_every_element_in_order),
        cmocka_unit_test(copy_converts_like_astype),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
